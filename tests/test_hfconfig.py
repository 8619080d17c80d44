"""Custom models: Hugging Face config.json parsing and models given by their totals."""

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from macros.fitengine import EngineError, from_hf_config, from_totals, kv_bytes_per_card

from .conftest import FIXTURES


def config(name):
    return json.loads((FIXTURES / "configs" / f"{name}.json").read_text())


def test_dense_gqa_config():
    model = from_hf_config(config("llama-3.1-8b"))
    a = model.architecture
    assert (a.layers, a.heads, a.kv_heads, a.head_dim) == (32, 32, 8, 128)
    assert model.max_context == 131072


def test_mla_moe_config():
    a = from_hf_config(config("deepseek-v3")).architecture
    assert a.mla is not None and a.mla.kv_lora_rank == 512
    assert a.moe is not None and (a.moe.experts, a.moe.top_k, a.moe.dense_layers) == (256, 8, 3)


def test_nested_text_config_and_layer_types():
    cfg = {
        "model_type": "gemma3",
        "text_config": {
            "model_type": "gemma3_text",
            "num_hidden_layers": 6,
            "hidden_size": 256,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "head_dim": 64,
            "vocab_size": 1000,
            "intermediate_size": 512,
            "sliding_window": 128,
            "layer_types": ["sliding_attention"] * 5 + ["full_attention"],
        },
    }
    a = from_hf_config(cfg).architecture
    assert (a.sliding_window, a.local_layers, a.tied_embeddings) == (128, 5, True)


@pytest.mark.parametrize(
    "key", ["num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size", "intermediate_size"]
)
def test_missing_key_is_named(key):
    cfg = config("llama-3.1-8b")
    del cfg[key]
    with pytest.raises(EngineError, match=key):
        from_hf_config(cfg)


@pytest.mark.parametrize("value", ["<script>alert(1)</script>", -4, 0, 1e300, 10**15, True, None, [], {"a": 1}, 3.5])
def test_hostile_values_are_refused(value):
    cfg = config("llama-3.1-8b")
    cfg["hidden_size"] = value
    with pytest.raises(EngineError, match="hidden_size"):
        from_hf_config(cfg)


def test_not_an_object():
    for cfg in ([], "text", 3, None):
        with pytest.raises(EngineError, match="JSON object"):
            from_hf_config(cfg)


@given(
    st.dictionaries(
        st.text(max_size=30),
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20)),
        max_size=12,
    )
)
def test_arbitrary_objects_never_crash(cfg):
    with contextlib.suppress(EngineError):
        from_hf_config(cfg)


def test_from_totals_keeps_the_totals():
    model = from_totals(total=46.7e9, active=12.9e9, layers=32, kv_heads=8, head_dim=128)
    assert model.params.total == int(46.7e9)
    assert model.params.active == int(12.9e9)
    assert model.architecture.heads % model.architecture.kv_heads == 0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"total": -1, "active": 1, "layers": 1, "kv_heads": 1, "head_dim": 1},
        {"total": 1e9, "active": 2e9, "layers": 1, "kv_heads": 1, "head_dim": 1},
        {"total": 1e9, "active": 1e9, "layers": 2.5, "kv_heads": 1, "head_dim": 1},
        {"total": float("nan"), "active": 1e9, "layers": 2, "kv_heads": 1, "head_dim": 1},
        {"total": 1e20, "active": 1e9, "layers": 2, "kv_heads": 1, "head_dim": 1},
        {"total": "1e9", "active": 1e9, "layers": 2, "kv_heads": 1, "head_dim": 1},
    ],
)
def test_from_totals_refuses_nonsense(kwargs):
    with pytest.raises(EngineError):
        from_totals(**kwargs)


