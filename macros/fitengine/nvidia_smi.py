"""Parse what `nvidia-smi topo -m` and `nvidia-smi nvlink --status` print, as real machines print it.

Tolerates tabs, runs of spaces, Windows line ends, a shell prompt or comment line before the
output, the legend after it, CPU/NUMA affinity and GPU NUMA ID columns, NIC rows and columns
(NIC0, mlx5_0, …), older drivers' SOC for SYS, and the `[1,0]<stdout>:` tags `mpirun
--tag-output` puts before each line. Anything else raises EngineError saying what was expected.

Numbers are read with bounded patterns (no GPU index beyond six digits, no link speed that is
not a plain decimal), so no input reaches `int` or `float` with something they cannot hold, and
the matrix is read in time proportional to its size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import EngineError

LINK_LABELS = ("X", "SYS", "NODE", "PHB", "PXB", "PIX")
MAX_COLUMNS = 4096  # devices in one matrix: far above any node, low enough to bound the work
_NV = re.compile(r"^NV(\d{1,6})$")
_GPU = re.compile(r"^GPU(\d{1,6})$")
_DEVICE = re.compile(r"^(GPU\d{1,6}|NIC\d{1,6}|mlx\d{1,6}_\d{1,6}|[a-z]{1,16}\d{0,6}_\d{1,6})$")
# `mpirun --tag-output` (Open MPI) writes `[job,rank]<stdout>:` before each line; MPICH `[rank]`.
MPI_TAG = re.compile(r"^\s*\[\d{1,9},\d{1,9}\]<std(?:out|err)>:")
_AFFINITY_WORDS = ("CPU", "NUMA", "GPU NUMA")


@dataclass(frozen=True)
class Topology:
    """The GPU-to-GPU part of a `topo -m` matrix (NICs kept by name only)."""

    gpus: int
    matrix: tuple[tuple[str, ...], ...]  # [i][j]: X on the diagonal, else SYS, NODE, PHB, PXB, PIX or NV#
    nics: tuple[str, ...] = ()
    legend: bool = False

    def label(self, i: int, j: int) -> str:
        return self.matrix[i][j]

    def nvlinks(self, i: int, j: int) -> int:
        """Bonded NVLinks between two GPUs (0 when they talk over PCIe)."""
        match = _NV.match(self.label(i, j))
        return int(match.group(1)) if match else 0


def _lines(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [MPI_TAG.sub("", line).expandtabs(8).rstrip() for line in lines]


def _normal(label: str) -> str:
    return "SYS" if label == "SOC" else label


def parse_topo(text: str) -> Topology:
    """The GPU matrix of `nvidia-smi topo -m` output."""
    if not isinstance(text, str) or not text.strip():
        raise EngineError("expected the output of `nvidia-smi topo -m`; the paste is empty", "topo_empty")
    lines = _lines(text)
    header_at = next((n for n, line in enumerate(lines) if line.split()[:1] == ["GPU0"]), None)
    if header_at is None:
        raise EngineError(
            "expected the output of `nvidia-smi topo -m`: a matrix whose first line names GPU0, GPU1, …",
            "topo_no_header",
        )
    columns: list[str] = []
    for token in lines[header_at].split():
        if not _DEVICE.match(token):
            break
        columns.append(token)
    if len(columns) > MAX_COLUMNS:
        raise EngineError(
            f"the matrix names {len(columns)} devices; this checker reads at most {MAX_COLUMNS}",
            "topo_too_wide",
            count=len(columns),
            maximum=MAX_COLUMNS,
        )
    position = {name: n for n, name in enumerate(columns)}
    if len(position) < len(columns):
        raise EngineError("the matrix's first line names a device twice", "topo_device_twice")
    gpu_columns = [c for c in columns if _GPU.match(c)]
    if [int(c[3:]) for c in gpu_columns] != list(range(len(gpu_columns))):
        raise EngineError("expected GPU columns numbered GPU0, GPU1, … in order", "topo_gpu_order")
    rows: dict[str, list[str]] = {}
    for number, line in enumerate(lines[header_at + 1 :], start=header_at + 2):
        tokens = line.split()
        if not tokens:
            continue
        if tokens[0].rstrip(":") in ("Legend", "NIC"):
            break
        if tokens[0] not in position:
            continue
        cells = tokens[1 : 1 + len(columns)]
        if len(cells) < len(columns):
            raise EngineError(
                f"the row of {tokens[0]} has {len(cells)} links for {len(columns)} columns: the matrix is cut short",
                "topo_row_short",
                device=tokens[0][:20],
                cells=len(cells),
                columns=len(columns),
            )
        if tokens[0] in rows:  # two pastes run together, or an edit: which row is the machine's?
            raise EngineError(
                f"line {number}: a second row for {tokens[0]}; paste one matrix",
                "topo_row_twice",
                line=number,
                device=tokens[0],
            )
        rows[tokens[0]] = cells
    missing = [c for c in gpu_columns if c not in rows]
    if missing:
        shown = ", ".join(missing[:6]) + (f" (+{len(missing) - 6})" if len(missing) > 6 else "")
        raise EngineError(f"the matrix is cut short: no row for {shown}", "topo_row_missing", devices=shown)
    return _checked(gpu_columns, [position[c] for c in gpu_columns], [rows[c] for c in gpu_columns], lines, columns)


def _checked(names: list[str], at: list[int], rows: list[list[str]], lines: list[str], columns: list[str]) -> Topology:
    """The GPU matrix, checked with whole-row operations: linear in the number of cells."""
    n = len(names)
    contiguous = at == list(range(n))  # no NIC column between GPU columns: slice each row whole
    matrix = [row[:n] for row in rows] if contiguous else [[row[k] for k in at] for row in rows]
    distinct = set().union(*matrix)
    if "SOC" in distinct:
        matrix = [[_normal(cell) for cell in row] for row in matrix]
        distinct = set().union(*matrix)
    bad = {cell for cell in distinct if cell not in LINK_LABELS and not _NV.match(cell)}
    for i, row in enumerate(matrix):
        if bad and not bad.isdisjoint(row):
            j = next(j for j, cell in enumerate(row) if cell in bad)
            raise EngineError(
                f"{names[i]} to {names[j]} reads {row[j][:20]!r}; expected X, NV#, SYS, NODE, PHB, PXB or PIX",
                "topo_bad_label",
                a=names[i],
                b=names[j],
                label=row[j][:20],
            )
        if row[i] != "X" or row.count("X") != 1:
            j = next(j for j, cell in enumerate(row) if (i == j) != (cell == "X"))
            raise EngineError(
                f"{names[i]} to {names[j]} reads {row[j]!r}: only a GPU's own cell is X",
                "topo_x_off_diagonal",
                a=names[i],
                b=names[j],
                label=row[j],
            )
    frozen = tuple(tuple(row) for row in matrix)
    for i, column in enumerate(zip(*frozen, strict=True)):
        if column != frozen[i]:
            j = next(j for j in range(n) if column[j] != frozen[i][j])
            first, second = sorted((i, j))
            raise EngineError(
                f"{names[first]}–{names[second]} reads {frozen[first][second]} one way and {frozen[second][first]} the other",
                "topo_asymmetric",
                a=names[first],
                b=names[second],
                one=frozen[first][second],
                other=frozen[second][first],
            )
    nics = tuple(c for c in columns if not _GPU.match(c))
    legend = any(line.strip().startswith("Legend") for line in lines)
    return Topology(gpus=n, matrix=frozen, nics=nics, legend=legend)


@dataclass(frozen=True)
class NvLinkStatus:
    """Per GPU, the speed of each NVLink in GB/s (None for an inactive link)."""

    links: dict[int, list[float | None]] = field(default_factory=dict)


_GPU_LINE = re.compile(r"^GPU (\d+):")
_LINK_START = re.compile(r"^Link (\d+):", re.IGNORECASE)
_LINK_LINE = re.compile(r"^Link (\d{1,4}): (?:(\d{1,6}(?:\.\d{1,6})?) GB/s|<inactive>|inactive)\s*$", re.IGNORECASE)
MAX_GPUS = 4096  # GPUs in one `nvlink --status` output: far above any node


def parse_nvlink_status(text: str) -> NvLinkStatus:
    """`nvidia-smi nvlink --status`: GPU n, then one `Link k: <speed> GB/s` line per link."""
    if not isinstance(text, str) or not text.strip():
        raise EngineError("expected the output of `nvidia-smi nvlink --status`; the paste is empty", "nvlink_empty")
    links: dict[int, list[float | None]] = {}
    numbered: set[str] = set()  # the link numbers of the current GPU
    current: int | None = None
    for number, line in enumerate(_lines(text), start=1):
        stripped = line.strip()
        gpu = _GPU_LINE.match(stripped)
        if gpu:
            digits = gpu.group(1)
            if len(digits) > 6 or int(digits) >= MAX_GPUS:
                shown = digits if len(digits) <= 12 else digits[:12] + "…"
                raise EngineError(
                    f"line {number}: GPU {shown} is not a GPU index (at most {MAX_GPUS - 1})",
                    "nvlink_gpu_index",
                    line=number,
                    gpu=shown,
                    maximum=MAX_GPUS - 1,
                )
            current = int(digits)
            if current in links:
                raise EngineError(
                    f"line {number}: GPU {current} is listed twice", "nvlink_gpu_twice", line=number, gpu=current
                )
            links[current] = []
            numbered = set()
            continue
        if current is None or not _LINK_START.match(stripped):
            continue
        link = _LINK_LINE.match(stripped)
        if link is None:
            raise EngineError(
                f"line {number} reads {stripped[:40]!r}; expected `Link <n>: <speed> GB/s` or `Link <n>: <inactive>`",
                "nvlink_bad_line",
                line=number,
                text=stripped[:40],
            )
        if link.group(1).lstrip("0") in numbered:
            raise EngineError(
                f"line {number}: GPU {current} lists Link {link.group(1)} twice",
                "nvlink_link_twice",
                line=number,
                gpu=current,
                link=link.group(1),
            )
        numbered.add(link.group(1).lstrip("0"))
        links[current].append(float(link.group(2)) if link.group(2) else None)
    if not links:
        raise EngineError(
            "expected the output of `nvidia-smi nvlink --status`: lines `GPU 0: …` followed by `Link 0: 26.562 GB/s`",
            "nvlink_no_links",
        )
    return NvLinkStatus(links)
