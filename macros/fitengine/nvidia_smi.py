"""Parse what `nvidia-smi topo -m` and `nvidia-smi nvlink --status` print, as real machines print it.

Tolerates tabs, runs of spaces, Windows line ends, a shell prompt or comment line before the
output, the legend after it, CPU/NUMA affinity and GPU NUMA ID columns, NIC rows and columns
(NIC0, mlx5_0, …) and older drivers' SOC for SYS. Anything else raises EngineError saying what
was expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import EngineError

LINK_LABELS = ("X", "SYS", "NODE", "PHB", "PXB", "PIX")
_NV = re.compile(r"^NV(\d+)$")
_GPU = re.compile(r"^GPU(\d+)$")
_DEVICE = re.compile(r"^(GPU\d+|NIC\d+|mlx\d+_\d+|[a-z]+\d*_\d+)$")
_AFFINITY_WORDS = ("CPU", "NUMA", "GPU NUMA")


@dataclass(frozen=True)
class Topology:
    """The GPU-to-GPU part of a `topo -m` matrix (NICs kept by name only)."""

    gpus: int
    labels: dict[tuple[int, int], str]  # (i, j) with i < j -> SYS, NODE, PHB, PXB, PIX or NV#
    nics: tuple[str, ...] = ()
    legend: bool = False

    def label(self, i: int, j: int) -> str:
        return self.labels[(min(i, j), max(i, j))]

    def nvlinks(self, i: int, j: int) -> int:
        """Bonded NVLinks between two GPUs (0 when they talk over PCIe)."""
        match = _NV.match(self.label(i, j))
        return int(match.group(1)) if match else 0


def _lines(text: str) -> list[str]:
    return [line.expandtabs(8).rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]


def _normal(label: str) -> str:
    return "SYS" if label == "SOC" else label


def parse_topo(text: str) -> Topology:
    """The GPU matrix of `nvidia-smi topo -m` output."""
    if not isinstance(text, str) or not text.strip():
        raise EngineError("expected the output of `nvidia-smi topo -m`; the paste is empty")
    lines = _lines(text)
    header_at = next((n for n, line in enumerate(lines) if line.split()[:1] == ["GPU0"]), None)
    if header_at is None:
        raise EngineError("expected the output of `nvidia-smi topo -m`: a matrix whose first line names GPU0, GPU1, …")
    columns: list[str] = []
    for token in lines[header_at].split():
        if not _DEVICE.match(token):
            break
        columns.append(token)
    gpu_columns = [c for c in columns if _GPU.match(c)]
    if [int(_GPU.match(c).group(1)) for c in gpu_columns] != list(range(len(gpu_columns))):
        raise EngineError("expected GPU columns numbered GPU0, GPU1, … in order")
    rows: dict[str, list[str]] = {}
    for line in lines[header_at + 1 :]:
        tokens = line.split()
        if not tokens:
            continue
        if tokens[0].rstrip(":") in ("Legend", "NIC"):
            break
        if tokens[0] not in columns:
            continue
        cells = tokens[1 : 1 + len(columns)]
        if len(cells) < len(columns):
            raise EngineError(
                f"the row of {tokens[0]} has {len(cells)} links for {len(columns)} columns: the matrix is cut short"
            )
        rows[tokens[0]] = [_normal(c) for c in cells]
    missing = [c for c in gpu_columns if c not in rows]
    if missing:
        raise EngineError(f"the matrix is cut short: no row for {', '.join(missing)}")
    labels: dict[tuple[int, int], str] = {}
    for i, row_name in enumerate(gpu_columns):
        row = rows[row_name]
        for j, col_name in enumerate(gpu_columns):
            cell = row[columns.index(col_name)]
            if cell not in LINK_LABELS and not _NV.match(cell):
                raise EngineError(
                    f"{row_name} to {col_name} reads {cell[:20]!r}; expected X, NV#, SYS, NODE, PHB, PXB or PIX"
                )
            if (i == j) != (cell == "X"):
                raise EngineError(f"{row_name} to {col_name} reads {cell!r}: only a GPU's own cell is X")
            if i < j:
                labels[(i, j)] = cell
            elif i > j and labels[(j, i)] != cell:
                raise EngineError(
                    f"{gpu_columns[j]}–{gpu_columns[i]} reads {labels[(j, i)]} one way and {cell} the other"
                )
    nics = tuple(c for c in columns if not _GPU.match(c))
    legend = any(line.strip().startswith("Legend") for line in lines)
    return Topology(gpus=len(gpu_columns), labels=labels, nics=nics, legend=legend)


@dataclass(frozen=True)
class NvLinkStatus:
    """Per GPU, the speed of each NVLink in GB/s (None for an inactive link)."""

    links: dict[int, list[float | None]] = field(default_factory=dict)


_GPU_LINE = re.compile(r"^GPU (\d+):")
_LINK_LINE = re.compile(r"^Link (\d+): (?:([\d.]+) GB/s|<inactive>|inactive)\s*$", re.IGNORECASE)


def parse_nvlink_status(text: str) -> NvLinkStatus:
    """`nvidia-smi nvlink --status`: GPU n, then one `Link k: <speed> GB/s` line per link."""
    if not isinstance(text, str) or not text.strip():
        raise EngineError("expected the output of `nvidia-smi nvlink --status`; the paste is empty")
    links: dict[int, list[float | None]] = {}
    current: int | None = None
    for line in _lines(text):
        stripped = line.strip()
        gpu = _GPU_LINE.match(stripped)
        if gpu:
            current = int(gpu.group(1))
            links.setdefault(current, [])
            continue
        link = _LINK_LINE.match(stripped)
        if link and current is not None:
            links[current].append(float(link.group(2)) if link.group(2) else None)
    if not links:
        raise EngineError(
            "expected the output of `nvidia-smi nvlink --status`: lines `GPU 0: …` followed by `Link 0: 26.562 GB/s`"
        )
    return NvLinkStatus(links)
