"""Reading `nvidia-smi topo -m`, `nvidia-smi nvlink --status` and `all_reduce_perf` outputs, and
judging them against the node a reader rents. Fixtures: tests/fixtures/measure/ (each names
its source in its first line; hand-written ones say so)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from macros.fitengine import EngineError, check_measurement
from macros.fitengine.health import check_allreduce, check_nvlink, check_topology
from macros.fitengine.nccl_tests import parse_allreduce
from macros.fitengine.nvidia_smi import parse_nvlink_status, parse_topo
from macros.messages import engine_words

from .conftest import FIXTURES, ROOT

MEASURE = FIXTURES / "measure"


def text(name: str) -> str:
    with (MEASURE / name).open(encoding="utf-8", newline="") as handle:  # keep Windows line ends
        return handle.read()


def codes(health):
    return {(f.severity, f.reason.code) for f in health.findings}


# --- topo -m ---------------------------------------------------------------------------


def test_nvswitch_a100_capture():
    topo = parse_topo(text("topo-8x-a100-sxm4-nvswitch.txt"))
    assert topo.gpus == 8 and topo.legend
    assert {topo.label(i, j) for i in range(8) for j in range(8) if i != j} == {"NV12"}


def test_pcie_capture_with_a_nic():
    topo = parse_topo(text("topo-8x-rtx4090-pcie-two-sockets.txt"))
    assert topo.nics == ("NIC0",)
    assert topo.label(0, 3) == "PIX" and topo.label(3, 4) == "SYS" and topo.label(4, 7) == "PIX"


def test_windows_line_ends_prompt_and_mlx5_columns():
    topo = parse_topo(text("topo-8x-h100-nvswitch.txt"))
    assert "\r\n" in text("topo-8x-h100-nvswitch.txt")
    assert topo.gpus == 8 and topo.nics == ("mlx5_0", "mlx5_1")
    assert topo.nvlinks(0, 7) == 18


def test_tabs_and_older_drivers_soc():
    assert parse_topo(text("topo-8x-h100-degraded.txt")).label(2, 3) == "SYS"
    assert parse_topo(text("topo-2x-old-driver-soc.txt")).label(0, 1) == "SYS"


@pytest.mark.parametrize(
    ("paste", "message"),
    [
        ("", "empty"),
        ("   \n\n", "empty"),
        ("total 8\ndrwxr-xr-x 2 root root 4096 .\n", "GPU0"),
        ("GPU0 GPU1\nGPU0 X NV18\n", "no row for GPU1"),
        ("GPU0 GPU1\nGPU0 X NV18\nGPU1 NV8 X\n", "one way"),
        ("GPU0 GPU1\nGPU0 X BANANA\nGPU1 BANANA X\n", "expected X, NV#"),
        ("GPU0 GPU1\nGPU0 NV18 NV18\nGPU1 NV18 X\n", "only a GPU's own cell"),
    ],
)
def test_malformed_topo_says_what_was_expected(paste, message):
    with pytest.raises(EngineError, match=message):
        parse_topo(paste)


def test_a_real_truncated_paste():
    with pytest.raises(EngineError, match="cut short"):
        parse_topo(text("topo-8x-h100-truncated.txt"))


def test_another_commands_output_is_not_a_matrix():
    with pytest.raises(EngineError, match="topo -m"):
        parse_topo(text("allreduce-2x-h100-pcie-bridge.txt"))


# --- judging a topology ---------------------------------------------------------------------


def test_nvswitch_node_sees_nv_everywhere(catalog):
    topo = parse_topo(text("topo-8x-a100-sxm4-nvswitch.txt"))
    health = check_topology(catalog, catalog.node("8x-a100-sxm4-80gb"), topo)
    assert health.verdict == "ok"


def test_h100_node_expects_nv18(catalog):
    healthy = parse_topo(text("topo-8x-h100-nvswitch.txt"))
    assert check_topology(catalog, catalog.node("8x-h100-sxm"), healthy).verdict == "ok"
    assert check_topology(catalog, catalog.node("8x-b200"), healthy).verdict == "ok"
    # An A100 board's NV12 on a node sold as H100: fewer links than promised.
    a100 = parse_topo(text("topo-8x-a100-sxm4-nvswitch.txt"))
    health = check_topology(catalog, catalog.node("8x-h100-sxm"), a100)
    assert health.verdict == "warning" and ("warning", "topo_fewer_links") in codes(health)


def test_degraded_board_names_the_pairs(catalog):
    health = check_topology(catalog, catalog.node("8x-h100-sxm"), parse_topo(text("topo-8x-h100-degraded.txt")))
    assert health.verdict == "fault"
    by_code = {f.reason.code: f for f in health.findings}
    assert by_code["topo_no_nvlink"].pairs == ((2, 3),)
    assert set(by_code["topo_fewer_links"].pairs) == {(min(i, 5), max(i, 5)) for i in range(8) if i != 5}


def test_gpu_count_must_match(catalog):
    health = check_topology(catalog, catalog.node("4x-h100-sxm"), parse_topo(text("topo-8x-h100-nvswitch.txt")))
    assert health.verdict == "fault" and ("fault", "topo_count") in codes(health)


def test_pcie_node_across_two_sockets(catalog):
    health = check_topology(
        catalog, catalog.node("8x-rtx-4090"), parse_topo(text("topo-8x-rtx4090-pcie-two-sockets.txt"))
    )
    assert health.verdict == "ok"
    assert ("ok", "topo_sys_across_sockets") in codes(health)


def test_sys_inside_a_socket_is_a_fault(catalog):
    # Hand-written: a 4-card single-socket PCIe node whose GPU0-GPU3 path crosses sockets.
    paste = "GPU0 GPU1 GPU2 GPU3\nGPU0 X PIX PIX SYS\nGPU1 PIX X PIX PIX\nGPU2 PIX PIX X PIX\nGPU3 SYS PIX PIX X\n"
    health = check_topology(catalog, catalog.node("4x-l40s"), parse_topo(paste))
    assert health.verdict == "fault"
    assert next(f for f in health.findings if f.reason.code == "topo_sys_in_group").pairs == ((0, 3),)


def test_bridged_pairs(catalog):
    # Hand-written: H100 NVL node of two bridged pairs; then the second bridge missing.
    good = "GPU0 GPU1 GPU2 GPU3\nGPU0 X NV12 NODE NODE\nGPU1 NV12 X NODE NODE\nGPU2 NODE NODE X NV12\nGPU3 NODE NODE NV12 X\n"
    bad = good.replace("GPU2 NODE NODE X NV12", "GPU2 NODE NODE X PIX").replace(
        "GPU3 NODE NODE NV12 X", "GPU3 NODE NODE PIX X"
    )
    node = catalog.node("4x-h100-nvl")
    assert check_topology(catalog, node, parse_topo(good)).verdict == "ok"
    health = check_topology(catalog, node, parse_topo(bad))
    assert health.verdict == "fault"
    assert next(f for f in health.findings if f.reason.code == "topo_bridge_missing").pairs == ((2, 3),)


def test_nvlink_where_the_node_has_none(catalog):
    health = check_topology(
        catalog, catalog.node("8x-a100-pcie-80gb"), parse_topo(text("topo-8x-a100-bridged-pairs.txt"))
    )
    assert ("warning", "topo_unexpected_nvlink") in codes(health)
    assert not any(f.reason.code == "topo_sys_in_group" for f in health.findings)


def test_each_cell_is_held_to_what_the_node_should_show(catalog):
    # The bridged-pairs capture (nccl-tests issue 178): NV12 in pairs, NODE within a socket,
    # SYS across. An H100 NVL pair: 12 NVLinks (the catalog: its bridge carries 300 GB/s per
    # direction, NVLink 4 links 25 GB/s each), as test_bridged_pairs pastes it.
    out = check_measurement(catalog, "topo", text("topo-8x-a100-bridged-pairs.txt"), "8x-a100-pcie-80gb")
    marked = {(i, j) for i, row in enumerate(out["differs"]) for j, d in enumerate(row) if d}
    assert marked == {(i, i ^ 1) for i in range(8)}  # only the bridged pairs: the node has no bridges
    assert out["expected"][0][1] == "PCIe" and out["expected"][0][4] == "SYS" and out["expected"][3][3] == "X"
    paste = "GPU0 GPU1\nGPU0 X NV6\nGPU1 NV6 X\n"
    out = check_measurement(catalog, "topo", paste, "2x-h100-nvl")
    assert out["expected"][0][1] == "NV12" and out["differs"][0][1] and not out["differs"][0][0]


def test_a_matrix_with_no_pair_of_the_nodes_class_asks_whether_the_node_is_right(catalog):
    pcie = parse_topo(text("topo-8x-rtx4090-pcie-two-sockets.txt"))
    health = check_topology(catalog, catalog.node("8x-h100-sxm"), pcie)
    first = health.findings[0].reason
    assert first.code == "topo_other_node" and "8x-rtx-4090" in first.params["matches"]
    assert first.params["node"] == "8x-h100-sxm"
    # A degraded board still shows NVLink on most pairs: no such question.
    degraded = parse_topo(text("topo-8x-h100-degraded.txt"))
    assert not {"topo_other_node", "topo_other_node_unknown"} & {
        c for _, c in codes(check_topology(catalog, catalog.node("8x-h100-sxm"), degraded))
    }
    # The same PCIe matrix is what the 8 x RTX 4090 node promises: nothing to ask.
    assert check_topology(catalog, catalog.node("8x-rtx-4090"), pcie).verdict == "ok"
    # NVLink everywhere on a PCIe node of 8 cards: the SXM nodes of 8 are named.
    nvswitch = parse_topo(text("topo-8x-h100-nvswitch.txt"))
    first = check_topology(catalog, catalog.node("8x-l40s"), nvswitch).findings[0].reason
    assert first.code == "topo_other_node" and "8x-h100-sxm" in first.params["matches"]


# --- nvlink --status --------------------------------------------------------------------------


def test_nvlink_status_finds_slow_links(catalog):
    status = parse_nvlink_status(text("nvlink-2x-h200-slow-links.txt"))
    assert len(status.links[0]) == 18 and status.links[0][2] == pytest.approx(1.562)
    health = check_nvlink(catalog, catalog.node("2x-h200-nvl"), status)
    assert health.verdict == "warning"
    assert "GPU0: 15/18" in health.findings[0].reason.params["gpus"]
    assert "GPU1" not in health.findings[0].reason.params["gpus"]


def test_nvlink_status_garbage():
    with pytest.raises(EngineError, match="nvlink --status"):
        parse_nvlink_status(text("topo-8x-h100-nvswitch.txt"))


# --- all_reduce_perf -------------------------------------------------------------------------


def test_allreduce_capture_without_p2p(catalog):
    run = parse_allreduce(text("allreduce-2x-rtx2080ti-pcie-no-p2p.txt"))
    assert run.ranks == 2 and run.avg_busbw == pytest.approx(2.05774) and len(run.rows) == 28
    assert run.rows[-1].size == 1073741824 and run.rows[-1].busbw == pytest.approx(4.00)
    health = check_allreduce(catalog, catalog.node("2x-rtx-4090"), run)
    assert health.verdict == "fault"  # 4 GB/s is an eighth of a Gen4 x16 link
    assert health.details["peak_busbw"] == pytest.approx(4.00)


def test_bridged_h100_pcie_pair(catalog):
    run = parse_allreduce(text("allreduce-2x-h100-pcie-bridge.txt"))
    assert [r.size for r in run.rows] == [1073741824, 2147483648]  # the cut row is skipped
    bridged = check_allreduce(catalog, catalog.node("2x-h100-nvl"), run)
    assert bridged.verdict == "warning" and ("warning", "ar_low") in codes(bridged)
    # On a node sold without the bridge the same numbers are faster than its PCIe link.
    assert ("warning", "ar_faster_than_link") in codes(check_allreduce(catalog, catalog.node("2x-h100-pcie"), run))


def test_nvswitch_sharp_beats_the_line_rate(catalog):
    health = check_allreduce(catalog, catalog.node("8x-h100-sxm"), parse_allreduce(text("allreduce-8x-h100-nvls.txt")))
    assert health.verdict == "ok" and ("ok", "ar_above_line_rate") in codes(health)


def test_wrong_results_are_a_fault(catalog):
    health = check_allreduce(
        catalog, catalog.node("8x-h100-sxm"), parse_allreduce(text("allreduce-8x-h100-wrong-results.txt"))
    )
    assert health.verdict == "fault"
    assert next(f for f in health.findings if f.reason.code == "ar_wrong").reason.params["rows"] == 2


def test_mpi_rank_prefixes():
    run = parse_allreduce(text("allreduce-mpi-rank-prefixes.txt"))
    # The paste lists no ranks, but its busbw/algbw does: 29.50 / 15.39 = 1.917 = 2 x 23/24, a
    # run of 24 GPUs (the multi-node run).
    assert len(run.rows) == 10 and run.ranks == 24
    assert run.rows[5].size == 33554432 and run.rows[5].busbw == pytest.approx(29.50)


def test_fewer_ranks_than_the_node(catalog):
    run = parse_allreduce(text("allreduce-2x-rtx2080ti-pcie-no-p2p.txt"))
    health = check_allreduce(catalog, catalog.node("8x-rtx-4090"), run)
    assert ("warning", "ar_fewer") in codes(health)
    assert check_allreduce(catalog, catalog.node("1x-rtx-4090"), run).verdict == "fault"


@pytest.mark.parametrize(
    "paste", ["", "hello", "# nThread 1 nGpus 8\n#  Rank  0 Group  0\n", "GPU0 GPU1\nGPU0 X NV18\n"]
)
def test_allreduce_garbage(paste):
    with pytest.raises(EngineError, match="all_reduce_perf"):
        parse_allreduce(paste)


# --- the one entry point, and the command line -------------------------------------------------


def test_check_measurement_renders_in_both_locales(catalog):
    for locale in ("en", "fr"):
        out = check_measurement(catalog, "topo", text("topo-8x-h100-degraded.txt"), "8x-h100-sxm", engine_words(locale))
        assert out["verdict"] == "fault" and out["matrix"][2][3] == "SYS"
        assert all(r["text"] and "{" not in r["text"] for r in out["reasons"])
    with pytest.raises(EngineError, match="unknown node"):
        check_measurement(catalog, "topo", "x", "9x-h900")


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "macros.fitengine", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_cli_json_verdicts():
    out = run_cli("topo", str(MEASURE / "topo-8x-h100-degraded.txt"), "--node", "8x-h100-sxm", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["verdict"] == "fault"
    assert [2, 3] in next(r for r in data["reasons"] if r["code"] == "topo_no_nvlink")["pairs"]
    out = run_cli("allreduce", str(MEASURE / "allreduce-8x-h100-nvls.txt"), "--node", "8x-h100-sxm", "--json")
    data = json.loads(out.stdout)
    assert data["verdict"] == "ok" and data["reasons"][0]["sizes"]


def test_cli_not_such_an_output_exits_2():
    out = run_cli("topo", str(MEASURE / "allreduce-8x-h100-nvls.txt"), "--node", "8x-h100-sxm")
    assert out.returncode == 2
    assert "expected the output of `nvidia-smi topo -m`" in out.stderr
    assert "Traceback" not in out.stderr
    out = run_cli("allreduce", str(MEASURE / "missing.txt"), "--node", "8x-h100-sxm")
    assert out.returncode == 2 and "cannot read" in out.stderr
