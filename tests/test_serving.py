"""The serving model, one mechanic at a time, each against a figure from outside the engine.

Published figures used here: Llama 3.1 8B has 8.03 B parameters and a 128,256 x 4,096
embedding table; Llama 3.3 70B has 80 layers and a hidden size of 8,192 (160 all-reduces of
16 KiB per token at two per layer: formulas sheet, Megatron-LM); Mixtral 8x7B has 46.7 B
parameters, 12.9 B active (Mistral AI), 8 experts with 2 chosen per token. The ring all-reduce
time is nccl-tests' model (doc/PERFORMANCE.md): 2(n-1) latencies and 2(n-1)/n of the bytes.
"""

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from macros.fitengine import allreduce_seconds, fit_all, fit_node, group_link, workload
from macros.fitengine.fit import replica
from macros.fitengine.layout import Layout


def ideal(catalog):
    """The catalog with a vLLM that reaches its card's peaks and pays no fixed costs."""
    vllm = dataclasses.replace(
        catalog.runtimes["vllm"],
        bandwidth_efficiency=1.0,
        compute_efficiency=1.0,
        layer_overhead_s=0.0,
        moe_layer_overhead_s=0.0,
        request_overhead_s=0.0,
        moe_compute_share=1.0,
    )
    return dataclasses.replace(catalog, runtimes={**catalog.runtimes, "vllm": vllm})


def test_a_single_stream_step_reads_the_weights_once_at_the_cards_bandwidth(catalog):
    c = ideal(catalog)
    node = c.node("4x-h100-sxm")
    serving = replica(c, workload(c, "llama-3.1-8b", "bf16"), node, Layout(1))
    step = serving.decode_step(1, 1)
    # 8.03 B parameters, the embedding table (128,256 x 4,096) read one row at a time, 2 bytes each.
    read = 2 * (8.03e9 - 128256 * 4096)
    bandwidth = c.gpus["h100-sxm"].memory_bandwidth_gbps * 1e9
    assert step.memory == pytest.approx(read / bandwidth, rel=0.01)
    assert step.bound == "memory"


def test_a_large_batch_is_bound_by_compute(catalog):
    c = ideal(catalog)
    serving = replica(c, workload(c, "llama-3.1-8b", "bf16", concurrency=512), c.node("4x-h100-sxm"), Layout(1))
    step = serving.decode_step(512, 1)
    # Two operations per parameter and token, at the card's dense BF16 rate.
    work = 2 * (8.03e9 - 128256 * 4096) * 512 / (c.gpus["h100-sxm"].bf16_tflops * 1e12)
    assert step.compute == pytest.approx(work, rel=0.01)
    assert step.bound == "compute"


def test_nvfp4_multiplies_at_the_fp4_rate_on_blackwell_and_at_bf16_elsewhere(catalog):
    # NVFP4 quantizes every linear layer but the embeddings and the LM head (its format entry);
    # Blackwell's tensor cores multiply it at the card's FP4 rate (gpus.yaml fp4_dense).
    c = ideal(catalog)
    work = workload(c, "llama-3.3-70b", "nvfp4", concurrency=512, layout=(1, 1, 1))
    head = 128256 * 8192  # Llama 3.3 70B's LM head, as large as its embedding table
    quantized = 70.55e9 - 2 * head
    b200 = c.gpus["b200"]
    step = replica(c, work, c.node("8x-b200"), Layout(1)).decode_step(512, 1)
    expected = 2 * 512 * (head / b200.bf16_tflops + quantized / b200.fp4_tflops) / 1e12
    assert step.compute == pytest.approx(expected, rel=0.01)
    # The H100 has no FP4 tensor cores: vLLM runs NVFP4 weight-only there, every product at BF16.
    h100 = c.gpus["h100-sxm"]
    assert h100.fp4_tflops is None
    step = replica(c, work, c.node("8x-h100-sxm"), Layout(1)).decode_step(512, 1)
    assert step.compute == pytest.approx(2 * 512 * (head + quantized) / (h100.bf16_tflops * 1e12), rel=0.01)


