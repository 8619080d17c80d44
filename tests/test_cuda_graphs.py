"""Steps a server runs without CUDA graphs: what they cost, against measurements from outside
the engine, and which steps pay it.

Published figures used here:
- vllm-project/vllm-omni issue 7960: the Qwen2.5-Omni-7B thinker, a dense model of 28 layers
  (Qwen2.5-7B's shape), on one A800: about 23 ms per token in eager mode, about 13 with CUDA
  graphs;
- vllm-project/vllm issue 45709: Qwen3-30B-A3B, 48 layers all of experts, at TP 4 on 4090D with
  3,500/1,500 tokens and 8 users: 33.92 ms per token eager, 10.03 with vLLM's default graphs;
- Llama 3.3 70B has 80 layers (Meta's config.json); gpt-oss-120b 36, every one of experts
  (OpenAI's config.json).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from macros.fitengine import EngineError, fit_node, workload
from macros.fitengine.api import evaluate

from .conftest import ROOT

DENSE_PER_LAYER_MS = (23 - 13) / 28  # vllm-omni 7960, a dense layer
MOE_PER_LAYER_MS = (33.92 - 10.03) / 48  # vLLM 45709, an MoE layer


def _figures(catalog, model, fmt, node, users, graphs, layout, prompt=1024, answer=1024):
    work = workload(
        catalog,
        model,
        fmt,
        prompt + answer,
        users,
        input_tokens=prompt,
        output_tokens=answer,
        layout=layout,
        cuda_graphs=graphs,
    )
    fit = fit_node(catalog, work, catalog.node(node))
    return 1000 / fit.decode_tok_s_per_user, fit.ttft_s * 1000


@pytest.mark.parametrize(
    ("model", "fmt", "node", "layout", "layers", "per_layer_ms"),
    [
        ("llama-3.3-70b", "fp8", "8x-h100-sxm", (8, 1, 1), 80, DENSE_PER_LAYER_MS),
        ("gpt-oss-120b", "mxfp4", "4x-h100-sxm", (4, 1, 1), 36, MOE_PER_LAYER_MS),
    ],
)
def test_eager_mode_adds_to_every_step_what_the_measured_layers_add(
    catalog, model, fmt, node, layout, layers, per_layer_ms
):
    # One user: every step after the first token is a decode step, all of them ungraphed.
    graphed, _ = _figures(catalog, model, fmt, node, 1, "full", layout)
    eager, _ = _figures(catalog, model, fmt, node, 1, "none", layout)
    assert eager - graphed == pytest.approx(layers * per_layer_ms, rel=0.1)


def test_graphs_for_decode_only_leave_decode_alone_and_slow_the_steps_that_carry_a_prompt(catalog):
    args = (catalog, "llama-3.3-70b", "fp8", "8x-b200")
    tpot_full, ttft_full = _figures(*args, 1, "full", (8, 1, 1))
    tpot_decode, ttft_decode = _figures(*args, 1, "decode-only", (8, 1, 1))
    tpot_eager, _ = _figures(*args, 1, "none", (8, 1, 1))
    assert tpot_decode == pytest.approx(tpot_full)
    # A 1,024-token prompt is one step: it pays what one ungraphed step pays, no more.
    assert ttft_decode - ttft_full == pytest.approx(tpot_eager - tpot_full, rel=0.01)
    assert ttft_decode - ttft_full == pytest.approx(80 * DENSE_PER_LAYER_MS, rel=0.1)

    # Under load a decoding user's steps also carry the others' prompts: slower than graphed,
    # faster than eager.
    loaded = {g: _figures(*args, 64, g, (8, 1, 1))[0] for g in ("full", "decode-only", "none")}
    assert loaded["full"] < loaded["decode-only"] < loaded["none"]


def test_a_long_prompt_pays_for_each_of_its_chunks(catalog):
    # vLLM's budget of 8,192 tokens a step (runtimes.yaml batched_tokens) cuts 32,768 into four.
    args = (catalog, "llama-3.3-70b", "fp8", "8x-b200")
    _, short_full = _figures(*args, 1, "full", (8, 1, 1), prompt=8192)
    _, short_decode = _figures(*args, 1, "decode-only", (8, 1, 1), prompt=8192)
    _, long_full = _figures(*args, 1, "full", (8, 1, 1), prompt=32768)
    _, long_decode = _figures(*args, 1, "decode-only", (8, 1, 1), prompt=32768)
    assert long_decode - long_full == pytest.approx(4 * (short_decode - short_full), rel=0.01)


def test_the_option_is_checked_and_named(catalog):
    with pytest.raises(EngineError) as bad:
        workload(catalog, "llama-3.1-8b", "bf16", cuda_graphs="sometimes")
    assert bad.value.code == "cuda_graphs_choice"
    assert "full, decode-only, none" in str(bad.value)
    with pytest.raises(EngineError) as other:
        workload(catalog, "llama-3.1-8b", "gguf-q4_k_m", runtime="llama-cpp", cuda_graphs="none")
    assert other.value.code == "cuda_graphs_runtime"
    assert workload(catalog, "llama-3.1-8b", "gguf-q4_k_m", runtime="llama-cpp").cuda_graphs == "full"


def test_the_request_carries_it_and_refuses_what_is_not_text(catalog):
    request = {"model": "llama-3.3-70b", "format": "fp8", "node": "8x-b200", "concurrency": 4}
    full = evaluate(catalog, request).work
    eager = evaluate(catalog, {**request, "cuda_graphs": "none"}).work
    assert (full.cuda_graphs, eager.cuda_graphs) == ("full", "none")
    with pytest.raises(EngineError) as typed:
        evaluate(catalog, {**request, "cuda_graphs": 3})
    assert typed.value.code == "not_text"
    image = next(iter(catalog.diffusion))
    with pytest.raises(EngineError) as refused:
        evaluate(catalog, {"model": image, "format": "bf16", "cuda_graphs": "none"})
    assert refused.value.code == "image_option"


def test_the_command_line_takes_the_flag_and_refuses_another_value():
    base = [sys.executable, "-m", "macros.fitengine", "fit", "--model", "llama-3.3-70b", "--format", "fp8"]
    base += ["--node", "8x-b200", "--tensor-parallel", "8", "--json"]
    ok = subprocess.run([*base, "--cuda-graphs", "decode-only"], cwd=ROOT, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run([*base, "--cuda-graphs", "sometimes"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2
    assert "--cuda-graphs" in bad.stderr and "decode-only" in bad.stderr
