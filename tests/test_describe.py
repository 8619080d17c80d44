"""What the engine reads of a model: counts, attention, KV cache per token, experts, storage."""

import json

import pytest

from macros.fitengine import describe, from_hf_config

from .conftest import FIXTURES

# KV cache bytes per token with a 16-bit cache, from the project's reference fact sheet
# (/work/shared/reference/facts.md, section C, cross-checked there against a public KV
# calculator's expected values): Llama 3.1 8B 131,072; Llama 3.1 405B 516,096;
# Qwen3-235B-A22B 192,512; DeepSeek-V3 (MLA) 61 x (512 + 64) x 2 = 70,272.
KV_PER_TOKEN = {
    "llama-3.1-8b": 131_072,
    "llama-3.1-405b": 516_096,
    "qwen3-235b-a22b": 192_512,
    "deepseek-v3": 70_272,
}


def config(name):
    return json.loads((FIXTURES / "configs" / f"{name}.json").read_text())


@pytest.mark.parametrize("model_id", sorted(KV_PER_TOKEN))
def test_kv_per_token_matches_the_reference(catalog, model_id):
    d = describe(catalog.llms[model_id], kv_bytes=2)
    assert d["kv_bytes_per_token"] == {"global": KV_PER_TOKEN[model_id]}


def test_gemma_3_global_layers_are_told_apart_from_local_ones(catalog):
    # facts.md: Gemma 3 27B keeps 81,920 B per token on its 10 global layers; its local layers
    # stop at the 1,024-token window.
    d = describe(catalog.llms["gemma-3-27b"], kv_bytes=2)
    assert d["kv_bytes_per_token"]["global"] == 81_920
    assert d["attention"]["local_kind"] == "sliding" and d["attention"]["window"] == 1024
    assert d["attention"]["local_layers"] + d["attention"]["global_layers"] == d["layers"]


def test_attention_kinds(catalog):
    assert describe(catalog.llms["deepseek-v3"])["attention"]["kind"] == "mla"
    assert describe(catalog.llms["llama-3.3-70b"])["attention"]["kind"] == "gqa"


def test_experts_and_shared_expert_of_qwen2_moe():
    # Qwen/Qwen2-57B-A14B config.json: 64 experts, top-8, width 2,560, one shared expert of 20,480.
    d = describe(from_hf_config(config("qwen2-57b-a14b")))
    assert d["moe"]["experts"] == 64 and d["moe"]["top_k"] == 8
    assert (d["moe"]["shared_experts"], d["moe"]["shared_intermediate"]) == (1, 20480)


def test_storage_follows_the_checkpoint_when_it_says(catalog):
    # gpt-oss config.json: attention, routers, embeddings and lm_head are not converted to MXFP4.
    model = catalog.llms["gpt-oss-120b"]
    d = describe(model, catalog.formats["mxfp4"])
    assert d["storage"]["unquantized_from"] == "checkpoint"
    assert "experts" not in d["storage"]["unquantized"] and "attention" in d["storage"]["unquantized"]
    other = describe(model, catalog.formats["awq-int4"])
    assert other["storage"]["unquantized"] == list(catalog.formats["awq-int4"].unquantized)
    assert other["storage"]["unquantized_from"] == "format"


def test_plain_data_only(catalog):
    def plain(value):
        if isinstance(value, dict):
            return all(isinstance(k, str) and plain(v) for k, v in value.items())
        if isinstance(value, list):
            return all(plain(v) for v in value)
        return value is None or isinstance(value, (str, int, float, bool))

    for model in catalog.llms.values():
        assert plain(describe(model, catalog.formats[model.native_format])), model.id
