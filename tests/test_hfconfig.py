"""Custom models: Hugging Face config.json parsing and models given by their totals."""

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from macros.fitengine import EngineError, from_hf_config, from_totals

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
