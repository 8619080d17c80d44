"""Parse nccl-tests' `all_reduce_perf` output: the size/count/type/time/algbw/busbw table for
out-of-place and in-place runs, wrong-result counts, `# Avg bus bandwidth` and how many GPUs ran.

Accepts the layouts of older and newer nccl-tests (with or without the `root` column, `#wrong`
or `error`), MPI rank prefixes such as `[0]` and Open MPI's `[1,0]<stdout>:`, tabs and Windows
line ends. A line shaped like a measurement row whose numbers do not read as finite decimals is
refused with its line number: a row is never skipped or guessed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .errors import EngineError

_MPI_TAG = re.compile(r"\[\d{1,9},\d{1,9}\]<std(?:out|err)>:")  # mpirun --tag-output (Open MPI)
_RANK_TAG = re.compile(r"\[\d{1,9}\]")
_AVG = re.compile(r"#\s*Avg bus bandwidth\s*:\s*(\S*)")
_NGPUS = re.compile(r"nGpus\s+(\d+)")
_NTHREAD = re.compile(r"nThread\s+(\d+)")
_WHOLE = re.compile(r"^[0-9]{1,20}$")  # ASCII digits (`str.isdigit` also accepts ², which int() refuses)
_DECIMAL = re.compile(r"^[0-9]{1,15}(?:\.[0-9]{0,15})?(?:[eE][+-]?[0-9]{1,3})?$")
MAX_GPUS = 100_000  # far above any run, low enough that a count never needs more than six digits
_RANK_LINE = re.compile(r"^#?\s*Rank\s+\d+\b")


@dataclass(frozen=True)
class Row:
    size: int  # bytes
    count: int
    dtype: str
    time_us: float  # out-of-place
    algbw: float
    busbw: float
    wrong: int | None  # None when the run did not validate (N/A)
    inplace_busbw: float | None
    inplace_wrong: int | None


@dataclass(frozen=True)
class AllReduceRun:
    rows: tuple[Row, ...]
    ranks: int | None  # GPUs in the run, when the output says
    avg_busbw: float | None

    @property
    def wrong(self) -> int:
        return sum((r.wrong or 0) + (r.inplace_wrong or 0) for r in self.rows)


class _BadNumber(Exception):
    def __init__(self, column: str, token: str) -> None:
        super().__init__(column)
        self.column = column
        self.token = token


def _number(token: str, column: str) -> float:
    """A non-negative finite decimal as nccl-tests prints it (no sign, NaN, infinity or 1.2.3)."""
    if not _DECIMAL.match(token):
        raise _BadNumber(column, token)
    value = float(token)
    if not math.isfinite(value):  # 1e999 matches the pattern but is no number
        raise _BadNumber(column, token)
    return value


def _wrong(token: str, column: str) -> int | None:
    if token.upper() == "N/A":
        return None
    value = _number(token, column)  # old versions print an error magnitude such as 0e+00
    return 0 if value == 0 else max(min(int(value), 10**9), 1)


def _count(match: re.Match[str] | None, what: str) -> int | None:
    if match is None:
        return None
    digits = match.group(1)
    if len(digits) > 6 or int(digits) > MAX_GPUS:
        shown = digits[:12] + ("…" if len(digits) > 12 else "")
        raise EngineError(
            f"the header's {what} reads {shown}: not a GPU count", "allreduce_gpu_count", what=what, value=shown
        )
    return int(digits)


def _row(tokens: list[str]) -> Row | None:
    if len(tokens) < 8 or not tokens[0].isascii() or not tokens[1].isascii():
        return None
    if not tokens[0].isdigit() or not tokens[1].isdigit():
        return None
    for token, column in ((tokens[0], "size"), (tokens[1], "count")):
        if not _WHOLE.match(token):  # more digits than any message size
            raise _BadNumber(column, token)
    rest = tokens[4:]
    if len(rest) in (9, 5):  # newer layout with a root column
        rest = rest[1:]
    if len(rest) not in (8, 4):
        return None
    out = (_number(rest[0], "time"), _number(rest[1], "algbw"), _number(rest[2], "busbw"), _wrong(rest[3], "#wrong"))
    inplace = (
        (_number(rest[6], "in-place busbw"), _wrong(rest[7], "in-place #wrong")) if len(rest) == 8 else (None, None)
    )
    return Row(int(tokens[0]), int(tokens[1]), tokens[2], out[0], out[1], out[2], out[3], inplace[0], inplace[1])


def parse_allreduce(text: str) -> AllReduceRun:
    """The measurement rows and totals of an `all_reduce_perf` run."""
    if not isinstance(text, str) or not text.strip():
        raise EngineError("expected the output of nccl-tests' all_reduce_perf; the paste is empty", "allreduce_empty")
    rows: list[Row] = []
    ranks = 0
    ngpus = nthread = None
    avg = None
    for number, raw in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1):
        line = _RANK_TAG.sub(" ", _MPI_TAG.sub(" ", raw.expandtabs(8))).strip()
        if not line:
            continue
        if line.startswith("#"):
            if m := _AVG.search(line):
                try:
                    avg = _number(m.group(1), "average bus bandwidth")
                except _BadNumber as bad:
                    raise EngineError(
                        f"line {number}: the average bus bandwidth reads {bad.token[:20]!r}, not a number",
                        "allreduce_bad_average",
                        line=number,
                        value=bad.token[:20],
                    ) from None
            ngpus = _count(_NGPUS.search(line), "nGpus") or ngpus
            nthread = _count(_NTHREAD.search(line), "nThread") or nthread
            if _RANK_LINE.match(line):
                ranks += 1
            continue
        if _RANK_LINE.match(line):
            ranks += 1
            continue
        try:
            row = _row(line.split())
        except _BadNumber as bad:
            raise EngineError(
                f"line {number}: the {bad.column} column reads {bad.token[:20]!r}; expected a number such as 12.34",
                "allreduce_bad_number",
                line=number,
                column=bad.column,
                value=bad.token[:20],
            ) from None
        if row is not None:
            rows.append(row)
    if not rows:
        raise EngineError(
            "expected the output of nccl-tests' all_reduce_perf: rows of size, count, type, redop, time, algbw, busbw and #wrong",
            "allreduce_no_rows",
        )
    gpus = ranks or ((ngpus or 0) * (nthread or 1)) or None
    return AllReduceRun(rows=tuple(rows), ranks=gpus, avg_busbw=avg)
