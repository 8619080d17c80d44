"""Pastes that used to crash or fool the "measure it yourself" check: malformed numbers, huge
integers, Open MPI line tags, GPU counts and link counts the node cannot have, very large
matrices. Expected link counts come from the catalog (cards' NVLink rates over the link's)."""

from __future__ import annotations

import json
import re

import pytest

from macros.fitengine import EngineError, check_measurement
from macros.fitengine.health import check_allreduce, check_nvlink, check_topology, expected_nvlinks
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
    assert health.verdict == "fault"
    assert ("fault", "nv_gpu_no_link") in codes(health)


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


# --- judged against what the catalog rates, and against itself ---------------------------
# Through the browser's Session (the page's path) and the command line. Link rates are the
# catalog's (catalog/interconnects.yaml per_link, the cards' NVLink per direction); the rows'
# arithmetic is nccl-tests' own (src/all_reduce.cu: busbw = algbw x 2(n-1)/n).


@pytest.fixture(scope="module")
def session():
    from macros.catalog_loader import read_catalog
    from macros.fitengine.browser import Session
    from macros.messages import every_engine_words_json

    data, problems = read_catalog()
    assert not problems
    return Session(json.dumps(data), every_engine_words_json())


def judged(session, kind: str, paste: str, node: str, locale: str = "en") -> dict:
    reply = json.loads(session.check_json(kind, paste, node, locale, str))
    return reply


def verdict_codes(reply: dict) -> set[tuple[str, str]]:
    return {(r["severity"], r["code"]) for r in reply["result"]["reasons"]}


def _nvswitch_row(busbw: float, size: int = 8589934592, ranks: int = 8) -> str:
    """One all_reduce_perf row whose time, algbw and busbw agree, as nccl-tests prints them."""
    algbw = busbw / (2 * (ranks - 1) / ranks)
    time_us = size / (algbw * 1e3)
    figures = [f"{v:.2f}" if v < 1e12 else f"{v:.6e}" for v in (time_us, algbw, busbw)]  # %6.2f, or 1e300 in short
    return f"{size} {size // 4} float sum -1 " + " ".join(figures) + " 0 " + " ".join(figures) + " 0"


@pytest.mark.parametrize("speed", ["0.001", "1.000"])
def test_nvlinks_far_below_their_rated_speed_are_a_fault(session, catalog, speed):
    node = catalog.node("8x-h100-sxm")
    links = expected_nvlinks(catalog, node)
    reply = judged(session, "nvlink", _status(8, links, speed), node.id)
    assert reply["result"]["verdict"] == "fault"
    assert ("fault", "nv_gpu_no_link") in verdict_codes(reply)
    assert ("ok", "nv_all_up") not in verdict_codes(reply)


def test_a_link_at_half_its_rated_speed_is_slow_and_the_rated_speed_is_the_catalogs(session, catalog):
    node = catalog.node("8x-h100-sxm")
    rated = catalog.links["nvlink-4"].per_direction_gbps  # 25 GB/s per link (catalog/interconnects.yaml)
    links = expected_nvlinks(catalog, node)
    paste = _status(8, links).replace("Link 3: 26.562", f"Link 3: {rated / 2:.3f}", 1)
    reply = judged(session, "nvlink", paste, node.id)
    assert verdict_codes(reply) == {("warning", "nv_links_down")}
    assert "GPU0: 17/18" in reply["result"]["reasons"][0]["text"]
    # nvidia-smi's 26.562 GB/s for every link (its signalling rate, as public captures show) is up.
    assert judged(session, "nvlink", _status(8, links), node.id)["result"]["verdict"] == "ok"


def test_a_link_listed_twice_is_refused(session):
    paste = "GPU 0: NVIDIA H100\n\t Link 0: 26.562 GB/s\n\t Link 0: 26.562 GB/s\n"
    reply = judged(session, "nvlink", paste, "8x-h100-sxm")
    assert not reply["ok"] and reply["code"] == "nvlink_link_twice" and reply["params"]["line"] == 3


def test_the_out_of_bounds_footer_failed_is_a_fault(session):
    paste = text(H100_RUN).replace("# Out of bounds values : 0 OK", "# Out of bounds values : 3 FAILED")
    assert "3 FAILED" in paste
    reply = judged(session, "allreduce", paste, "8x-h100-sxm")
    assert reply["result"]["verdict"] == "fault"
    assert ("fault", "ar_out_of_bounds") in verdict_codes(reply)


def test_a_run_that_checked_nothing_is_not_ok(session):
    lines = text(H100_RUN).split("\n")
    unchecked = []
    for line in lines:
        tokens = line.split()
        if len(tokens) == 13 and tokens[0].isdigit():
            tokens[8] = tokens[12] = "N/A"  # -c 0: nccl-tests prints N/A for #wrong
            line = " ".join(tokens)
        unchecked.append(line)
    reply = judged(session, "allreduce", "\n".join(unchecked), "8x-h100-sxm")
    assert reply["result"]["verdict"] == "warning"
    assert ("warning", "ar_unchecked") in verdict_codes(reply)


@pytest.mark.parametrize(
    ("column", "value", "code"),
    [
        (7, "999999.00", "allreduce_busbw_rows"),  # busbw edited (the run lists no ranks: its other rows say 8)
        (7, "1e300", "allreduce_busbw_rows"),
        (7, "700.00", "allreduce_busbw_rows"),  # 1.56 x the line rate: "healthy" on the old code
        (6, "300.00", "allreduce_algbw_mismatch"),  # algbw no longer size / time
        (5, "10.0", "allreduce_algbw_mismatch"),  # time edited
        (1, "4", "allreduce_count_mismatch"),  # count x 4 bytes is not the size
        (2, "banana", "allreduce_bad_type"),
        (3, "none", "allreduce_not_reduction"),  # all_gather_perf's redop
        (4, "0", "allreduce_root"),  # reduce_perf's root
    ],
)
def test_a_row_that_all_reduce_perf_could_not_have_printed_is_refused_with_its_line(session, column, value, code):
    paste = _replace_column(text(H100_RUN), column, value)
    reply = judged(session, "allreduce", paste, "8x-h100-sxm")
    assert not reply["ok"], reply
    assert reply["code"] == code and reply["params"]["line"] == 7  # the first measurement row