def test_gemma_2_alternates_sliding_and_global_layers():
    # google/gemma-2-2b-it config.json has a sliding_window and no layer_types; transformers'
    # Gemma2 attention uses the window on layers 0, 2, 4... (`sliding_window if not bool(layer_idx % 2)`,
    # huggingface/transformers src/transformers/models/gemma2/modeling_gemma2.py).
    cfg = config("gemma-2-2b")
    a = from_hf_config(cfg).architecture
    sliding = [i for i in range(cfg["num_hidden_layers"]) if not i % 2]
    assert (a.sliding_window, a.local_layers, a.global_layers) == (4096, len(sliding), 26 - len(sliding))
    per_layer_token = 2 * cfg["num_key_value_heads"] * cfg["head_dim"] * 2
    for context in (1024, 8192):
        expected = a.global_layers * context * per_layer_token + len(sliding) * min(context, 4096) * per_layer_token
        assert kv_bytes_per_card(a, context, 2) == expected


def test_multimodal_config_is_read_through_its_text_config():
    # meta-llama/Llama-4-Scout-17B-16E config.json: the language model's shapes sit in text_config.
    model = from_hf_config(config("llama-4-scout"))
    a = model.architecture
    assert (a.layers, a.hidden, a.heads, a.kv_heads) == (48, 5120, 40, 8)
    assert a.moe is not None and (a.moe.experts, a.moe.top_k, a.moe.shared_experts) == (16, 1, 1)
    assert model.left_out == ("vision encoder",)
    # Chunked attention on the RoPE layers (no_rope_layers 1), three of every four.
    assert (a.local_layers, a.sliding_window, a.chunked_attention) == (36, 8192, True)


def test_llama_4_maverick_interleaves_dense_and_moe_layers():
    # meta-llama/Llama-4-Maverick-17B-128E: interleave_moe_layer_step 2, dense MLPs of intermediate_size_mlp.
    a = from_hf_config(config("llama-4-maverick")).architecture
    assert a.moe is not None and a.moe.dense_layers == 24
    assert (a.intermediate, a.moe.expert_intermediate) == (16384, 8192)


def test_unsupported_architecture_is_named():
    # EleutherAI/gpt-j-6b config.json (copy in ThanatosShinji/onnx-tool onnx_tool/model_configs.py):
    # its sizes are n_embd, n_layer, n_head.
    with pytest.raises(EngineError) as err:
        from_hf_config(config("gpt-j-6b"))
    message = str(err.value)
    assert "GPTJForCausalLM" in message and "'gptj'" in message and "cannot size" in message
    assert "num_hidden_layers" in message


def test_state_layers_are_refused_by_name():
    # Qwen3.5-4B's config marks its Gated DeltaNet layers "linear_attention" in layer_types, three
    # of every four (keys as copied from its Hugging Face config in ThanatosShinji/onnx-tool,
    # benchmark/llm_test.py); those layers keep a fixed state, not a KV cache per token.
    cfg = config("llama-3.1-8b") | {
        "architectures": ["Qwen3_5ForConditionalGeneration"],
        "model_type": "qwen3_5",
        "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 8,
        "linear_conv_kernel_dim": 4,
    }
    with pytest.raises(EngineError, match=r"Qwen3_5ForConditionalGeneration.*'linear_attention'"):
        from_hf_config(cfg)


NEW_KEYS = [
    "moe_layers",
    "interleave_moe_layer_step",
    "intermediate_size_mlp",
    "attention_chunk_size",
    "no_rope_layers",
    "no_rope_layer_interval",
    "layer_types",
    "shared_expert_intermediate_size",
    "mlp_only_layers",
    "decoder_sparse_step",
    "max_window_layers",
    "use_sliding_window",
    "architectures",
    "text_config",
    "vision_config",
]


@given(
    st.dictionaries(
        st.sampled_from(NEW_KEYS),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(min_value=-5, max_value=100),
            st.text(max_size=12),
            st.lists(
                st.one_of(st.integers(min_value=-2, max_value=60), st.booleans(), st.text(max_size=20)), max_size=50
            ),
            st.dictionaries(st.text(max_size=8), st.integers(), max_size=3),
        ),
        max_size=6,
    )
)
def test_layer_and_expert_keys_never_crash(overrides):
    # Over a real MoE config (Qwen/Qwen2-57B-A14B), any value of the keys this reader interprets
    # gives a model or a named refusal.
    with contextlib.suppress(EngineError):
        from_hf_config(config("qwen2-57b-a14b") | overrides)
