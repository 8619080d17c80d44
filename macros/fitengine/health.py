"""Judge a node's measured topology and all-reduce against what the catalog says it is.

Each check returns a verdict (ok, warning or fault), the reasons, and the GPU pairs or message
sizes involved, so a reader can see at a glance whether the machine is the one they paid for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .catalog import Catalog, Node
from .nccl_tests import AllReduceRun
from .nvidia_smi import NvLinkStatus, Topology
from .reasons import Reason
from .speed import bus_bandwidth
from .topology import group_link
from .units import GB

SEVERITY = {"ok": 0, "warning": 1, "fault": 2}
HEALTHY_SHARE = 0.5  # of the link's per-direction rate, reached by large messages
LOW_SHARE = 0.25  # below this, something is wrong rather than merely slow
SHOWN_SHARE = 1000  # a share above this is shown as this (a pasted 1e300 GB/s never overflows a sentence)
# Beyond the link's per-direction rate by more than this, no measurement gets there: NVSwitch's
# in-fabric reduction (NVLink SHARP) lifts 8 x H100's busbw to about 480 GB/s of the 450 (1.07;
# "a 30% improvement" over the ring's 370, the NCCL maintainer in github.com/NVIDIA/nccl/issues/1442
# and nccl-tests/issues/212), and a link reads at most its signalling rate (26.562 GB/s for
# NVLink 4's 25 in `nvidia-smi nvlink --status`, 1.06).
ABOVE_LINK = 1.15
SLOW_LINK = 0.9  # of the card's rated per-link speed: a link reading less is slow or down-trained
LARGE_MESSAGE = 64 * 2**20  # bytes: where nccl-tests' bus bandwidth has flattened out


@dataclass(frozen=True)
class Finding:
    severity: str
    reason: Reason
    pairs: tuple[tuple[int, int], ...] = ()
    sizes: tuple[int, ...] = ()


@dataclass(frozen=True)
class Health:
    verdict: str
    findings: tuple[Finding, ...]
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "reasons": [
                {
                    "severity": f.severity,
                    **f.reason.to_dict(),
                    "pairs": [list(p) for p in f.pairs],
                    "sizes": list(f.sizes),
                }
                for f in self.findings
            ],
            **self.details,
        }


def _health(findings: list[Finding], details: dict[str, Any]) -> Health:
    verdict = max((f.severity for f in findings), key=SEVERITY.__getitem__, default="ok")
    return Health(verdict, tuple(findings), details)


def _pairs_text(pairs: list[tuple[int, int]]) -> str:
    shown = ", ".join(f"GPU{i}–GPU{j}" for i, j in pairs[:6])
    return shown + (f" (+{len(pairs) - 6})" if len(pairs) > 6 else "")


def expected_nvlinks(catalog: Catalog, node: Node) -> int:
    """NV# every NVLink pair of the node should show (0 for nodes without NVLink between all pairs)."""
    gpu = catalog.gpus[node.gpu]
    topology = catalog.topologies[node.topology]
    if gpu.nvlink is None or topology.nvlink != "sxm":
        return 0
    links = _links(catalog, node)
    return links if node.topology == "nvswitch" else links // max(node.count - 1, 1)


def _card_links(catalog: Catalog, node: Node) -> int:
    """NVLinks one card of the node has (0 without NVLink)."""
    return _links(catalog, node) if catalog.gpus[node.gpu].nvlink is not None else 0


def _links(catalog: Catalog, node: Node) -> int:
    gpu = catalog.gpus[node.gpu]
    if gpu.nvlink is None:  # callers ask only of NVLink cards
        raise ValueError(f"{node.id}: {node.gpu} has no NVLink, so no NVLinks to count")
    generation_rate = catalog.links[f"nvlink-{gpu.nvlink.generation}"].per_direction_gbps
    return round(gpu.nvlink.per_direction_gbps / generation_rate)


PCIE_LABEL = "PCIe"  # what a pair on PCIe within a socket should show: any of PIX, PXB, PHB, NODE


def link_kind(label: str) -> str:
    """The class of a `topo -m` label: self (X), nvlink (NV#), sys (across sockets) or pcie."""
    if label == "X":
        return "self"
    if label.startswith("NV"):
        return "nvlink"
    return "sys" if label == "SYS" else "pcie"