def test_mxfp4_experts_multiply_at_the_fp8_rate_on_the_b200_alone(catalog):
    # vLLM quantizes the experts' inputs to MXFP8 on the B200 (FlashInfer's MXFP4 x MXFP8 MoE) and
    # keeps them in BF16 on Hopper; attention and the LM head are not MXFP4 at all. FlashInfer's
    # kernels multiply experts padded to widths of 3,072 (vLLM's mxfp4.py rounds gpt-oss's 2,880 up
    # to a multiple of 256); Hopper's Triton kernels keep 2,880 (a multiple of 64) on one card.
    c = ideal(catalog)
    params = c.llms["gpt-oss-120b"].params
    experts = 2 * params.experts_active
    rest = 2 * (params.active - params.embeddings) - experts
    padded = (3 * 3072 * 3072 + 2 * 3072 + 3072) / (3 * 2880 * 2880 + 2 * 2880 + 2880)  # weights and biases
    work = workload(c, "gpt-oss-120b", "mxfp4", concurrency=256, layout=(1, 1, 1))
    b200, h200 = c.gpus["b200"], c.gpus["h200-sxm"]
    step = replica(c, work, c.node("8x-b200"), Layout(1)).decode_step(256, 1)
    expected = 256 * (rest / b200.bf16_tflops + experts * padded / b200.fp8_tflops) / 1e12
    assert step.compute == pytest.approx(expected, rel=0.01)
    step = replica(c, work, c.node("8x-h200-sxm"), Layout(1)).decode_step(256, 1)
    assert step.compute == pytest.approx(256 * (rest + experts) / (h200.bf16_tflops * 1e12), rel=0.01)


def test_mxfp4_moe_layers_take_flashinfers_fixed_time_on_the_b200_alone(catalog):
    # vLLM picks FlashInfer's fused MXFP4 MoE on SM 10.x (the B200), Triton's kernels on Hopper and
    # Marlin on the RTX Blackwell cards (SM 12.0; vllm issue 31085): gpt-oss-120b's 36 layers are
    # all MoE layers (its config.json: num_hidden_layers 36, every layer routed).
    vllm = catalog.runtimes["vllm"]
    assert vllm.flashinfer_moe_layer_overhead_s != vllm.moe_layer_overhead_s  # or the test tells nothing
    work = workload(catalog, "gpt-oss-120b", "mxfp4", concurrency=1, layout=(1, 1, 1))

    def fixed(node: str) -> float:
        return replica(catalog, work, catalog.node(node), Layout(1)).decode_step(1, 1).fixed

    per_layer = vllm.layer_overhead_s + vllm.sequence_overhead_s / 36
    assert fixed("8x-b200") == pytest.approx(36 * (per_layer + vllm.flashinfer_moe_layer_overhead_s))
    assert fixed("8x-h200-sxm") == pytest.approx(36 * (per_layer + vllm.moe_layer_overhead_s))
    marlin = vllm.moe_layer_overhead_s + vllm.marlin_moe_layer_overhead_s
    assert fixed("1x-rtx-pro-6000") == pytest.approx(36 * (per_layer + marlin))


@pytest.mark.parametrize(
    ("node", "gpu", "share"),
    [("8x-h100-sxm", "h100-sxm", "triton_moe_bandwidth_share"), ("8x-b200", "b200", "deepgemm_moe_bandwidth_share")],
)
def test_fp8_experts_are_read_at_their_kernels_bandwidth_share(catalog, node, gpu, share):
    # vLLM reads FP8 experts through Triton's fused_moe at decode batches on Hopper, through
    # DeepGEMM's grouped kernels on Blackwell (TritonOrDeepGemmExperts). Qwen3 235B A22B's
    # config.json: 94 layers, every one MoE, 8 of 128 experts per token, each expert three
    # 4,096 x 1,536 matrices: one token reads 8 x 3 x 4,096 x 1,536 x 94 bytes of FP8 experts, a
    # quarter of them on each of four cards with the experts dealt whole.
    vllm = catalog.runtimes["vllm"]
    reached = getattr(vllm, share)
    assert reached < 1  # or the test tells nothing
    one_token = 8 * 3 * 4096 * 1536 * 94
    full = dataclasses.replace(vllm, triton_moe_bandwidth_share=1.0, deepgemm_moe_bandwidth_share=1.0)
    at_full = dataclasses.replace(catalog, runtimes={**catalog.runtimes, "vllm": full})
    work = workload(catalog, "qwen3-235b-a22b", "fp8", concurrency=1, layout=(4, 1, 4))

    def memory(c) -> float:
        return replica(c, work, c.node(node), Layout(4, 1, 4)).decode_step(1, 1).memory

    bandwidth = catalog.gpus[gpu].memory_bandwidth_gbps * 1e9 * vllm.bandwidth_efficiency
    slower = memory(catalog) - memory(at_full)
    assert slower == pytest.approx(one_token / 4 * (1 / reached - 1) / bandwidth, rel=0.01)


