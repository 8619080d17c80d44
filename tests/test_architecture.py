"""Parameter counts from shapes, against the totals the model makers publish."""

import json

import pytest

from macros.fitengine import count_params, from_hf_config
from macros.fitengine.architecture import padded_expert_params

from .conftest import FIXTURES

# Published totals (and active counts for MoE): vendor figures, not engine output.
PUBLISHED = {
    "llama-3.1-8b": (8.03e9, None),
    "mixtral-8x7b": (46.7e9, 12.9e9),
    "deepseek-v3": (671e9, 37e9),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_config_json_counts_match_published_totals(name):
    config = json.loads((FIXTURES / "configs" / f"{name}.json").read_text())
    params = from_hf_config(config).params
    total, active = PUBLISHED[name]
    assert params.total == pytest.approx(total, rel=0.005)
    if active is not None:
        # DeepSeek's 37B counts the routed and shared experts read per token; ours adds the embeddings.
        assert params.active == pytest.approx(active, rel=0.03)
    else:
        assert params.active == params.total


def test_every_catalog_model_counts_to_its_published_total(catalog):
    for model in catalog.llms.values():
        assert count_params(model.architecture).total == pytest.approx(model.params_total, rel=0.005), model.id


def test_moe_active_share_is_what_the_makers_say(catalog):
    # Qwen3-235B-A22B: 22B active; gpt-oss-120b: 5.1B active without embeddings (OpenAI model card).
    qwen = catalog.llms["qwen3-235b-a22b"].params
    assert qwen.active == pytest.approx(22e9, rel=0.01)
    oss = catalog.llms["gpt-oss-120b"].params
    assert oss.active - oss.embeddings == pytest.approx(5.1e9, rel=0.01)


def test_tied_embeddings_are_counted_once(catalog):
    gemma = catalog.llms["gemma-3-27b"].params
    assert gemma.lm_head == 0
    assert gemma.total == pytest.approx(27e9, rel=0.005)


# Published totals (and active counts) whose configs need more than the common keys:
# Qwen2-57B-A14B (Qwen: 57B total, 14B active; shared expert of its own width), within 1 %;
# Llama 4 Scout 109B / 17B and Maverick 400B / 17B (Meta), within 2 %: Meta's totals include the
# vision encoder, which the count leaves out (34 layers of width 1,408 in vision_config, about
# 0.9B), so the language model alone comes out slightly under Scout's 109B.
WIDER = {
    "qwen2-57b-a14b": (57e9, 14e9, 0.01),
    "llama-4-scout": (109e9, 17e9, 0.02),
    "llama-4-maverick": (400e9, 17e9, 0.02),
}


@pytest.mark.parametrize("name", sorted(WIDER))
def test_shared_experts_and_interleaved_layers_match_published_totals(name):
    config = json.loads((FIXTURES / "configs" / f"{name}.json").read_text())
    params = from_hf_config(config).params
    total, active, tolerance = WIDER[name]
    assert params.total == pytest.approx(total, rel=tolerance)
    assert params.active == pytest.approx(active, rel=0.03)


def test_mxfp4_kernel_padding_of_gpt_oss(catalog):
    # vLLM's MXFP4 MoE (vllm/model_executor/layers/quantization/mxfp4.py, create_weights) pads
    # each card's expert width to a multiple of 64 with its Triton kernels, and both the width and
    # the hidden size to multiples of 256 with FlashInfer. gpt-oss's 2,880 is 45 x 64.
    oss = catalog.llms["gpt-oss-120b"]
    a, experts = oss.architecture, oss.params.experts
    assert padded_expert_params(a, tp=1, intermediate_multiple=1) == experts
    assert padded_expert_params(a, tp=1, intermediate_multiple=64) == experts
    flashinfer = padded_expert_params(a, tp=1, intermediate_multiple=256, hidden_multiple=256)
    assert flashinfer / experts == pytest.approx((3072 / 2880) ** 2, rel=1e-3)
    # Split over two cards, each slice of 1,440 is padded to 1,472 (a multiple of 64).
    assert padded_expert_params(a, tp=2, intermediate_multiple=64) / experts == pytest.approx(1472 / 1440, rel=1e-3)