def expected_label(catalog: Catalog, node: Node, i: int, j: int) -> str:
    """What `topo -m` should show between cards i and j of the node: X, NV#, SYS or PCIe (PCIE_LABEL).

    SXM boards join every pair over NVLink; bridged cards join their group; the other pairs
    talk over PCIe, across the CPU sockets (SYS) when the cards sit on different sockets.
    """
    if i == j:
        return "X"
    topology = catalog.topologies[node.topology]
    if topology.nvlink == "sxm":
        return f"NV{expected_nvlinks(catalog, node)}"
    if topology.nvlink == "bridge" and i // node.nvlink_group == j // node.nvlink_group:
        return f"NV{_card_links(catalog, node)}"
    per_socket = node.count // node.sockets
    return "SYS" if i // per_socket != j // per_socket else PCIE_LABEL


def differs(label: str, expected: str) -> bool:
    """Whether a shown label is not what was expected: another class, or another count of NVLinks."""
    kind = link_kind(expected)
    return link_kind(label) != kind or (kind == "nvlink" and label != expected)


def expected_matrix(catalog: Catalog, node: Node) -> list[list[str]]:
    """The `topo -m` matrix the node should show, pair by pair (expected_label)."""
    return [[expected_label(catalog, node, i, j) for j in range(node.count)] for i in range(node.count)]


def _other_node(catalog: Catalog, node: Node, topo: Topology, pairs: list[tuple[int, int]]) -> Finding | None:
    """When no pair shows the node's class of link, ask whether it is the node the reader rents,
    naming the nodes of the catalog whose matrix this one is."""
    if not pairs or any(
        link_kind(topo.label(i, j)) == link_kind(expected_label(catalog, node, i, j)) for i, j in pairs
    ):
        return None
    matches = [
        n.id
        for n in catalog.nodes
        if n.count == topo.gpus
        and n.id != node.id
        and not any(differs(topo.label(i, j), expected_label(catalog, n, i, j)) for i, j in pairs)
    ]
    if not matches:
        return Finding("warning", Reason("topo_other_node_unknown", {"node": node.id}))
    shown = ", ".join(matches[:4]) + (f" (+{len(matches) - 4})" if len(matches) > 4 else "")
    return Finding("warning", Reason("topo_other_node", {"node": node.id, "matches": shown}))


