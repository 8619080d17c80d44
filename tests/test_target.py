"""The reader's target: the node recommended meets it, the layout chosen serves it best, the
price is the workload's, and each figure says how far measured points came from it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from macros.fitengine import EngineError, fit_node, workload
from macros.fitengine.api import raw_answer
from macros.fitengine.layout import candidates, refusal
from macros.fitengine.workloads import resolve_runtime

ROOT = Path(__file__).resolve().parent.parent
BAND = json.loads((ROOT / "catalog" / "validation" / "error_band.json").read_text(encoding="utf-8"))


def _within(row, speed, ttft):
    return row["decode_tok_s_per_user"] >= speed and row["ttft_s"] <= ttft


@pytest.mark.parametrize(
    ("model", "fmt"), [("deepseek-v3", "fp8"), ("deepseek-v3", "awq-int4"), ("llama-3.3-70b", "bf16")]
)
@pytest.mark.parametrize("users", [64, 1])
def test_the_recommended_node_meets_the_default_target_and_no_cheaper_node_does(catalog, model, fmt, users):
    a = catalog.assumptions
    result = raw_answer(catalog, {"model": model, "format": fmt, "concurrency": users})
    rows = {r["node"]: r for r in result["rows"]}
    node = result["summary"]["recommended"]
    assert node is not None, (model, fmt, users)
    best = rows[node]
    # The target restated from the catalog, not read from the engine's own verdict.
    assert _within(best, a.target_tok_s, a.target_ttft_s)
    for r in rows.values():
        if r["verdict"] != "none" and r["price_month_usd"] < best["price_month_usd"]:
            assert not _within(r, a.target_tok_s, a.target_ttft_s), r["node"]
    assert [r["node"] for r in rows.values() if r["recommended"]] == [node]


def test_the_trap_of_the_issue_is_not_recommended(catalog):
    """DeepSeek V3 FP8 for 64 users: 8x-rtx-pro-6000 holds it, far too slowly; it is not the answer."""
    result = raw_answer(catalog, {"model": "deepseek-v3", "format": "fp8", "concurrency": 64})
    rows = {r["node"]: r for r in result["rows"]}
    assert rows["8x-rtx-pro-6000"]["verdict"] != "none"
    assert not rows["8x-rtx-pro-6000"]["meets_target"]
    assert result["summary"]["recommended"] != "8x-rtx-pro-6000"


def _accepted_layouts(catalog, work, node):
    runtime = resolve_runtime(catalog, work)
    arch = work.model.architecture
    from macros.fitengine.workloads import quant_block

    block = quant_block(work.model, work.format)
    return [
        lay
        for lay in candidates(node.count, runtime, arch.moe is not None)
        if lay.cards <= node.count and refusal(arch, runtime, lay, block, work.format.expert_pad) is None
    ]


@pytest.mark.parametrize(
    ("model", "fmt", "users"),
    [
        ("llama-3.3-70b", "fp8", 64),
        ("llama-3.3-70b", "bf16", 1),
        ("qwen3-32b", "bf16", 200),
        ("gpt-oss-120b", "mxfp4", 32),
        ("llama-3.1-8b", "bf16", 512),
    ],
)
def test_on_every_node_the_chosen_layout_is_no_worse_than_any_other_it_accepts(catalog, model, fmt, users):
    """Each accepted layout forced in turn: where one meets the target, the chosen one meets it
    too at no higher price per million tokens of the workload; where none does, the chosen one
    misses it by no more than any other."""
    a = catalog.assumptions
    checked = 0
    for node in catalog.nodes:
        work = workload(catalog, model, fmt, concurrency=users)
        chosen = fit_node(catalog, work, node)
        if chosen.verdict == "none":
            continue
        others = []
        for lay in _accepted_layouts(catalog, work, node):
            forced = fit_node(
                catalog, workload(catalog, model, fmt, concurrency=users, layout=(lay.tp, lay.pp, lay.ep, lay.dp)), node
            )
            if forced.verdict != "none":
                others.append(forced)
        assert others, node.id

        def miss(r):
            return max(a.target_tok_s / r.decode_tok_s_per_user, r.ttft_s / a.target_ttft_s)

        meeting = [r for r in others if miss(r) <= 1]
        if meeting:
            assert chosen.meets_target, node.id
            cheapest = min(r.usd_per_million_tokens_workload for r in meeting)
            assert chosen.usd_per_million_tokens_workload <= cheapest * (1 + 1e-9), node.id
        else:
            assert not chosen.meets_target, node.id
            assert miss(chosen) <= min(miss(r) for r in others) * (1 + 1e-9), node.id
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize(
    ("model", "fmt", "context", "users"),
    [("llama-3.3-70b", "fp8", None, 64), ("qwen3-32b", "bf16", 16384, 3), ("deepseek-v3", "fp8", None, 1)],
)
def test_the_workload_price_times_the_tokens_an_hour_is_the_hourly_price_to_the_cent(
    catalog, model, fmt, context, users
):
    a = catalog.assumptions
    work = workload(catalog, model, fmt, context, users)
    rows = raw_answer(catalog, {"model": model, "format": fmt, "context": context, "concurrency": users})["rows"]
    priced = 0
    for node, r in zip(catalog.nodes, rows, strict=True):
        if r["verdict"] == "none":
            assert r["usd_per_million_tokens_workload"] is None
            continue
        hourly = node.price_month_usd / a.hours_per_month
        tokens = r["decode_tok_s_total"] * 3600 * (work.input_tokens + work.output_tokens) / work.output_tokens
        assert r["tokens_per_hour"] == pytest.approx(tokens, rel=1e-12)
        assert round(r["usd_per_million_tokens_workload"] * r["tokens_per_hour"] / 1e6, 2) == round(hourly, 2)
        assert round(r["usd_per_million_output_tokens"] * r["decode_tok_s_total"] * 3600 / 1e6, 2) == round(hourly, 2)
        priced += 1
    assert priced


def test_the_bands_are_the_validations_for_the_rows_setup(catalog):
    """vLLM at a tensor-parallel size the sweep measured: the band of the load's slice, as
    measured / engine; llama.cpp (never measured in the sweep): the overall band, not covered."""
    judged = BAND["judge"]["slices"]
    vllm = raw_answer(catalog, {"model": "llama-3.3-70b", "format": "fp8", "concurrency": 32, "node": "8x-h100-sxm"})
    (row,) = vllm["rows"]
    assert row["band_covered"] and row["tensor_parallel"] in BAND["covers"]["tensor_parallel"]
    per_replica = row["concurrency_per_replica"]
    name = "load: 1-8 users" if per_replica <= 8 else "load: 9-64 users" if per_replica <= 64 else "load: over 64 users"
    tpot, ttft = judged[name]["tpot"], judged[name]["ttft"]
    assert row["speed_band"] == [tpot["p10"], tpot["p90"]]
    assert row["ttft_band"] == pytest.approx([1 / ttft["p90"], 1 / ttft["p10"]])
    # The engine errs on the slow side: nine measured speeds in ten were at or above its figure.
    assert row["speed_band"][0] >= 1
    gguf = raw_answer(catalog, {"model": "llama-3.3-70b", "format": "gguf-q4_k_m", "node": "1x-h100-nvl"})
    (row,) = gguf["rows"]
    assert row["runtime"] != BAND["covers"]["runtime"]
    assert not row["band_covered"]
    assert row["speed_band"] == [judged["all"]["tpot"]["p10"], judged["all"]["tpot"]["p90"]]


def test_a_card_the_sweep_did_not_measure_takes_the_band_of_its_own_measured_points(catalog):
    """Another card is covered by the points measured on it (catalog/validation/silicon_band.json,
    never used to fit), for its model, format, tensor-parallel sizes and loads; a card nobody
    measured gets the overall band, said to lie outside the measured points."""
    cards = json.loads((ROOT / "catalog" / "validation" / "silicon_band.json").read_text(encoding="utf-8"))
    assert "b200" not in BAND["covers"]["gpus"]
    setup = next(s for s in cards["setups"] if (s["gpu"], s["model"], s["format"]) == ("b200", "llama-3.3-70b", "fp8"))
    assert 2 in setup["tensor_parallel"] and setup["max_concurrency"] >= 2
    request = {"model": "llama-3.3-70b", "format": "fp8", "concurrency": 8, "node": "8x-b200", "tensor_parallel": 2}
    (row,) = raw_answer(catalog, request)["rows"]
    assert (row["tensor_parallel"], row["concurrency_per_replica"]) == (2, 2)
    assert row["band_covered"]
    assert row["speed_band"] == [setup["tpot"]["p10"], setup["tpot"]["p90"]]
    assert row["ttft_band"] == pytest.approx([1 / setup["ttft"]["p90"], 1 / setup["ttft"]["p10"]])
    # Beyond the loads measured on it, the card's band no longer speaks.
    request["concurrency"] = 4 * (setup["max_concurrency"] + 1)
    (row,) = raw_answer(catalog, request)["rows"]
    assert row["verdict"] != "none" and not row["band_covered"]
    judged = BAND["judge"]["slices"]["all"]
    measured = {(s["gpu"], s["model"]) for s in cards["setups"]} | {
        (g, "llama-3.3-70b") for g in BAND["covers"]["gpus"]
    }
    for node in ("1x-h100-nvl", "2x-l40s"):
        assert (catalog.node(node).gpu, "llama-3.3-70b") not in measured
        request = {"model": "llama-3.3-70b", "format": "fp8", "context": 4096, "node": node}
        (row,) = raw_answer(catalog, request)["rows"]
        assert row["verdict"] != "none" and not row["band_covered"]
        assert row["speed_band"] == [judged["tpot"]["p10"], judged["tpot"]["p90"]]


def test_a_catalog_without_a_band_gives_none_rather_than_a_guess(tmp_path, catalog_copy):
    from macros.catalog_loader import load_catalog

    (catalog_copy / "validation" / "error_band.json").unlink()
    bare = load_catalog(catalog_copy)
    (row,) = raw_answer(bare, {"model": "llama-3.3-70b", "format": "fp8", "node": "8x-h100-sxm"})["rows"]
    assert row["speed_band"] is None and row["ttft_band"] is None and not row["band_covered"]


def test_a_target_out_of_reach_offers_fewer_users_a_looser_target_or_another_format(catalog):
    request = {"model": "llama-3.3-70b", "format": "bf16", "concurrency": 2000, "min_speed": 30}
    result = raw_answer(catalog, request)
    assert result["summary"]["recommended"] is None
    assert result["summary"]["fits"] > 0
    offered = result["suggestions"]
    kinds = {
        "users"
        if s["concurrency"]
        else "target"
        if s["min_speed"] or s["max_ttft"]
        else "format"
        if s["format"]
        else "?"
        for s in offered
    }
    assert {"users", "target"} <= kinds, offered
    for s in offered:
        # Each offered change is one the engine itself answers with the node it names.
        again = raw_answer(
            catalog,
            {**request, **{k: v for k, v in s.items() if k not in ("node", "price_month_usd") and v is not None}},
        )
        assert again["summary"]["recommended"] == s["node"]
        row = next(r for r in again["rows"] if r["node"] == s["node"])
        assert row["meets_target"] and row["price_month_usd"] == s["price_month_usd"]
    fewer = next(s for s in offered if s["concurrency"])
    assert fewer["concurrency"] < request["concurrency"]


@pytest.mark.parametrize(
    ("key", "value"),
    [("min_speed", "fast"), ("min_speed", 0), ("min_speed", -3), ("max_ttft", "1e3"), ("max_ttft", 10**9)],
)
def test_a_target_the_engine_cannot_read_is_refused_with_its_own_code(catalog, key, value):
    with pytest.raises(EngineError) as refused:
        raw_answer(catalog, {"model": "llama-3.3-70b", "format": "fp8", key: value})
    assert refused.value.code in {"not_a_number", "target_speed_range", "target_ttft_range"}


def test_the_command_line_takes_the_target_and_says_what_it_recommends(catalog):
    def rows(*extra):
        out = subprocess.run(
            [sys.executable, "-m", "macros.fitengine", "fit", "--model", "llama-3.3-70b", "--format", "fp8",
             "--concurrency", "64", "--json", *extra],
            cwd=ROOT, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    default, strict = rows(), rows("--min-speed", "30", "--max-ttft", "0.5")
    for table, speed, ttft in (
        (default, catalog.assumptions.target_tok_s, catalog.assumptions.target_ttft_s),
        (strict, 30, 0.5),
    ):
        (chosen,) = [r for r in table if r["recommended"]]
        assert _within(chosen, speed, ttft)
        assert all(r["meets_target"] == _within(r, speed, ttft) for r in table if r["verdict"] != "none")
    (dearer,) = [r["price_month_usd"] for r in strict if r["recommended"]]
    (cheaper,) = [r["price_month_usd"] for r in default if r["recommended"]]
    assert dearer >= cheaper  # a stricter target never makes the answer cheaper
    out = subprocess.run(
        [sys.executable, "-m", "macros.fitengine", "fit", "--model", "flux.1-dev", "--format", "bf16", "--min-speed", "9"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 2 and f"--min-speed does not apply to {catalog.diffusion['flux.1-dev'].name}" in out.stderr


def test_each_row_says_whether_it_meets_the_target_and_why_its_layout(catalog):
    request = {"model": "llama-3.3-70b", "format": "fp8", "concurrency": 64, "node": "8x-h100-sxm"}
    (row,) = raw_answer(catalog, request)["rows"]
    codes = [n["code"] for n in row["notes"]]
    assert ("target_met" in codes) == row["meets_target"] and ("target_missed" in codes) != row["meets_target"]
    assert "layout_best" in codes
    # A forced layout was not chosen: its row says where it stands, not why it was taken.
    (forced,) = raw_answer(catalog, {**request, "tensor_parallel": 2})["rows"]
    forced_codes = [n["code"] for n in forced["notes"]]
    assert {"layout_best", "layout_closest"}.isdisjoint(forced_codes)
    assert {"target_met", "target_missed"} & set(forced_codes)
    # Out of reach, the row says it misses the target and that its layout comes closest.
    (slow,) = raw_answer(catalog, {**request, "concurrency": 4000})["rows"]
    assert not slow["meets_target"]
    assert {"target_missed", "layout_closest"} <= {n["code"] for n in slow["notes"]}
