"""A model the catalog does not have: from a Hugging Face config.json, or from a few totals.

Every value is checked before use: a missing key is named, a value that is not a positive whole
number (or is absurdly large) is refused with the key and what was expected.
"""

from __future__ import annotations

import math
from typing import Any

from .architecture import Architecture, Mla, Moe, Params
from .catalog import Llm
from .errors import EngineError, shown

# Generous ceilings: far above any published model, low enough to refuse nonsense.
LIMITS = {
    "num_hidden_layers": 1000,
    "hidden_size": 262144,
    "num_attention_heads": 4096,
    "num_key_value_heads": 4096,
    "head_dim": 4096,
    "vocab_size": 10_000_000,
    "intermediate_size": 4_000_000,
    "moe_intermediate_size": 4_000_000,
    "max_position_embeddings": 100_000_000,
    "experts": 100_000,
    "kv_lora_rank": 65536,
    "q_lora_rank": 65536,
    "qk_nope_head_dim": 4096,
    "qk_rope_head_dim": 4096,
    "v_head_dim": 4096,
    "sliding_window": 100_000_000,
}
MAX_PARAMS = 100_000_000_000_000  # 100 trillion
DEFAULT_CONTEXT = 131072

_TIED_BY_DEFAULT = ("gemma", "gemma2", "gemma3", "gemma3_text")
_QKV_BIAS = ("qwen2", "qwen2_moe")
_QK_NORM = ("qwen3", "qwen3_moe", "gemma3", "gemma3_text", "olmo2")
_FOUR_NORMS = ("gemma2", "gemma3", "gemma3_text")


def _whole(
    cfg: dict[str, Any], key: str, default: int | None = None, minimum: int = 1, limit: str | None = None
) -> int:
    if key not in cfg or cfg[key] is None:
        if default is None:
            raise EngineError(f"config.json has no {key!r}: it is needed to size the model")
        return default
    value = cfg[key]
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngineError(f"config.json {key!r} must be a whole number, got {shown(value)}")
    ceiling = LIMITS.get(limit or key, 10**12)
    if not minimum <= value <= ceiling:
        raise EngineError(f"config.json {key!r} must be from {minimum} to {ceiling}, got {shown(value)}")
    return value


def _flag(cfg: dict[str, Any], key: str, default: bool) -> bool:
    value = cfg.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise EngineError(f"config.json {key!r} must be true or false, got {shown(value)}")
    return value


def _text(cfg: dict[str, Any], key: str) -> str:
    value = cfg.get(key)
    return value if isinstance(value, str) else ""


def _local_layers(cfg: dict[str, Any], layers: int) -> tuple[int, int]:
    """(sliding window, number of local layers) from the ways configs spell it."""
    window = cfg.get("sliding_window")
    if window is None or cfg.get("use_sliding_window") is False:
        return 0, 0
    window = _whole(cfg, "sliding_window")
    kinds = cfg.get("layer_types")
    if isinstance(kinds, list):
        if len(kinds) != layers or not all(isinstance(k, str) for k in kinds):
            raise EngineError(f"config.json 'layer_types' must list one attention type per layer ({layers})")
        local = sum(1 for k in kinds if "sliding" in k)
        return (window, local) if local else (0, 0)
    pattern = cfg.get("sliding_window_pattern")
    if pattern is not None:
        pattern = _whole(cfg, "sliding_window_pattern", limit="num_hidden_layers")
        return window, layers - layers // pattern
    return window, layers


