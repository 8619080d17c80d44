"""The snapshot's location tables without columns (macros/snapshot_lines.py).

The reference is CPython's own `co_positions()` of the code as compiled: every instruction
keeps its line, and no column is left."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import types

import pytest

from macros import snapshot_lines
from macros.fitengine import api, fit
from macros.snapshot_lines import LocationTableError, lines_only, without_columns

from .conftest import ROOT

# Source that makes the compiler write each kind of entry: short forms, one-line forms, line
# deltas beyond them (a jump of several lines and back, from a loop), long forms (an expression
# over several lines, a column past 127), and instructions with no location (a `with` block's
# exit path).
SOURCE = textwrap.dedent(
    '''
    def sample(values, path):
        total = 0
        for value in values:
            total += (
                value
                * 2
            )



        with open(path) as handle:
            text = handle.read()
        label = "'''
    + "x" * 130
    + """" + str(total) + text[: len(values)]
        return label
    """
)


def codes_in(code: types.CodeType) -> list[types.CodeType]:
    found = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found += codes_in(const)
    return found


def entry_kinds(table: bytes) -> set[int]:
    """The entry codes present in a location table (bit 7 marks an entry's first byte)."""
    return {(byte >> 3) & 15 for byte in table if byte & 0x80}


def assert_lines_kept_columns_gone(code: types.CodeType) -> None:
    new = without_columns(code)
    before, after = list(code.co_positions()), list(new.co_positions())
    assert len(before) == len(after)
    assert [p[0] for p in after] == [p[0] for p in before], code.co_qualname
    assert all(p[2] is None and p[3] is None for p in after), code.co_qualname
    assert new.co_code == code.co_code and len(new.co_consts) == len(code.co_consts)


def test_a_function_with_every_kind_of_entry_keeps_its_lines():
    module = compile(SOURCE, "sample.py", "exec")
    sample = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    # The sample does hold each kind of entry, so each branch of the reader is exercised.
    kinds = entry_kinds(sample.co_linetable)
    assert kinds & set(range(10)), kinds  # short forms
    assert kinds & {10, 11, 12}, kinds  # one-line forms
    assert 14 in kinds, kinds  # long form
    assert 15 in kinds, kinds  # no location
    assert_lines_kept_columns_gone(sample)
    assert entry_kinds(without_columns(sample).co_linetable) <= {13, 15}
    # A table already without columns (entries 13 and 15 only) reads back to itself.
    once = lines_only(sample.co_linetable)
    assert lines_only(once) == once
    assert len(without_columns(sample).co_linetable) < len(sample.co_linetable)


@pytest.mark.parametrize(
    "module", [json.decoder, json.encoder, api, fit, textwrap, subprocess], ids=lambda m: m.__name__
)
def test_every_function_of_a_module_keeps_its_lines(module):
    functions = [v for v in vars(module).values() if isinstance(v, types.FunctionType)]
    functions += [
        f
        for cls in vars(module).values()
        if isinstance(cls, type)
        for f in vars(cls).values()
        if isinstance(f, types.FunctionType)
    ]
    assert functions
    for function in functions:
        for code in codes_in(function.__code__):
            assert_lines_kept_columns_gone(code)


def test_a_table_that_would_change_a_line_stops_the_rewrite(monkeypatch):
    code = compile(SOURCE, "sample.py", "exec")
    sample = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    # A reader off by one line: the first entry's delta (0, on the `def` line) made +1, which
    # moves every instruction after it one line down.
    rewritten = lines_only(sample.co_linetable)
    assert (rewritten[0] >> 3) & 15 == 13 and rewritten[1] == 0
    monkeypatch.setattr(snapshot_lines, "lines_only", lambda table: bytes([rewritten[0], 2]) + rewritten[2:])
    with pytest.raises(LocationTableError, match=r"sample\.py:\d+ sample: lines differ"):
        without_columns(sample)


def test_tracebacks_keep_their_line_numbers_without_the_underlining(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            sys.path.insert(0, sys.argv[1])
            from macros.snapshot_lines import drop_columns

            def divide(values):
                first = values[0]
                return first / (values[1] - values[1])

            assert drop_columns() > 0
            divide([1, 2])
            """
        )
    )
    run = subprocess.run(
        [sys.executable, str(script), str(ROOT)], capture_output=True, text=True, check=False, timeout=60
    )
    assert "ZeroDivisionError" in run.stderr
    # Line 8 of the script: the return's division.
    assert f'File "{script}", line 8, in divide' in run.stderr
    assert "return first / (values[1] - values[1])" in run.stderr
    assert "^" not in run.stderr
