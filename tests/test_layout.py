"""Layouts the serving runtimes accept, and the order a practitioner tries them in."""

import dataclasses

import pytest

from macros.fitengine import Architecture, fit_all, fit_node, workload
from macros.fitengine.layout import Layout, candidates, refusal

# Mistral Large 2 (huggingface.co/mistralai/Mistral-Large-Instruct-2407, config.json):
# 88 layers, hidden 12288, 96 heads, 8 KV heads, head_dim 128, MLP width 28672, vocabulary 32768.
MISTRAL_LARGE = Architecture(
    layers=88, hidden=12288, heads=96, kv_heads=8, head_dim=128, vocab=32768, intermediate=28672
)


def test_tensor_parallel_three_and_six_are_refused_for_a_mistral_large_shape(catalog):
    vllm = catalog.runtimes["vllm"]
    for tp in (3, 6):  # 96 heads divide by both; 8 KV heads and 28,672 do not
        why = refusal(MISTRAL_LARGE, vllm, Layout(tp))
        assert why is not None and why.code in {"layout_kv_heads", "layout_width"}
    for tp in (2, 4, 8):
        assert refusal(MISTRAL_LARGE, vllm, Layout(tp)) is None


def test_no_node_gets_tp_3_or_6_for_a_mistral_large_shape(catalog):
    model = dataclasses.replace(catalog.llms["llama-3.3-70b"], architecture=MISTRAL_LARGE, params_override=None)
    for r in fit_all(catalog, workload(catalog, model, "fp8", concurrency=4)):
        assert r.tensor_parallel not in (3, 6), r.node


def test_qwen3_235b_fp8_never_gets_a_layout_vllm_refuses(catalog):
    """vLLM refuses TP 8 for the FP8 checkpoint: "192 is not divisible by weight quantization
    block_n = 128" (the expert width 1,536 / 8); GPUStack's page adds expert parallelism for TP 8."""
    model = catalog.llms["qwen3-235b-a22b"]
    block = model.checkpoint("fp8").block_n
    width = model.architecture.moe.expert_intermediate
    for context, users in ((4096, 1), (8192, 8), (32768, 16), (16384, 64)):
        for r in fit_all(catalog, workload(catalog, model.id, "fp8", context, users)):
            if r.verdict != "none" and r.expert_parallel == 1:
                assert (width // r.tensor_parallel) % block == 0, (r.node, r.tensor_parallel)


def test_qwen3_235b_fp8_at_64_users_of_16k_on_8x_h100_is_two_replicas_of_tp4(catalog):
    """vLLM pages the KV cache: a request holds its prompt and its answer so far, not the whole
    16k context. A TP 4 replica holds fewer than 32 whole contexts (so a cache of whole contexts
    would need TP 4 x PP 2), but admits its 32 users at the default lengths: two groups of TP 4
    (two replicas, or two data-parallel attention ranks with the experts over all 8 cards)."""
    work = workload(catalog, "qwen3-235b-a22b", "fp8", 16384, 64)
    node = catalog.node("8x-h100-sxm")
    r = fit_node(catalog, work, node)
    assert (r.tensor_parallel, r.pipeline_parallel, r.replicas * r.data_parallel) == (4, 1, 2)
    assert r.max_concurrency >= 64 and not r.queue_s
    r = fit_node(catalog, workload(catalog, "qwen3-235b-a22b", "fp8", 16384, 64, layout=(4, 1, 1)), node)
    assert r.replicas == 2 and r.max_concurrency >= 64 and not r.queue_s
    kv_token = 94 * 4 * 128 * 2 * 2 / 4  # layers x KV heads x head size x (K, V) x 2 bytes, over 4 cards
    assert (r.capacity_gb - r.weights_gb - r.reserve_gb) * 1e9 / (16384 * kv_token) < 32


def test_search_order_is_fewest_cards_then_fewest_stages(catalog):
    vllm, llama = catalog.runtimes["vllm"], catalog.runtimes["llama-cpp"]
    order = [(lay.tp, lay.pp, lay.ep) for lay in candidates(8, vllm, moe=True)]
    assert order[:3] == [(1, 1, 1), (2, 1, 1), (1, 2, 1)]
    assert order.index((4, 2, 1)) < order.index((8, 1, 8))  # sliced experts first at 8 cards
    ranks = [lay for lay in candidates(8, vllm, moe=True) if lay.dp > 1]  # then data-parallel attention
    assert [(lay.dp, lay.tp, lay.ep) for lay in ranks if lay.cards == 8] == [(8, 1, 8), (4, 2, 8), (2, 4, 8)]
    assert all(lay.pp == 1 and lay.ep == lay.cards for lay in ranks)
    assert all(lay.dp == 1 for lay in candidates(8, vllm, moe=False))  # dense models: never
    assert all(8 % (tp * pp) == 0 for tp, pp, _ in order)  # the node's other cards hold whole replicas
    assert [(lay.tp, lay.pp) for lay in candidates(4, llama, moe=False)] == [(1, 1), (1, 2), (1, 4)]


@pytest.mark.parametrize("fmt", ["gguf-q4_k_m", "gguf-q8_0"])
def test_llama_cpp_only_ever_splits_layers(catalog, fmt):
    for r in fit_all(catalog, workload(catalog, "llama-3.3-70b", fmt)):
        if r.verdict != "none":
            assert r.runtime == "llama-cpp" and r.tensor_parallel == 1


def test_seventy_b_q4_k_m_fits_where_llama_cpp_runs_it(catalog):
    """XiongjieDai/GPU-Benchmarks-on-LLM-Inference (llama-bench): Llama 3 70B Q4_K_M runs on two
    RTX 4090, on one L40S and on one RTX 6000 Ada (about 19, 15 and 18 tok/s)."""
    results = {r.node: r for r in fit_all(catalog, workload(catalog, "llama-3.3-70b", "gguf-q4_k_m"))}
    for node in ("2x-rtx-4090", "1x-l40s", "1x-rtx-6000-ada"):
        assert results[node].verdict != "none", results[node].reason
    assert results["1x-rtx-4090"].verdict == "none"  # the same README: out of memory on one 4090


def test_eight_b_bf16_fits_one_l4_at_1024_tokens(catalog):
    """vLLM serves Llama 3.1 8B in BF16 on a 24 GB card with a short --max-model-len: on an RTX
    3090 (23.58 GiB) it starts at 20,000 tokens with 3.81 GiB of KV cache
    (github.com/vllm-project/vllm/issues/10517); an L4 (22.49 GiB) holds it at 1,024."""
    r = fit_node(catalog, workload(catalog, "llama-3.1-8b", "bf16", 1024), catalog.node("1x-l4"))
    assert r.verdict == "single"
    assert r.max_context >= 1024


def test_the_reserve_is_counted_per_card_of_each_replica(catalog):
    """vLLM's activation peak is per card (llm-d measured 4.84 GiB per card at TP 2 for a 70B,
    as at TP 1 for an 8B): splitting the weights does not split the reserve."""
    work = workload(catalog, "llama-3.3-70b", "bf16", layout=(4, 1, 1))
    r = fit_node(catalog, work, catalog.node("4x-h100-sxm"))
    one = fit_node(catalog, workload(catalog, "llama-3.1-8b", "bf16"), catalog.node("4x-h100-sxm"))
    assert r.reserve_gb >= one.reserve_gb * 0.9