def test_bf16_experts_are_read_like_any_weight(catalog):
    # Only the FP8 format names these kernels (formats.yaml triton_moe, deepgemm_moe).
    work = workload(catalog, "qwen3-235b-a22b", "bf16", concurrency=1, layout=(8, 1, 8))
    serving = replica(catalog, work, catalog.node("8x-h200-sxm"), Layout(8, 1, 8))
    bandwidth = catalog.gpus["h200-sxm"].memory_bandwidth_gbps * 1e9 * catalog.runtimes["vllm"].bandwidth_efficiency
    assert serving.decode_step(1, 1).memory == pytest.approx(serving.weights_read(1) / 8 / bandwidth, rel=1e-3)


def test_experts_touched_grow_with_the_batch(catalog):
    c = ideal(catalog)
    serving = replica(c, workload(c, "mixtral-8x7b", "bf16"), c.node("1x-h200-nvl"), Layout(1))
    embeddings = 32000 * 4096
    # One token: its 2 experts of 8, i.e. the 12.9 B active parameters.
    assert serving.weights_read(1) == pytest.approx(2 * (12.9e9 - embeddings), rel=0.015)
    # 64 tokens: 8 x (1 - (6/8)^64) of 8 experts, all of them in practice: the 46.7 B total.
    assert serving.weights_read(64) == pytest.approx(2 * (46.7e9 - embeddings), rel=0.015)
    # Four tokens: 8 x (1 - 0.75^4) = 5.47 experts per layer.
    share = 1 - 0.75**4
    expert_params = (46.7e9 - 12.9e9) * 8 / 6  # a token leaves 6 of the 8 experts unread
    shared = 46.7e9 - expert_params
    assert serving.weights_read(4) == pytest.approx(2 * (shared + share * expert_params - embeddings), rel=0.02)


def test_tensor_parallel_decode_pays_two_all_reduces_per_layer(catalog):
    c = ideal(catalog)
    node = c.node("8x-h100-sxm")
    serving = replica(c, workload(c, "llama-3.3-70b", "bf16", layout=(8, 1, 1)), node, Layout(8))
    link = group_link(c, node, 8)
    vllm = c.runtimes["vllm"]
    one = allreduce_seconds(8192 * 2, 8, link, vllm)  # one token's hidden state, 16-bit: vLLM's own kernel
    fixed = vllm.custom_allreduce_latency_s + 6 * vllm.custom_allreduce_latency_per_card_s
    assert one == pytest.approx(
        fixed + 14 / 8 * 16384 / (link.per_direction_gbps * 1e9 * vllm.custom_allreduce_efficiency)
    )
    assert serving.decode_step(1, 1).communication == pytest.approx(160 * one)


def test_prefill_is_compute_bound_and_sets_the_first_token(catalog):
    c = ideal(catalog)
    node = c.node("8x-h100-sxm")
    work = workload(c, "llama-3.3-70b", "bf16", 16384, layout=(8, 1, 1), input_tokens=8192, output_tokens=256)
    serving = replica(c, work, node, Layout(8))
    matmul = 2 * (70.55e9 - 128256 * 8192) * 8192 / 8 / (c.gpus["h100-sxm"].bf16_tflops * 1e12)
    seconds = serving.prefill_seconds(8192)
    assert seconds > matmul
    # Attention, the weights read once per chunk and the all-reduces add, but less than the work itself.
    assert seconds < 2 * matmul
    row = fit_node(c, work, node)
    assert row.ttft_s == pytest.approx(seconds)


