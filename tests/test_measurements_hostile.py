"""Pastes that used to crash or fool the "measure it yourself" check: malformed numbers, huge
integers, Open MPI line tags, GPU counts and link counts the node cannot have, very large
matrices. Expected link counts come from the catalog (cards' NVLink rates over the link's)."""

from __future__ import annotations

import json
import re

import pytest

from macros.fitengine import EngineError, check_measurement
from macros.fitengine.health import check_nvlink, check_topology, expected_nvlinks
from macros.fitengine.nccl_tests import parse_allreduce
from macros.fitengine.nvidia_smi import parse_nvlink_status, parse_topo

from .test_fuzz import run_cli
from .test_measurements import codes, text

H100_RUN = "allreduce-8x-h100-nvls.txt"


def _replace_column(paste: str, column: int, value: str) -> str:
    """The paste with one column of its first measurement row replaced (columns counted after the rank tags)."""
    lines = paste.split("\n")
    for n, line in enumerate(lines):
        tokens = line.split()
        if len(tokens) >= 12 and tokens[0].isdigit() and tokens[1].isdigit():
            tokens[column] = value
            lines[n] = " ".join(tokens)
            return "\n".join(lines)
    raise AssertionError("no measurement row")


def _first_row_columns(paste: str) -> int:
    return next(len(line.split()) for line in paste.split("\n") if line.split()[:1] and line.split()[0].isdigit())


# --- all_reduce_perf ---------------------------------------------------------------------


@pytest.mark.parametrize("value", ["-nan", "inf", "nan", "1.2.3", "e", "2026-12-01", "1e400", "-5"])
def test_a_busbw_that_is_not_a_number_is_refused_with_its_line(value):
    paste = text(H100_RUN)
    busbw = 7 if _first_row_columns(paste) == 13 else 6  # with or without the root column
    with pytest.raises(EngineError, match=r"^line \d+: the busbw column reads") as error:
        parse_allreduce(_replace_column(paste, busbw, value))
    assert value[:20] in str(error.value)


def test_a_wrong_count_of_inf_is_refused():
    paste = text(H100_RUN)
    wrong = 8 if _first_row_columns(paste) == 13 else 7
    with pytest.raises(EngineError, match="#wrong column reads 'inf'"):
        parse_allreduce(_replace_column(paste, wrong, "inf"))


def test_a_size_of_superscript_two_is_not_a_row():
    paste = text(H100_RUN)
    rows = len(parse_allreduce(paste).rows)
    assert len(parse_allreduce(_replace_column(paste, 0, "²")).rows) == rows - 1


@pytest.mark.parametrize("where", ["size", "nGpus"])
def test_integers_of_thousands_of_digits_are_refused(where):
    huge = "9" * 5000
    paste = text(H100_RUN)
    if where == "size":
        paste = _replace_column(paste, 0, huge)
    else:
        paste = re.sub(r"nGpus\s+\d+", f"nGpus {huge}", paste)
        assert huge in paste
    with pytest.raises(EngineError) as error:
        parse_allreduce(paste)
    assert len(str(error.value)) < 200


def test_open_mpi_tag_output_reads_as_the_plain_run():
    plain = text(H100_RUN)
    tagged = "\n".join(f"[1,0]<stdout>:{line}" if line else line for line in plain.split("\n"))
    assert parse_allreduce(tagged) == parse_allreduce(plain)


def test_open_mpi_tags_on_a_topology_too():
    plain = text("topo-8x-h100-nvswitch.txt")
    tagged = "\n".join(f"[1,0]<stdout>:{line}" for line in plain.split("\n"))
    assert parse_topo(tagged) == parse_topo(plain)


# --- nvlink --status ---------------------------------------------------------------------


def _status(gpus: int, links: int, speed: str = "26.562") -> str:
    return "\n".join(
        f"GPU {g}: NVIDIA H100\n" + "\n".join(f"\t Link {k}: {speed} GB/s" for k in range(links)) for g in range(gpus)
    )


def test_a_link_speed_of_1_2_3_is_refused():
    with pytest.raises(EngineError, match=r"line 2 reads 'Link 0: 1\.2\.3 GB/s'"):
        parse_nvlink_status("GPU 0: NVIDIA H100\n\t Link 0: 1.2.3 GB/s\n")


def test_a_gpu_index_of_thousands_of_digits_is_refused():
    with pytest.raises(EngineError, match="not a GPU index"):
        parse_nvlink_status(f"GPU {'9' * 5000}: NVIDIA H100\n\t Link 0: 26.562 GB/s\n")


@pytest.mark.parametrize("gpus", [1, 16])
def test_nvlink_status_must_list_the_nodes_gpus(catalog, gpus):
    node = catalog.node("8x-h100-sxm")
    links = expected_nvlinks(catalog, node)
    health = check_nvlink(catalog, node, parse_nvlink_status(_status(gpus, links)))
    assert codes(health) == {("fault", "nv_count")}


def test_ten_thousand_gpus_are_refused():
    with pytest.raises(EngineError, match="not a GPU index"):
        parse_nvlink_status(_status(10_000, 1))


