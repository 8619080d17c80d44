"""Code objects without their column ranges, for the configurator's Pyodide snapshot.

Since Python 3.11 a code object's location table maps each instruction to a line and to the
columns the tracebacks underline with `^^^`. The snapshot's heap holds those tables for every
module Pyodide's start and the engine imported; the columns make up most of their bytes.
`drop_columns` rewrites the functions' code as Python's own `-X no_debug_ranges` compiles it:
each instruction keeps its line, the columns are gone. Tracebacks in the browser keep their
line numbers and lose the underlining; the bytecode is untouched.

The location table's format is CPython's (Objects/locations.md, the same from 3.11 to 3.14):
entries of one byte (bit 7 set; code in bits 3-6; instructions covered, minus one, in bits
0-2) followed by the code's varints. Codes 0-9 are on the line before (one column byte),
10-12 one to three lines further (two column bytes), 13 a line delta without columns, 14 a
line delta with end line and columns, 15 no location. Every rewritten table is checked,
instruction by instruction, to give the lines the original gave: a table this module cannot
read stops the build (`LocationTableError`) instead of shipping wrong line numbers.

Runs at build time inside Pyodide (macros/pyodide_snapshot.mjs) and in CPython for the tests:
standard library only.
"""

from __future__ import annotations

import gc
import types

NO_COLUMNS = 13
LONG = 14
NO_LOCATION = 15
MAX_UNITS = 8  # instructions one entry covers at most


class LocationTableError(ValueError):
    """A rewritten table would not give the original's line numbers."""


def _varint(table: bytes, at: int) -> tuple[int, int]:
    byte = table[at]
    at += 1
    value, shift = byte & 63, 0
    while byte & 64:
        byte = table[at]
        at += 1
        shift += 6
        value |= (byte & 63) << shift
    return value, at


def _svarint(table: bytes, at: int) -> tuple[int, int]:
    value, at = _varint(table, at)
    return (-(value >> 1) if value & 1 else value >> 1), at


def _put_svarint(out: bytearray, value: int) -> None:
    encoded = ((-value) << 1) | 1 if value < 0 else value << 1
    while encoded >= 64:
        out.append(64 | (encoded & 63))
        encoded >>= 6
    out.append(encoded)


def lines_only(table: bytes) -> bytes:
    """The location table `table` with its columns dropped: same line for every instruction."""
    units_of: list[int] = []  # instructions each entry covers
    deltas: list[int | None] = []  # its line delta, None for no location
    at = 0
    while at < len(table):
        first = table[at]
        at += 1
        code, units = (first >> 3) & 15, (first & 7) + 1
        delta: int | None
        if code == NO_LOCATION:
            delta = None
        elif code == LONG:
            delta, at = _svarint(table, at)
            for _ in range(3):  # end line, start column, end column
                _, at = _varint(table, at)
        elif code == NO_COLUMNS:
            delta, at = _svarint(table, at)
        elif code >= 10:
            delta, at = code - 10, at + 2
        else:
            delta, at = 0, at + 1
        if delta == 0 and deltas and deltas[-1] is not None and units_of[-1] + units <= MAX_UNITS:
            units_of[-1] += units  # same line as the entry before: one entry
        else:
            units_of.append(units)
            deltas.append(delta)
    out = bytearray()
    for units, delta in zip(units_of, deltas, strict=True):
        if delta is None:
            out.append(0x80 | (NO_LOCATION << 3) | (units - 1))
        else:
            out.append(0x80 | (NO_COLUMNS << 3) | (units - 1))
            _put_svarint(out, delta)
    return bytes(out)


def unit_lines(code: types.CodeType) -> dict[int, int | None]:
    """The line of each instruction of `code`, by its byte offset."""
    lines: dict[int, int | None] = {}
    for start, end, line in code.co_lines():
        for at in range(start, end, 2):
            lines[at] = line
    return lines


def without_columns(code: types.CodeType, done: dict[int, types.CodeType] | None = None) -> types.CodeType:
    """`code` and the code objects among its constants, rewritten by `lines_only` and checked."""
    done = {} if done is None else done
    kept = done.get(id(code))
    if kept is not None:
        return kept
    consts = tuple(without_columns(c, done) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    new = code.replace(co_consts=consts, co_linetable=lines_only(code.co_linetable))
    if unit_lines(new) != unit_lines(code):
        raise LocationTableError(
            f"{code.co_filename}:{code.co_firstlineno} {code.co_qualname}: lines differ once rewritten"
        )
    done[id(code)] = new
    return new


def drop_columns() -> int:
    """Give every live function its code without columns; returns how many functions were given one."""
    # By the original's id: the walk only looks up code objects that all existed when it began,
    # so no two of them share an id, even once a replaced original is freed.
    done: dict[int, types.CodeType] = {}
    count = 0
    for thing in gc.get_objects():
        if isinstance(thing, types.FunctionType):
            thing.__code__ = without_columns(thing.__code__, done)
            count += 1
    done.clear()
    gc.collect()
    return count
