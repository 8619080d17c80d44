"""Parse nccl-tests' `all_reduce_perf` output: the size/count/type/time/algbw/busbw table for
out-of-place and in-place runs, wrong-result counts, `# Out of bounds values`, `# Avg bus
bandwidth` and how many GPUs ran.

Accepts the layouts of older and newer nccl-tests (with or without the `root` column, `#wrong`
or `error`), MPI rank prefixes such as `[0]` and Open MPI's `[1,0]<stdout>:`, tabs and Windows
line ends. A line shaped like a measurement row whose numbers do not read as finite decimals is
refused with its line number: a row is never skipped or guessed.

A row is also held to what all_reduce_perf computes (src/all_reduce.cu and src/common.cu of
github.com/NVIDIA/nccl-tests): the size is count x the type's bytes, algbw is the size over the
time (GB/s of 10^9 bytes, the time in microseconds), and busbw is algbw x 2(n-1)/n for the n
GPUs of the run (x (n-1)/(n+1) where the run set NCCL_ALGO=NVLS), each as printed, rounded. A
row that is not, or one of another collective (a redop of `none`, a root, a type nccl-tests
has no name for), is refused with its line: an edited or foreign output is never judged.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .errors import EngineError

_MPI_TAG = re.compile(r"\[\d{1,9},\d{1,9}\]<std(?:out|err)>:")  # mpirun --tag-output (Open MPI)
_RANK_TAG = re.compile(r"\[\d{1,9}\]")
_AVG = re.compile(r"#\s*Avg bus bandwidth\s*:\s*(\S*)")
_OUT_OF_BOUNDS = re.compile(r"#\s*Out of bounds values\s*:\s*(\S*)\s*(\S*)")
_COLLECTIVE = re.compile(r"#\s*Collective test starting\s*:\s*(\S{0,200})")
_NGPUS = re.compile(r"nGpus\s+(\d+)")
_NTHREAD = re.compile(r"nThread\s+(\d+)")
_WHOLE = re.compile(r"^[0-9]{1,20}$")  # ASCII digits (`str.isdigit` also accepts ², which int() refuses)
_DECIMAL = re.compile(r"^[0-9]{1,15}(?:\.[0-9]{0,15})?(?:[eE][+-]?[0-9]{1,3})?$")
MAX_GPUS = 100_000  # far above any run, low enough that a count never needs more than six digits
_RANK_LINE = re.compile(r"^#?\s*Rank\s+\d+\b")

# nccl-tests' type names (test_typenames in src/common.cu; char and int before NCCL 2) and their
# bytes (wordSize in src/common.h).
TYPE_BYTES = {
    "int8": 1,
    "uint8": 1,
    "char": 1,
    "int32": 4,
    "uint32": 4,
    "int": 4,
    "int64": 8,
    "uint64": 8,
    "half": 2,
    "float": 4,
    "double": 8,
    "bfloat16": 2,
}
# The reductions all_reduce_perf runs (test_opnames); other tests print `none` (all_gather_perf,
# broadcast_perf, alltoall_perf) in this column.
REDUCTIONS = ("sum", "prod", "max", "min", "avg", "mulsum")
MAX_FLOAT = 1.7976931348623157e308  # the largest finite float: a figure shown is never infinite
ALL_REDUCE_ROOT = "-1"  # all_reduce_perf prints a root of -1; reduce_perf prints the root rank
SLACK = 1e-4  # relative: printed figures are rounded once, so only hand-copied ones need any


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
    redop: str = "sum"
    line: int = 0  # in the paste, from 1
    # The algbw and busbw the printed figures allow, as (low, high) GB/s: the time and the
    # bandwidths are printed rounded. Out-of-place first, then in-place when the row has it.
    spans: tuple[tuple[tuple[float, float], tuple[float, float]], ...] = ()


@dataclass(frozen=True)
class AllReduceRun:
    rows: tuple[Row, ...]
    ranks: int | None  # GPUs in the run, when the output says or its busbw implies it
    avg_busbw: float | None
    out_of_bounds: int | None = None  # nccl-tests' own count of tests with wrong results (its footer)

    @property
    def wrong(self) -> int:
        return sum((r.wrong or 0) + (r.inplace_wrong or 0) for r in self.rows)

    @property
    def checked(self) -> bool:
        """Whether the run checked its results (#wrong reads N/A everywhere under `-c 0`)."""
        return any(r.wrong is not None or r.inplace_wrong is not None for r in self.rows)


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


def _half_unit(token: str) -> float:
    """Half the last printed place of a decimal token: how far rounding may have moved it."""
    mantissa, _, exponent = token.lower().partition("e")
    places = int(exponent or 0) - len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** max(min(places, 300), -300)


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


def _algbw_span(size: int, time: str | None, algbw: str, number: int) -> tuple[float, float]:
    """The algbw both the printed time and the printed algbw allow; refused when none is.

    Without a time (None: the run printed the CPU's time, `-C 1`), the printed algbw alone."""
    a, a_half = float(algbw), _half_unit(algbw)
    if time is None:
        return max(a - a_half, 0.0), a + a_half
    t, t_half = float(time), _half_unit(time)
    fastest = size / ((t - t_half) * 1e3) if t > t_half else math.inf
    slowest = size / ((t + t_half) * 1e3)
    low, high = max(a - a_half, slowest * (1 - SLACK)), min(a + a_half, fastest * (1 + SLACK))
    if low > high:
        raise EngineError(
            f"line {number}: algbw reads {algbw[:20]} GB/s, which {size} bytes in {time[:20]} us are not:"
            " the row was edited or is not all_reduce_perf's",
            "allreduce_algbw_mismatch",
            line=number,
            algbw=algbw[:20],
            size=size,
            time=time[:20],
        )
    return low, high


def _row(tokens: list[str], number: int, timed: bool = True) -> Row | None:
    if len(tokens) < 8 or not tokens[0].isascii() or not tokens[1].isascii():
        return None
    if not tokens[0].isdigit() or not tokens[1].isdigit():
        return None
    for token, column in ((tokens[0], "size"), (tokens[1], "count")):
        if not _WHOLE.match(token):  # more digits than any message size
            raise _BadNumber(column, token)
    rest = tokens[4:]
    root = None
    if len(rest) in (9, 5):  # newer layout with a root column
        root, rest = rest[0], rest[1:]
    if len(rest) not in (8, 4):
        return None
    out = (_number(rest[0], "time"), _number(rest[1], "algbw"), _number(rest[2], "busbw"), _wrong(rest[3], "#wrong"))
    inplace = (
        (_number(rest[4], "in-place time"), _number(rest[5], "in-place algbw"), _number(rest[6], "in-place busbw"))
        if len(rest) == 8
        else None
    )
    inplace_wrong = _wrong(rest[7], "in-place #wrong") if len(rest) == 8 else None
    size, count, dtype, redop = int(tokens[0]), int(tokens[1]), tokens[2], tokens[3]
    _same_collective(number, dtype, redop, root)
    if count * TYPE_BYTES[dtype] != size:
        raise EngineError(
            f"line {number}: {count} elements of {dtype} are {count * TYPE_BYTES[dtype]} bytes, not the size {size}:"
            " all_reduce_perf counts every element of the message (all_gather_perf and reduce_scatter_perf count one rank's)",
            "allreduce_count_mismatch",
            line=number,
            count=count,
            type=dtype,
            size=size,
        )
    spans = [(_algbw_span(size, rest[0] if timed else None, rest[1], number), _bandwidth_span(rest[2]))]
    if inplace is not None:
        spans.append((_algbw_span(size, rest[4] if timed else None, rest[5], number), _bandwidth_span(rest[6])))
    return Row(
        size,
        count,
        dtype,
        out[0],
        out[1],
        out[2],
        out[3],
        inplace[2] if inplace else None,
        inplace_wrong,
        redop=redop,
        line=number,
        spans=tuple(spans),
    )


def _bandwidth_span(token: str) -> tuple[float, float]:
    value, half = float(token), _half_unit(token)
    return max(value - half, 0.0), value + half


def _same_collective(number: int, dtype: str, redop: str, root: str | None) -> None:
    """Refuse a row of another collective or with a type nccl-tests does not name."""
    if dtype not in TYPE_BYTES:
        raise EngineError(
            f"line {number}: the type column reads {dtype[:20]!r}; all_reduce_perf names one of {', '.join(TYPE_BYTES)}",
            "allreduce_bad_type",
            line=number,
            value=dtype[:20],
        )
    if redop not in REDUCTIONS:
        raise EngineError(
            f"line {number}: the redop column reads {redop[:20]!r}; all_reduce_perf reduces with {', '.join(REDUCTIONS)}"
            " (all_gather_perf, broadcast_perf and alltoall_perf print none)",
            "allreduce_not_reduction",
            line=number,
            value=redop[:20],
        )
    if root is not None and root != ALL_REDUCE_ROOT:
        raise EngineError(
            f"line {number}: the root column reads {root[:20]!r}; all_reduce_perf has no root (-1): is this reduce_perf's output?",
            "allreduce_root",
            line=number,
            value=root[:20],
        )


def ring_factor(ranks: int) -> float:
    """busbw / algbw as all_reduce_perf computes it for `ranks` GPUs: 2(n-1)/n."""
    return 2 * (ranks - 1) / ranks


def nvls_factor(ranks: int) -> float:
    """busbw / algbw under NCCL_ALGO=NVLS in newer nccl-tests: (n-1)/(n+1)."""
    return (ranks - 1) / (ranks + 1)


FACTORS = (ring_factor, nvls_factor)


def _fits(factor: float, algbw: tuple[float, float], busbw: tuple[float, float]) -> bool:
    low = factor * algbw[0]
    high = factor * algbw[1] if factor > 0 else 0.0
    return low <= busbw[1] * (1 + SLACK) and high * (1 + SLACK) >= busbw[0]


def _consistent(rows: list[Row], ranks: int) -> Row | None:
    """The first row whose busbw is not its algbw times the bus factor of `ranks` GPUs (None if every one is)."""
    for factor in (f(ranks) for f in FACTORS):
        if all(_fits(factor, a, b) for r in rows for a, b in r.spans):
            return None
    return next(r for r in rows for a, b in r.spans if not _fits(ring_factor(ranks), a, b))


MAX_CANDIDATES = 512  # GPU counts one row may point to before it is taken to tell nothing
VOTERS = 8  # rows whose busbw/algbw is read for the GPU count (a paste may hold thousands)


def _candidates(row: Row) -> list[int] | None:
    """The GPU counts a row's busbw/algbw allows (None when its figures are too small to tell)."""
    (a_low, a_high), (b_low, b_high) = row.spans[0]
    if a_low <= 0:
        return None
    low, high = b_low / (a_high * (1 + SLACK)), b_high * (1 + SLACK) / a_low
    found: set[int] = set()
    too_wide = False
    for inverse, limit in ((lambda f: 2 / (2 - f), 2.0), (lambda f: (1 + f) / (1 - f), 1.0)):
        if low >= limit:
            continue
        first = max(math.floor(inverse(low)), 1)
        last = math.ceil(inverse(high)) if high < limit else MAX_GPUS
        if last - first > MAX_CANDIDATES:  # a ratio at the factor's limit tells nothing of that form
            too_wide = True
            continue
        found.update(range(first, last + 1))
    if not found and too_wide:
        return None
    return [n for n in sorted(found) if any(all(_fits(f(n), a, b) for a, b in row.spans) for f in FACTORS)]


def _ranks(rows: list[Row], listed: int, per_process: int | None) -> int | None:
    """The run's GPUs, each row held to them: those its `# Rank` lines list, else the one count
    the most precise rows' busbw/algbw points to (a multiple of nGpus x nThread, which counts one
    process's GPUs), else nGpus x nThread (or None) when the figures allow several."""
    if listed:
        bad = _consistent(rows, listed)
        if bad is not None:
            raise _mismatch(bad, listed, listed=True)
        return listed
    votes: dict[int, int] = {}
    # The rows with the largest algbw tell the GPU count best (their rounding matters least);
    # every row is then held to the count they agree on.
    precise = sorted(rows, key=lambda r: r.spans[0][0][0], reverse=True)[:VOTERS]
    told = [(row, found) for row in precise if (found := _candidates(row)) is not None]
    for _, found in told:
        for n in found:
            if per_process is None or n % per_process == 0:
                votes[n] = votes.get(n, 0) + 1
    if not told:
        return per_process
    if not votes:
        row = next((r for r, found in told if not found), told[0][0])
        raise EngineError(
            f"line {row.line}: busbw {row.busbw:g} GB/s is not algbw {row.algbw:g} GB/s x 2(n-1)/n for any GPU count"
            " the header allows: the row was edited or is not all_reduce_perf's",
            "allreduce_busbw_any",
            line=row.line,
        )
    most = max(votes.values())
    tied = sorted(n for n, count in votes.items() if count == most)
    fitting = [n for n in tied if _consistent(rows, n) is None]
    if not fitting:
        raise _mismatch(_consistent(rows, tied[0]) or rows[0], tied[0], listed=False)
    if len(fitting) > 1:  # the figures allow several counts: none is claimed
        return per_process if per_process in fitting else None
    return fitting[0]


def _mismatch(row: Row, ranks: int, listed: bool) -> EngineError:
    """A row whose busbw is not algbw x 2(n-1)/n for the run's listed ranks, or for the count the
    other rows show."""
    expected = round(min(row.algbw * ring_factor(ranks), MAX_FLOAT), 2)
    said = f"line {row.line}: busbw {row.busbw:g} GB/s is not algbw {row.algbw:g} GB/s x 2(n-1)/n"
    edited = f"({expected:g} GB/s): the row was edited or is not all_reduce_perf's"
    if listed:
        return EngineError(
            f"{said} for the run's {ranks} GPUs {edited}",
            "allreduce_busbw_mismatch",
            line=row.line,
            ranks=ranks,
            expected=expected,
        )
    return EngineError(
        f"{said} for the {ranks} GPUs the other rows show {edited}",
        "allreduce_busbw_rows",
        line=row.line,
        ranks=ranks,
        expected=expected,
    )


def _other_test(line: str) -> None:
    match = _COLLECTIVE.search(line)
    if match is None:
        return
    program = match.group(1).rsplit("/", 1)[-1]
    if not program.startswith("all_reduce_perf"):
        raise EngineError(
            f"the output is of {program[:40]!r}, not all_reduce_perf: paste an all_reduce_perf run",
            "allreduce_other_test",
            test=program[:40],
        )


def _out_of_bounds(match: re.Match[str], number: int) -> int:
    count, word = match.group(1), match.group(2)
    if not _WHOLE.match(count) or len(count) > 9 or word not in ("OK", "FAILED", ""):
        raise EngineError(
            f"line {number}: the out-of-bounds count reads {count[:20]!r}, not a count followed by OK or FAILED",
            "allreduce_bad_out_of_bounds",
            line=number,
            value=count[:20],
        )
    return max(int(count), 1 if word == "FAILED" else 0)


def parse_allreduce(text: str) -> AllReduceRun:
    """The measurement rows and totals of an `all_reduce_perf` run."""
    if not isinstance(text, str) or not text.strip():
        raise EngineError("expected the output of nccl-tests' all_reduce_perf; the paste is empty", "allreduce_empty")
    rows: list[Row] = []
    ranks = 0
    ngpus = nthread = None
    avg = None
    out_of_bounds = None
    cputime = False  # `-C 1` prints the CPU's time (its header says cputime); algbw stays the GPU's
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
            if m := _OUT_OF_BOUNDS.search(line):
                out_of_bounds = _out_of_bounds(m, number)
            _other_test(line)
            cputime = cputime or " cputime " in f" {line} "
            ngpus = _count(_NGPUS.search(line), "nGpus") or ngpus
            nthread = _count(_NTHREAD.search(line), "nThread") or nthread
            if _RANK_LINE.match(line):
                ranks += 1
            continue
        if _RANK_LINE.match(line):
            ranks += 1
            continue
        try:
            row = _row(line.split(), number, timed=not cputime)
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
    per_process = (ngpus or 0) * (nthread or 1) or None
    gpus = _ranks(rows, ranks, per_process)
    return AllReduceRun(rows=tuple(rows), ranks=gpus, avg_busbw=avg, out_of_bounds=out_of_bounds)