def check_topology(catalog: Catalog, node: Node, topo: Topology) -> Health:
    """Does every pair of GPUs talk over the link the node promises?"""
    findings: list[Finding] = []
    details = {"node": node.id, "gpus": topo.gpus, "expected_nv": expected_nvlinks(catalog, node)}
    if topo.gpus != node.count:
        findings.append(
            Finding("fault", Reason("topo_count", {"found": topo.gpus, "node": node.id, "count": node.count}))
        )
        return _health(findings, details)
    topology = catalog.topologies[node.topology]
    per_socket = node.count // node.sockets
    pairs = [(i, j) for i in range(topo.gpus) for j in range(i + 1, topo.gpus)]
    other = _other_node(catalog, node, topo, pairs)
    if other is not None:
        findings.append(other)  # asked first: the rest reads differently once the node is right
    most = expected_nvlinks(catalog, node) if topology.nvlink == "sxm" else _card_links(catalog, node)
    # (Any NVLink on a node without it is reported below, as another machine's output.)
    too_many = [p for p in pairs if topo.nvlinks(*p) > most] if topology.nvlink != "none" else []
    if too_many:
        found = ", ".join(sorted({topo.label(*p) for p in too_many})[:6])
        params = {"pairs": _pairs_text(too_many), "found": found, "node": node.id, "want": f"NV{most}"}
        findings.append(Finding("fault", Reason("topo_too_many_links", params), tuple(too_many)))
    if topology.nvlink == "sxm":
        want = expected_nvlinks(catalog, node)
        missing = [p for p in pairs if topo.nvlinks(*p) == 0]
        fewer = [p for p in pairs if 0 < topo.nvlinks(*p) < want]
        if missing:
            findings.append(
                Finding(
                    "fault",
                    Reason("topo_no_nvlink", {"pairs": _pairs_text(missing), "want": f"NV{want}"}),
                    tuple(missing),
                )
            )
        if fewer:
            found = sorted({topo.label(*p) for p in fewer})
            params = {"pairs": _pairs_text(fewer), "found": ", ".join(found), "want": f"NV{want}"}
            findings.append(Finding("warning", Reason("topo_fewer_links", params), tuple(fewer)))
        if not missing and not fewer and not too_many:
            findings.append(Finding("ok", Reason("topo_all_nvlink", {"want": f"NV{want}", "count": node.count})))
    elif topology.nvlink == "bridge":
        group = node.nvlink_group
        bridged = [p for p in pairs if p[0] // group == p[1] // group]
        unbridged = [p for p in bridged if topo.nvlinks(*p) == 0]
        if unbridged:
            findings.append(
                Finding("fault", Reason("topo_bridge_missing", {"pairs": _pairs_text(unbridged)}), tuple(unbridged))
            )
        elif not too_many:
            findings.append(Finding("ok", Reason("topo_bridges_ok", {"pairs": _pairs_text(bridged)}), tuple(bridged)))
    same_socket_sys = [p for p in pairs if topo.label(*p) == "SYS" and p[0] // per_socket == p[1] // per_socket]
    if same_socket_sys:
        findings.append(
            Finding(
                "fault", Reason("topo_sys_in_group", {"pairs": _pairs_text(same_socket_sys)}), tuple(same_socket_sys)
            )
        )
    cross = [p for p in pairs if topo.label(*p) == "SYS" and p[0] // per_socket != p[1] // per_socket]
    # Pairs the node puts on different sockets that show a path within one: another machine's wiring.
    one_socket = [
        p for p in pairs if expected_label(catalog, node, *p) == "SYS" and link_kind(topo.label(*p)) == "pcie"
    ]
    if one_socket:
        found = ", ".join(sorted({topo.label(*p) for p in one_socket})[:6])
        params = {"pairs": _pairs_text(one_socket), "found": found, "node": node.id, "sockets": node.sockets}
        findings.append(Finding("warning", Reason("topo_one_socket", params), tuple(one_socket)))
    elif cross and topology.nvlink != "sxm":
        findings.append(Finding("ok", Reason("topo_sys_across_sockets", {"per_socket": per_socket}), tuple(cross)))
    if topology.nvlink == "none":
        linked = [p for p in pairs if topo.nvlinks(*p)]
        if linked:
            params = {"pairs": _pairs_text(linked), "node": node.id}
            findings.append(Finding("warning", Reason("topo_unexpected_nvlink", params), tuple(linked)))
        elif not same_socket_sys and not one_socket:
            findings.append(Finding("ok", Reason("topo_pcie_ok", {"count": node.count})))
    return _health(findings, details)


def check_nvlink(catalog: Catalog, node: Node, status: NvLinkStatus) -> Health:
    """Is every NVLink of every GPU up, at the speed the catalog rates its generation's links?"""
    findings: list[Finding] = []
    gpu = catalog.gpus[node.gpu]
    details: dict[str, Any] = {"node": node.id, "gpus": len(status.links)}
    if len(status.links) != node.count:
        params = {"found": len(status.links), "node": node.id, "count": node.count}
        findings.append(Finding("fault", Reason("nv_count", params)))
        return _health(findings, details)
    if gpu.nvlink is None:
        findings.append(
            Finding("ok" if not any(status.links.values()) else "warning", Reason("nv_none", {"gpu": gpu.name}))
        )
        return _health(findings, details)
    total = _links(catalog, node)
    want = total if gpu.nvlink.form == "sxm" else 0
    link = catalog.links[f"nvlink-{gpu.nvlink.generation}"]
    most = max(total, link.max_links)
    over = [(index, len(links)) for index, links in sorted(status.links.items()) if len(links) > most]
    if over:
        text = ", ".join(f"GPU{i}: {n}" for i, n in over[:6]) + (f" (+{len(over) - 6})" if len(over) > 6 else "")
        findings.append(Finding("fault", Reason("nv_too_many", {"gpus": text, "most": most, "gpu": gpu.name})))
        return _health(findings, details)
    rated = link.per_direction_gbps  # per link, per direction (catalog/interconnects.yaml `per_link`)
    speeds = [s for links in status.links.values() for s in links if s]
    top = max(speeds, default=0.0)
    if top > ABOVE_LINK * rated:
        params = {"speed": top, "link": link.name, "rate": rated}
        findings.append(Finding("warning", Reason("nv_faster_than_link", params)))
    short, dead = [], []
    for index, links in sorted(status.links.items()):
        up = [s for s in links if s and s >= SLOW_LINK * rated]
        if not up:
            dead.append(index)
        elif len(up) < len(links) or (want and len(links) < want):
            short.append((index, len(up), max(len(links), want or total)))
    if dead:
        text = ", ".join(f"GPU{i}" for i in dead[:8]) + (f" (+{len(dead) - 8})" if len(dead) > 8 else "")
        findings.append(Finding("fault", Reason("nv_gpu_no_link", {"gpus": text, "link": link.name, "rate": rated})))
    if short:
        text = ", ".join(f"GPU{i}: {up}/{n}" for i, up, n in short[:8]) + (
            f" (+{len(short) - 8})" if len(short) > 8 else ""
        )
        findings.append(Finding("warning", Reason("nv_links_down", {"gpus": text, "link": link.name, "rate": rated})))
    if not dead and not short:
        findings.append(
            Finding("ok", Reason("nv_all_up", {"links": len(next(iter(status.links.values()), [])), "speed": top}))
        )
    return _health(findings, details)


def check_allreduce(catalog: Catalog, node: Node, run: AllReduceRun) -> Health:
    """What busbw do large messages reach, as a share of the link's per-direction rate, and did
    the run check its results?"""
    findings: list[Finding] = []
    ranks = run.ranks or node.count
    details: dict[str, Any] = {"node": node.id, "ranks": ranks, "avg_busbw": run.avg_busbw}
    if ranks > node.count:
        findings.append(Finding("fault", Reason("ar_too_many", {"ranks": ranks, "node": node.id, "count": node.count})))
        return _health(findings, details)
    if ranks < 2:
        findings.append(Finding("warning", Reason("ar_one_gpu", {})))
        return _health(findings, details)
    if run.ranks is not None and ranks != node.count:
        findings.append(Finding("warning", Reason("ar_fewer", {"ranks": ranks, "count": node.count})))
    wrong = [r.size for r in run.rows if (r.wrong or 0) + (r.inplace_wrong or 0) > 0]
    if wrong:
        findings.append(Finding("fault", Reason("ar_wrong", {"rows": len(wrong)}), sizes=tuple(wrong)))
    elif run.out_of_bounds:  # nccl-tests' own count, where the rows that show it were not pasted
        findings.append(Finding("fault", Reason("ar_out_of_bounds", {"tests": run.out_of_bounds})))
    if not run.checked:
        findings.append(Finding("warning", Reason("ar_unchecked", {})))
    large = [r for r in run.rows if r.size >= LARGE_MESSAGE] or sorted(run.rows, key=lambda r: r.size)[-3:]
    best = max(large, key=lambda r: r.busbw)
    link = group_link(catalog, node, ranks)
    if link is None:  # two ranks or more, checked above, always cross a link
        raise ValueError(f"{node.id}: no link joins {ranks} cards")
    share = min(best.busbw / link.per_direction_gbps, SHOWN_SHARE)
    details.update(
        {
            "link": link.name,
            "link_gbps": link.per_direction_gbps,
            # What the serving model's NCCL reaches on this link (speed.bus_bandwidth): the same constants.
            "expected_busbw": bus_bandwidth(link) / GB,
            "peak_busbw": best.busbw,
            "peak_size": best.size,
            "share": share,
        }
    )
    params = {
        "busbw": best.busbw,
        "size": _size_text(best.size),
        "link": link.name,
        "rate": link.per_direction_gbps,
        "share": round(100 * share),
    }
    sizes = tuple(r.size for r in large)
    if share > ABOVE_LINK:
        findings.append(Finding("warning", Reason("ar_faster_than_link", params), sizes=sizes))
    elif share > 1 and catalog.topologies[node.topology].id == "nvswitch":
        findings.append(Finding("ok", Reason("ar_above_line_rate", params), sizes=sizes))
    elif share >= HEALTHY_SHARE:
        findings.append(Finding("ok", Reason("ar_healthy", params), sizes=sizes))
    elif share >= LOW_SHARE:
        findings.append(Finding("warning", Reason("ar_low", params), sizes=sizes))
    else:
        findings.append(Finding("fault", Reason("ar_fault", params), sizes=sizes))
    return _health(findings, details)


def _size_text(size: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"