def test_gpus_without_a_single_link_are_not_ok(catalog):
    node = catalog.node("2x-h100-nvl")
    health = check_nvlink(catalog, node, parse_nvlink_status("GPU 0: hello\nGPU 1: world\n"))
    assert health.verdict != "ok"
    assert ("warning", "nv_links_down") in codes(health)


def test_more_links_than_the_card_has_is_a_fault(catalog):
    node = catalog.node("8x-h100-sxm")
    most = catalog.links["nvlink-4"].max_links
    health = check_nvlink(catalog, node, parse_nvlink_status(_status(8, most + 1)))
    assert codes(health) == {("fault", "nv_too_many")}


def test_links_faster_than_the_generation_are_flagged(catalog):
    node = catalog.node("8x-h100-sxm")
    rate = catalog.links["nvlink-4"].per_direction_gbps
    links = expected_nvlinks(catalog, node)
    health = check_nvlink(catalog, node, parse_nvlink_status(_status(8, links, f"{rate * 10:.3f}")))
    assert ("warning", "nv_faster_than_link") in codes(health)


# --- topo -m -----------------------------------------------------------------------------


def matrix(gpus: int, label: str) -> str:
    head = "\t" + "\t".join(f"GPU{j}" for j in range(gpus)) + "\tCPU Affinity"
    rows = [f"GPU{i}\t" + "\t".join("X" if i == j else label for j in range(gpus)) + "\t0-47" for i in range(gpus)]
    return "\n".join([head, *rows])


def test_more_nvlinks_than_the_node_has_is_a_fault(catalog):
    node = catalog.node("8x-h100-sxm")
    health = check_topology(catalog, node, parse_topo(matrix(8, "NV99999")))
    assert health.verdict == "fault"
    assert ("fault", "topo_too_many_links") in codes(health)
    assert ("ok", "topo_all_nvlink") not in codes(health)


def test_one_more_link_than_expected_is_flagged(catalog):
    node = catalog.node("8x-h100-sxm")
    want = expected_nvlinks(catalog, node)
    health = check_topology(catalog, node, parse_topo(matrix(8, f"NV{want + 1}")))
    assert ("fault", "topo_too_many_links") in codes(health)


def test_nvlink_label_of_thousands_of_digits_is_refused():
    with pytest.raises(EngineError, match="expected X, NV#"):
        parse_topo(matrix(2, "NV" + "9" * 5000))


def test_a_thousand_gpu_matrix_is_read_whole():
    # Its time is measured by `make bench` (topo_1000_gpus_s), not asserted here.
    topo = parse_topo(matrix(1000, "SYS"))
    assert topo.gpus == 1000
    assert topo.label(998, 999) == "SYS" and topo.label(500, 500) == "X"


def test_a_matrix_of_another_size_is_judged_but_not_drawn(catalog):
    result = check_measurement(catalog, "topo", matrix(16, "NV18"), "8x-h100-sxm")
    assert result["verdict"] == "fault" and result["matrix"] is None
    result = check_measurement(catalog, "topo", matrix(8, "NV18"), "8x-h100-sxm")
    assert len(result["matrix"]) == 8


def test_a_paste_of_megabytes_is_refused_at_once(catalog):
    with pytest.raises(EngineError, match="at most"):
        check_measurement(catalog, "topo", matrix(1000, "NV18"), "8x-h100-sxm")


# --- the command line --------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["topo", "nvlink", "allreduce"])
def test_json_output_is_strict_json(tmp_path, kind):
    sample = {"topo": matrix(8, "NV18"), "nvlink": _status(8, 18, "999999.9"), "allreduce": text(H100_RUN)}[kind]
    path = tmp_path / "paste.txt"
    path.write_text(sample, encoding="utf-8")
    code, out, err = run_cli(kind, str(path), "--node", "8x-h100-sxm", "--json")
    assert code == 0, err

    def refuse(name):
        raise AssertionError(f"{name} in --json output")

    json.loads(out, parse_constant=refuse)


@pytest.mark.parametrize(
    ("kind", "paste"),
    [
        ("allreduce", _replace_column(text(H100_RUN), 0, "9" * 5000)),
        ("nvlink", "GPU 0: x\n\t Link 0: 1.2.3 GB/s\n"),
        ("topo", matrix(2, "NV" + "9" * 5000)),
    ],
)
def test_refused_pastes_exit_2_with_one_line(tmp_path, kind, paste):
    path = tmp_path / "paste.txt"
    path.write_text(paste, encoding="utf-8")
    code, out, err = run_cli(kind, str(path), "--node", "8x-h100-sxm")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and len(err) < 300


def test_nvlink_on_a_pcie_node_is_reported_once(catalog):
    node = catalog.node("8x-rtx-4090")
    health = check_topology(catalog, node, parse_topo(matrix(8, "NV99999")))
    assert ("warning", "topo_unexpected_nvlink") in codes(health)
    assert ("fault", "topo_too_many_links") not in codes(health)
