"""The measured rows run as their servers were started (macros/served.py), where the benchmark
that measured them is known: which rows match, and what the engine is then asked.

The settings below are read from SemiAnalysis InferenceX's scripts (github.com/SemiAnalysisAI/
InferenceX): its Llama 3.3 70B servers of October 2025 ran vLLM 0.10.2 (.github/workflows/
70b-tmpl.yml) with `kv-cache-dtype: fp8`, the B200's with `"cudagraph_mode": "FULL_DECODE_ONLY"`
(benchmarks/70b_fp8_b200_docker.sh); its gpt-oss-120b B200 server of February 2026 ran vLLM
0.15.1 with `kv-cache-dtype: fp8` (benchmarks/single_node/gptoss_fp4_b200.sh)."""

from __future__ import annotations

import pytest

from macros.fitengine import fit_node, workload
from macros.served import SERVED, measured_day, served
from macros.sweeps import SWEEPS_DIR, point, rows
from macros.validation import as_released

LLAMA, OSS = "meta-llama/Llama-3.1-70B", "openai/gpt-oss-120b"


def row(model: str, version: str = "", day: str = "", **more: str) -> dict[str, str]:
    return {"model": model, "vllm_version": version, "measured": day, **more}


@pytest.mark.parametrize(
    ("the_row", "node", "expected"),
    [
        (row(LLAMA, "", "2025-10-29"), "8x-b200", ("0.10.2", "fp8", "decode-only")),
        (row(LLAMA, "", "2025-10-29"), "8x-h200-sxm", ("0.10.2", "fp8", "full")),
        (row(LLAMA, "unstated"), "8x-h100-sxm", ("0.10.2", "fp8", "full")),  # the sweep gives no day
        (row(OSS, "0.15.1", "2026-02-25"), "8x-b200", ("0.15.1", "fp8", "full")),
    ],
)
def test_rows_of_a_known_benchmark_run_as_it_started_vllm(the_row, node, expected):
    server = served(the_row, node)
    assert server is not None
    assert (server.release, server.kv_cache, server.cuda_graphs) == expected


@pytest.mark.parametrize(
    ("the_row", "node"),
    [
        (row(LLAMA, "", "2026-03-01"), "8x-b200"),  # another day: another benchmark, perhaps
        (row(OSS, "", "2025-11-02"), "8x-b200"),  # InferenceX's FP8 KV cache came later
        (row(OSS, "0.18.0", "2026-03-27"), "8x-h200-sxm"),  # Marlin forced: not modeled
        (row(OSS, "0.15.1", "2026-02-25"), "8x-h200-sxm"),  # not that card
        (row("Qwen/Qwen3-32B", "0.12.0"), "8x-h100-sxm"),
    ],
)
def test_every_other_row_runs_at_vllms_defaults(the_row, node):
    assert served(the_row, node) is None


def test_every_entry_names_its_source_and_a_setting_the_engine_knows(catalog):
    for s in SERVED:
        assert "github.com/SemiAnalysisAI/InferenceX" in s.source
        work = workload(catalog, "llama-3.1-8b", "fp8", kv_cache=s.kv_cache, cuda_graphs=s.cuda_graphs)
        assert (work.kv_cache, work.cuda_graphs) == (s.kv_cache, s.cuda_graphs)


def test_the_day_is_read_from_the_sources_text():
    text = "source_file=2026-03-25.csv; model=GPT-OSS-120B; measured=2026-02-25T19:02:12Z; wip=False"
    assert measured_day(text) == "2026-02-25"
    assert measured_day("source_file=x.csv; silicon_concurrency=8") == ""
    assert measured_day("") == ""


def _fit(catalog, node, sweep, **options):
    """The engine on a sweep row's layout, lengths and load, with `options` for its server."""
    prompt, answer, tp = int(sweep["input_tokens"]), int(sweep["output_tokens"]), int(sweep["tensor_parallel"])
    users = int(sweep["concurrency"]) * (node.count // tp)
    work = workload(
        catalog,
        "llama-3.3-70b",
        sweep["weights"],
        prompt + answer,
        users,
        input_tokens=prompt,
        output_tokens=answer,
        runtime="vllm",
        layout=(tp, 1, 1, 1),
        **options,
    )
    return fit_node(catalog, work, node)


def test_a_sweep_row_of_that_benchmark_is_asked_with_its_servers_settings(catalog):
    node = catalog.node("8x-h100-sxm")
    sweep = next(r for r in rows(SWEEPS_DIR / "vllm-h100-sxm.csv") if r["model"] == LLAMA)
    got = point(catalog, "vllm-h100-sxm.csv", node, sweep)
    as_run = _fit(as_released(catalog, "vllm", "0.10.2"), node, sweep, kv_cache="fp8")
    assert got.tpot_ratio == pytest.approx(1000 / as_run.decode_tok_s_per_user / float(sweep["tpot_ms"]))
    assert got.ttft_ratio == pytest.approx(as_run.ttft_s * 1000 / float(sweep["ttft_ms"]))
    # ...which is not what vLLM's defaults give.
    assert _fit(catalog, node, sweep).decode_tok_s_per_user != pytest.approx(as_run.decode_tok_s_per_user)