def from_hf_config(cfg: Any, name: str | None = None) -> Llm:
    """A custom model from the parsed contents of a Hugging Face config.json (dense, GQA, MoE, MLA)."""
    if not isinstance(cfg, dict):
        raise EngineError("config.json must be a JSON object (the contents of the file, between braces)")
    if isinstance(cfg.get("text_config"), dict):
        cfg = {**cfg, **cfg["text_config"]}
    model_type = _text(cfg, "model_type")
    layers = _whole(cfg, "num_hidden_layers")
    hidden = _whole(cfg, "hidden_size")
    heads = _whole(cfg, "num_attention_heads")
    kv_heads = _whole(cfg, "num_key_value_heads", default=heads)
    if heads % kv_heads:
        raise EngineError(f"config.json 'num_key_value_heads' ({kv_heads}) must divide 'num_attention_heads' ({heads})")
    head_dim = _whole(cfg, "head_dim", default=max(hidden // heads, 1))
    vocab = _whole(cfg, "vocab_size")

    mla = None
    if cfg.get("kv_lora_rank") is not None:
        mla = Mla(
            q_lora_rank=_whole(cfg, "q_lora_rank", default=0, minimum=0),
            kv_lora_rank=_whole(cfg, "kv_lora_rank"),
            qk_nope_head_dim=_whole(cfg, "qk_nope_head_dim"),
            qk_rope_head_dim=_whole(cfg, "qk_rope_head_dim"),
            v_head_dim=_whole(cfg, "v_head_dim"),
        )

    moe = None
    expert_key = next((k for k in ("num_local_experts", "num_experts", "n_routed_experts") if cfg.get(k)), None)
    if expert_key is not None:
        experts = _whole(cfg, expert_key, limit="experts")
        top_k = _whole(cfg, "num_experts_per_tok", limit="experts")
        if top_k > experts:
            raise EngineError(f"config.json 'num_experts_per_tok' ({top_k}) exceeds the {experts} experts")
        dense_layers = _whole(cfg, "first_k_dense_replace", default=0, minimum=0, limit="num_hidden_layers")
        only_mlp = cfg.get("mlp_only_layers")
        if isinstance(only_mlp, list):
            dense_layers += len(only_mlp)
        if dense_layers >= layers:
            raise EngineError("config.json leaves no layer with experts")
        gpt_oss = model_type == "gpt_oss"
        moe = Moe(
            experts=experts,
            top_k=top_k,
            expert_intermediate=_whole(cfg, "moe_intermediate_size", default=None)
            if cfg.get("moe_intermediate_size") is not None
            else _whole(cfg, "intermediate_size"),
            shared_experts=_whole(cfg, "n_shared_experts", default=0, minimum=0, limit="experts"),
            dense_layers=dense_layers,
            expert_bias=gpt_oss,
            router_bias=gpt_oss,
            router_score_bias=model_type == "deepseek_v3",
        )
    needs_dense = moe is None or moe.dense_layers > 0
    intermediate = _whole(cfg, "intermediate_size") if needs_dense else _whole(cfg, "intermediate_size", default=1)
    window, local = _local_layers(cfg, layers)

    arch = Architecture(
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab=vocab,
        intermediate=intermediate,
        tied_embeddings=_flag(cfg, "tie_word_embeddings", model_type in _TIED_BY_DEFAULT),
        qkv_bias=_flag(cfg, "attention_bias", model_type in _QKV_BIAS or model_type == "gpt_oss"),
        o_bias=model_type == "gpt_oss",
        qk_norm=model_type in _QK_NORM,
        attention_sinks=model_type == "gpt_oss",
        norms_per_layer=4 if model_type in _FOUR_NORMS else 2,
        sliding_window=window,
        local_layers=local,
        mla=mla,
        moe=moe,
    )
    total = Llm(id="custom", name="", architecture=arch, params_total=0).params.total
    if total > MAX_PARAMS:
        raise EngineError(f"config.json describes {total:,} parameters, more than any model this site can size")
    max_context = _whole(cfg, "max_position_embeddings", default=DEFAULT_CONTEXT)
    label = name or _text(cfg, "_name_or_path") or model_type or "custom model"
    return Llm(id="custom", name=label[:120], architecture=arch, params_total=total, max_context=max_context)


def from_totals(
    total: float,
    active: float,
    layers: int,
    kv_heads: int,
    head_dim: int,
    max_context: int = DEFAULT_CONTEXT,
    name: str = "custom model",
) -> Llm:
    """A custom model from its totals: parameters (total, active), layers, KV heads, head dim.

    The hidden size, needed to price the all-reduces, is estimated from the dense rule of thumb
    params = 12 x layers x hidden^2; attention heads are taken as hidden / head_dim.
    """
    values = {
        "total": total,
        "active": active,
        "layers": layers,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "max_context": max_context,
    }
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise EngineError(f"{key} must be a positive number, got {shown(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise EngineError(f"{key} must be a positive number, got {shown(value)}")
    if total > MAX_PARAMS:
        raise EngineError(f"total must be at most {MAX_PARAMS:,} parameters, got {shown(total)}")
    if active > total:
        raise EngineError(f"active parameters ({shown(active)}) cannot exceed the total ({shown(total)})")
    for key in ("layers", "kv_heads", "head_dim", "max_context"):
        value = values[key]
        if value != int(value):
            raise EngineError(f"{key} must be a whole number, got {shown(value)}")
    if (
        layers > LIMITS["num_hidden_layers"]
        or kv_heads > LIMITS["num_key_value_heads"]
        or head_dim > LIMITS["head_dim"]
    ):
        raise EngineError("layers, KV heads or head dim is beyond any published model")
    layers, kv_heads, head_dim = int(layers), int(kv_heads), int(head_dim)
    hidden = max(head_dim, round(math.sqrt(active / (12 * layers)) / head_dim) * head_dim)
    heads = max(kv_heads, hidden // head_dim)
    heads -= heads % kv_heads
    arch = Architecture(
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab=1,
        intermediate=1,
    )
    total_i, active_i = int(total), int(active)
    params = Params(embeddings=0, lm_head=0, attention=0, mlp=active_i, experts=total_i - active_i, experts_active=0)
    return Llm(
        id="custom",
        name=name[:120],
        architecture=arch,
        params_total=total_i,
        max_context=int(max_context),
        params_override=params,
    )
