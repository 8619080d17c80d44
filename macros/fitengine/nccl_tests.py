"""Parse nccl-tests' `all_reduce_perf` output: the size/count/type/time/algbw/busbw table for
out-of-place and in-place runs, wrong-result counts, `# Avg bus bandwidth` and how many GPUs ran.

Accepts the layouts of older and newer nccl-tests (with or without the `root` column, `#wrong`
or `error`), MPI rank prefixes such as `[0]`, tabs and Windows line ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import EngineError

_RANK_TAG = re.compile(r"\[\d+\]")
_AVG = re.compile(r"#\s*Avg bus bandwidth\s*:\s*([\d.eE+-]+)")
_NGPUS = re.compile(r"nGpus\s+(\d+)")
_NTHREAD = re.compile(r"nThread\s+(\d+)")
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


def _number(token: str) -> float:
    return float(token)


def _wrong(token: str) -> int | None:
    if token.upper() == "N/A":
        return None
    value = float(token)  # old versions print an error magnitude such as 0e+00
    return 0 if value == 0 else max(int(value), 1)


def _row(tokens: list[str]) -> Row | None:
    if len(tokens) < 8 or not tokens[0].isdigit() or not tokens[1].isdigit():
        return None
    rest = tokens[4:]
    if len(rest) in (9, 5):  # newer layout with a root column
        rest = rest[1:]
    if len(rest) not in (8, 4):
        return None
    try:
        out = (_number(rest[0]), _number(rest[1]), _number(rest[2]), _wrong(rest[3]))
        inplace = (_number(rest[6]), _wrong(rest[7])) if len(rest) == 8 else (None, None)
    except ValueError:
        return None
    return Row(int(tokens[0]), int(tokens[1]), tokens[2], out[0], out[1], out[2], out[3], inplace[0], inplace[1])


def parse_allreduce(text: str) -> AllReduceRun:
    """The measurement rows and totals of an `all_reduce_perf` run."""
    if not isinstance(text, str) or not text.strip():
        raise EngineError("expected the output of nccl-tests' all_reduce_perf; the paste is empty")
    rows: list[Row] = []
    ranks = 0
    ngpus = nthread = None
    avg = None
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = _RANK_TAG.sub(" ", raw.expandtabs(8)).strip()
        if not line:
            continue
        if line.startswith("#"):
            if m := _AVG.search(line):
                avg = float(m.group(1))
            if m := _NGPUS.search(line):
                ngpus = int(m.group(1))
            if m := _NTHREAD.search(line):
                nthread = int(m.group(1))
            if _RANK_LINE.match(line):
                ranks += 1
            continue
        if _RANK_LINE.match(line):
            ranks += 1
            continue
        row = _row(line.split())
        if row is not None:
            rows.append(row)
    if not rows:
        raise EngineError(
            "expected the output of nccl-tests' all_reduce_perf: rows of size, count, type, redop, time, algbw, busbw and #wrong"
        )
    gpus = ranks or ((ngpus or 0) * (nthread or 1)) or None
    return AllReduceRun(rows=tuple(rows), ranks=gpus, avg_busbw=avg)
