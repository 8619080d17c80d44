"""What the measure-it-yourself panel asks of the engine: a pasted `nvidia-smi topo -m`,
`nvidia-smi nvlink --status` or nccl-tests `all_reduce_perf` output, judged against a node."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .catalog import Catalog
from .errors import EngineError, shown
from .health import check_allreduce, check_nvlink, check_topology, differs, expected_matrix
from .nccl_tests import parse_allreduce
from .numbers import english
from .nvidia_smi import parse_nvlink_status, parse_topo
from .protocol import MAX_PASTE
from .reasons import Reason, render

MEASUREMENTS = ("topo", "nvlink", "allreduce")


def check_measurement(
    catalog: Catalog,
    kind: str,
    text: str,
    node_id: str,
    words: Mapping[str, str] | None = None,
    number: Callable[[float], str] = english,
) -> dict[str, Any]:
    """Judge a pasted `topo -m`, `nvlink --status` or `all_reduce_perf` output against a node.

    For a `topo -m` matrix of the node's size: `matrix` as read, `expected` what the node should
    show (NV#, SYS, or PCIe for any PCIe label) and `differs`, the cells that are not that.

    Raises EngineError when the text is not such an output or the node is unknown.
    """
    if kind not in MEASUREMENTS:
        raise EngineError(f"unknown measurement {shown(kind)}; choose one of: {', '.join(MEASUREMENTS)}")
    node = next((n for n in catalog.nodes if n.id == node_id), None)
    if node is None:
        raise EngineError(f"unknown node {shown(node_id, 60)}; choose one of: {', '.join(n.id for n in catalog.nodes)}")
    if not isinstance(text, str):
        raise EngineError("the paste must be text")
    if len(text) > MAX_PASTE:
        raise EngineError(f"the paste holds {len(text):,} characters; at most {MAX_PASTE:,} are read")
    matrix = None
    drawn: dict[str, Any] = {}
    if kind == "topo":
        topo = parse_topo(text)
        health = check_topology(catalog, node, topo)
        if topo.gpus == node.count:  # a matrix of another size is judged, not drawn
            matrix = [[("X" if i == j else topo.label(i, j)) for j in range(topo.gpus)] for i in range(topo.gpus)]
            expected = expected_matrix(catalog, node)
            drawn = {
                "expected": expected,
                "differs": [
                    [differs(a, b) for a, b in zip(row, want, strict=True)]
                    for row, want in zip(matrix, expected, strict=True)
                ],
            }
    elif kind == "nvlink":
        health = check_nvlink(catalog, node, parse_nvlink_status(text))
    else:
        health = check_allreduce(catalog, node, parse_allreduce(text))
    result = health.to_dict()
    for item, finding in zip(result["reasons"], health.findings, strict=True):
        item["text"] = render(Reason(finding.reason.code, finding.reason.params), words, number)
    result["matrix"] = matrix
    # The matrix the node should show, and which cells differ from it (expected_label).
    result["expected"] = drawn.get("expected")
    result["differs"] = drawn.get("differs")
    return result
