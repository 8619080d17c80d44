"""Weights and KV cache, against published per-token figures and measured engine reports."""

import pytest

from macros.fitengine import GIB, kv_bytes_per_card, kv_bytes_per_token, weight_bytes

# KV cache bytes per token in BF16 from the reference fact sheet (cross-checked there against a
# public KV-calculator's expected values).
KV_PER_TOKEN = {
    "llama-3.1-8b": 131072,
    "mixtral-8x7b": 131072,
    "llama-3.3-70b": 327680,
    "qwen2.5-72b": 327680,
    "llama-3.1-405b": 516096,
    "qwen3-32b": 262144,
    "qwen3-235b-a22b": 192512,
    "mistral-small-24b": 163840,
    "deepseek-v3": 70272,  # MLA: 61 x (512 + 64) x 2
}


@pytest.mark.parametrize("model_id", sorted(KV_PER_TOKEN))
def test_kv_per_token_matches_published(catalog, model_id):
    arch = catalog.llms[model_id].architecture
    assert kv_bytes_per_token(arch, catalog.assumptions.kv_bytes) == KV_PER_TOKEN[model_id]


def test_sliding_window_layers_stop_growing_past_the_window(catalog):
    gemma = catalog.llms["gemma-3-27b"].architecture
    kv = catalog.assumptions.kv_bytes
    # Within the window every layer grows with the context...
    assert kv_bytes_per_card(gemma, 1024, kv) == 1024 * 507904
    # ...past it only the 10 global layers do (81,920 bytes per token, fact sheet).
    grown = kv_bytes_per_card(gemma, 9216, kv) - kv_bytes_per_card(gemma, 1024, kv)
    assert grown == 8192 * 81920


def test_kv_heads_split_under_tensor_parallelism_but_never_below_one(catalog):
    arch = catalog.llms["qwen3-235b-a22b"].architecture  # 4 KV heads
    kv = catalog.assumptions.kv_bytes
    one = kv_bytes_per_card(arch, 4096, kv)
    assert kv_bytes_per_card(arch, 4096, kv, tp=4) == one / 4
    assert kv_bytes_per_card(arch, 4096, kv, tp=8) == one / 4  # replicated, one head per card


def test_mla_latent_is_replicated_on_every_tensor_parallel_card(catalog):
    arch = catalog.llms["deepseek-v3"].architecture
    kv = catalog.assumptions.kv_bytes
    assert kv_bytes_per_card(arch, 1000, kv, tp=8) == kv_bytes_per_card(arch, 1000, kv)


def test_fp8_llama_70b_weights_match_vllm_report(catalog):
    # llm-d capacity planner's measured vLLM run: 67.72 GiB of weights for Llama 3.3 70B FP8,
    # because embeddings and output head stay in 16-bit.
    model = catalog.llms["llama-3.3-70b"]
    assert weight_bytes(model.params, catalog.formats["fp8"]) / GIB == pytest.approx(67.72, rel=0.003)


def test_gguf_q4_k_m_size_matches_llama_cpp_table(catalog):
    # llama.cpp tools/quantize/README.md: Llama-3.1-8B Q4_K_M is 4.58 GiB.
    model = catalog.llms["llama-3.1-8b"]
    assert weight_bytes(model.params, catalog.formats["gguf-q4_k_m"]) / GIB == pytest.approx(4.58, rel=0.01)


def test_bf16_weights_are_two_bytes_per_parameter(catalog):
    # The seed guide: a 70B model in BF16 moves 140 GB (141 GB for 70.55B parameters).
    model = catalog.llms["llama-3.3-70b"]
    assert weight_bytes(model.params, catalog.formats["bf16"]) == 2 * model.params_total