def test_a_busbw_the_listed_ranks_cannot_give_is_refused(session):
    # The 2 x RTX 2080 Ti capture lists its two ranks: busbw must equal algbw (2 x 1/2).
    paste = _replace_column(text("allreduce-2x-rtx2080ti-pcie-no-p2p.txt"), 7, "5.00")
    reply = judged(session, "allreduce", paste, "2x-rtx-4090")
    assert not reply["ok"] and reply["code"] == "allreduce_busbw_mismatch"
    assert reply["params"]["ranks"] == 2 and reply["params"]["line"] == 11


def test_another_collectives_output_is_refused():
    # The header nccl-tests 2.17 and later print before the run (`Collective test starting`).
    paste = "# Collective test starting: all_gather_perf\n" + text(H100_RUN)
    with pytest.raises(EngineError, match="'all_gather_perf', not all_reduce_perf") as refused:
        parse_allreduce(paste)
    assert refused.value.code == "allreduce_other_test"


@pytest.mark.parametrize("busbw", [900.0, 999_999.0, 1e300])
def test_a_consistent_busbw_beyond_the_link_is_not_ok_even_on_nvswitch(session, catalog, busbw):
    node = catalog.node("8x-h100-sxm")
    assert catalog.topologies[node.topology].id == "nvswitch"
    rate = catalog.gpus[node.gpu].nvlink.per_direction_gbps  # 450 GB/s per direction
    assert busbw > 1.5 * rate
    head = "# nThread 1 nGpus 8\n#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
    reply = judged(session, "allreduce", head + _nvswitch_row(busbw), node.id)
    assert reply["ok"], reply
    assert reply["result"]["verdict"] == "warning"
    assert verdict_codes(reply) == {("warning", "ar_faster_than_link")}


def test_the_ranks_a_run_shows_by_its_busbw_are_judged(session):
    # A two-node run of 16 GPUs (nccl issue 1244): no rank lines, but busbw / algbw = 16.14 / 8.61
    # = 1.875 = 2 x 15/16. On a node of 8 it is another machine's output.
    reply = judged(session, "allreduce", text("allreduce-16x-h20-two-nodes.txt"), "8x-h100-sxm")
    assert reply["result"]["ranks"] == 16
    assert verdict_codes(reply) == {("fault", "ar_too_many")}


def test_a_two_socket_node_whose_cards_share_one_socket_is_not_ok(session, catalog):
    node = catalog.node("8x-rtx-4090")
    assert node.sockets == 2 and node.count == 8
    reply = judged(session, "topo", matrix(8, "PIX"), node.id)
    assert reply["result"]["verdict"] == "warning"
    assert ("warning", "topo_one_socket") in verdict_codes(reply)
    assert ("ok", "topo_pcie_ok") not in verdict_codes(reply)
    # The capture of that node (nccl-tests issue 307) shows SYS across its sockets: as promised.
    reply = judged(session, "topo", text("topo-8x-rtx4090-pcie-two-sockets.txt"), node.id)
    assert reply["result"]["verdict"] == "ok"


def test_a_matrix_row_given_twice_is_refused_not_replaced(session):
    paste = matrix(2, "NV18") + "\nGPU1\tSYS\tX\t0-47"
    reply = judged(session, "topo", paste, "2x-h100-nvl")
    assert not reply["ok"] and reply["code"] == "topo_row_twice" and reply["params"]["line"] == 4


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_the_new_judgements_read_in_both_locales(session, catalog, locale):
    node = catalog.node("8x-h100-sxm")
    pastes = [
        ("nvlink", _status(8, expected_nvlinks(catalog, node), "0.001"), node.id),
        ("allreduce", text(H100_RUN).replace(": 0 OK", ": 2 FAILED"), node.id),
        ("topo", matrix(8, "PIX"), "8x-rtx-4090"),
    ]
    for kind, paste, node_id in pastes:
        for reason in judged(session, kind, paste, node_id, locale)["result"]["reasons"]:
            assert reason["text"] and "{" not in reason["text"]


def test_the_command_line_refuses_an_edited_row_in_one_line(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text(_replace_column(text(H100_RUN), 7, "999999.00"), encoding="utf-8")
    code, out, err = run_cli("allreduce", str(path), "--node", "8x-h100-sxm")
    assert code == 2 and out == ""
    assert err.startswith("error: line 7: busbw 999999 GB/s is not algbw") and err.count("\n") == 1


def test_figures_too_coarse_to_tell_the_gpu_count_claim_none(catalog):
    # 1 MiB in 16,265 us is 0.0645 GB/s, printed 0.06; a busbw printed 0.12 is 2(n-1)/n of it for
    # any n from 10 to 32. No count is claimed: the run is judged as a group of the node's cards.
    size = 1048576
    figures = "16265 0.06 0.12 0 16265 0.06 0.12 0"
    run = parse_allreduce(f"{size} {size // 4} float sum -1 {figures}\n")
    assert run.ranks is None
    health = check_allreduce(catalog, catalog.node("8x-h100-sxm"), run)
    assert "ar_too_many" not in {code for _, code in codes(health)}