def test_attention_runs_at_the_16_bit_rate_beside_fp8_products(catalog):
    # Llama 3.3 70B: 64 query heads of 128, 80 layers (config.json); a prompt's token pairs cost
    # 4 x 64 x 128 x 80 operations each (scores and values), at the BF16 rate since vLLM keeps the
    # queries, keys and values in 16 bits, while its FP8 products run at the FP8 rate.
    c = ideal(catalog)
    work = workload(c, "llama-3.3-70b", "fp8", 16384, layout=(8, 1, 1), input_tokens=8192, output_tokens=256)
    serving = replica(c, work, c.node("8x-h100-sxm"), Layout(8))
    h100 = c.gpus["h100-sxm"]
    pairs = 8192 * 8192 / 2
    step = serving.step(8192, 0.0, 0.0, communicate=False, prompt_pairs=pairs)
    products = 2 * (70.55e9 - 128256 * 8192) * 8192 / h100.fp8_tflops
    attention = 4 * 64 * 128 * 80 * pairs / h100.bf16_tflops
    assert step.compute == pytest.approx((products + attention) / 8 / 1e12, rel=0.01)


def test_users_are_spread_over_replicas(catalog):
    # Copies of one card each (the engine would split the model further for so few users).
    work16 = workload(catalog, "llama-3.1-8b", "bf16", concurrency=16, layout=(1, 1, 1))
    work8 = workload(catalog, "llama-3.1-8b", "bf16", concurrency=8, layout=(1, 1, 1))
    eight = fit_node(catalog, work16, catalog.node("8x-h100-sxm"))
    four = fit_node(catalog, work8, catalog.node("4x-h100-sxm"))
    assert (eight.replicas, eight.concurrency_per_replica) == (8, 2)
    assert (four.replicas, four.concurrency_per_replica) == (4, 2)
    assert eight.decode_tok_s_total == pytest.approx(2 * four.decode_tok_s_total)
    assert eight.decode_tok_s_per_user == pytest.approx(four.decode_tok_s_per_user)
    ten = workload(catalog, "llama-3.1-8b", "bf16", concurrency=10, layout=(1, 1, 1))
    uneven = fit_node(catalog, ten, catalog.node("8x-h100-sxm"))
    assert uneven.concurrency_per_replica == 2  # two replicas serve two users, six serve one
    assert eight.decode_tok_s_total > uneven.decode_tok_s_total > four.decode_tok_s_total


def test_time_to_first_token_grows_with_the_prompt_and_the_users(catalog):
    node = catalog.node("4x-h100-sxm")

    def ttft(users, prompt):
        work = workload(
            catalog, "llama-3.3-70b", "fp8", 16384, users, input_tokens=prompt, output_tokens=200, layout=(4, 1, 1)
        )
        return fit_node(catalog, work, node)

    short, long, busy = ttft(1, 1000), ttft(1, 8000), ttft(32, 8000)
    assert short.ttft_s < long.ttft_s < busy.ttft_s


# --- no row above what the card can do ----------------------------------------------------

MODELS = st.sampled_from(
    ["llama-3.1-8b", "llama-3.3-70b", "qwen3-235b-a22b", "deepseek-v3", "gemma-3-27b", "gpt-oss-120b", "mixtral-8x7b"]
)
FORMATS = st.sampled_from(["bf16", "fp8", "awq-int4", "gguf-q4_k_m", "mxfp4", "gguf-q8_0"])


@settings(max_examples=40, deadline=None)
@given(
    model=MODELS,
    fmt=FORMATS,
    context=st.sampled_from([1024, 4096, 16384, 32768]),
    users=st.sampled_from([1, 2, 8, 32, 128, 1024]),
)
def test_no_row_is_faster_than_its_cards(catalog, model, fmt, context, users):
    """Per user: a step reads at least the active weights (at the format's fewest bits) over the
    replica's cards' bandwidth. In total: every token needs two operations per active
    parameter, at the cards' highest dense rate."""
    context = min(context, catalog.llms[model].max_context)
    llm = catalog.llms[model]
    f = catalog.formats[fmt]
    weights = (llm.params.active - llm.params.embeddings) * min(f.bits_per_weight, 16) / 8
    for r in fit_all(catalog, workload(catalog, model, fmt, context, users)):
        if r.verdict == "none":
            continue
        gpu = catalog.gpus[r.gpu]
        bandwidth = r.tensor_parallel * gpu.memory_bandwidth_gbps * 1e9
        assert r.decode_tok_s_per_user <= bandwidth / weights, r.node
        peak = max(gpu.bf16_tflops, gpu.fp8_tflops or 0, gpu.fp4_tflops or 0) * 1e12
        cards = r.cards_used * r.replicas
        assert r.decode_tok_s_total <= cards * peak / (2 * (llm.params.active - llm.params.embeddings)), r.node
        assert math.isfinite(r.ttft_s) and r.ttft_s > 0
