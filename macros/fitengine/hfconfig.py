"""A model the catalog does not have: from a Hugging Face config.json, or from a few totals.

Every value is checked before use: a missing key is named, a value that is not a positive whole
number (or is absurdly large) is refused with the key and what was expected.
"""

from __future__ import annotations

import math
from typing import Any

from .architecture import Architecture, Mla, Moe, Params
from .catalog import Llm
from .checkpoint import read_quantization
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
MIN_PARAMS = 1_000_000  # a million, as small as published language models go (TinyStories-1M)
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
            raise EngineError(f"config.json has no {key!r}: it is needed to size the model", "config_missing", key=key)
        return default
    value = cfg[key]
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngineError(
            f"config.json {key!r} must be a whole number, got {shown(value)}", "config_not_whole", key=key
        )
    ceiling = LIMITS.get(limit or key, 10**12)
    if not minimum <= value <= ceiling:
        raise EngineError(
            f"config.json {key!r} must be from {minimum} to {ceiling}, got {shown(value)}",
            "config_range",
            key=key,
            minimum=minimum,
            maximum=ceiling,
        )
    return value


def _flag(cfg: dict[str, Any], key: str, default: bool) -> bool:
    value = cfg.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise EngineError(f"config.json {key!r} must be true or false, got {shown(value)}", "config_not_bool", key=key)
    return value


def _text(cfg: dict[str, Any], key: str) -> str:
    value = cfg.get(key)
    return value if isinstance(value, str) else ""


# Model types whose config.json this module reads in full; others are read when they carry the
# usual keys, and named when they do not.
KNOWN_TYPES = frozenset(
    {
        "llama", "llama4", "llama4_text", "mistral", "mistral3", "mixtral", "ministral", "ministral3",
        "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3", "gemma3_text",
        "deepseek_v2", "deepseek_v3", "gpt_oss", "phi3", "olmo2",
    }
)  # fmt: skip
_ATTENTION_KINDS = ("full_attention", "sliding_attention", "chunked_attention", "attention")
_STATE_SPACE_KEYS = ("ssm_state_size", "mamba_d_state", "linear_conv_kernel_dim", "ssm_cfg")


def _architecture_name(cfg: dict[str, Any]) -> str:
    """How the config names its architecture: `architectures[0]` and `model_type`."""
    names = cfg.get("architectures")
    name = names[0] if isinstance(names, list) and names and isinstance(names[0], str) else ""
    model_type = _text(cfg, "model_type")
    if name and model_type:
        return f"{name[:80]} (model_type {model_type[:40]!r})"
    if name:
        return name[:80]
    return f"model_type {model_type[:40]!r}" if model_type else "an unnamed architecture"


def _unsupported(cfg: dict[str, Any], what: str) -> str:
    """The refusal of an architecture in the engine's English (a page words its code)."""
    return f"config.json describes {_architecture_name(cfg)}, which this site cannot size: {what}"


def _refuse_unsupported(cfg: dict[str, Any]) -> None:
    """Refuse, in one sentence naming the architecture, what the parameter and KV arithmetic cannot hold."""
    name = _architecture_name(cfg)
    if cfg.get("is_encoder_decoder") is True:
        raise EngineError(
            _unsupported(cfg, "it is an encoder-decoder model, and the site sizes decoder-only language models"),
            "config_encoder_decoder",
            architecture=name,
        )
    kinds = cfg.get("layer_types")
    if isinstance(kinds, list):
        other = sorted({k for k in kinds if isinstance(k, str) and k not in _ATTENTION_KINDS})
        if other:
            listed = ", ".join(repr(k[:40]) for k in other[:4])
            raise EngineError(
                _unsupported(cfg, f"its {listed} layers keep a state, not a KV cache per token, and are not modeled"),
                "config_state_layers",
                architecture=name,
                kinds=listed,
            )
    state = next((k for k in _STATE_SPACE_KEYS if k in cfg), None)
    if state is not None:
        raise EngineError(
            _unsupported(cfg, f"it has state-space or linear-attention layers ({state!r}), which are not modeled"),
            "config_linear_attention",
            architecture=name,
            key=state,
        )
    if _text(cfg, "model_type") in KNOWN_TYPES:
        return
    for key in ("num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size"):
        if cfg.get(key) is None:
            raise EngineError(
                _unsupported(cfg, f"it has no {key!r} (the usual Hugging Face key for its size)"),
                "config_no_size_key",
                architecture=name,
                key=key,
            )


def _local_layers(cfg: dict[str, Any], layers: int) -> tuple[int, int, bool]:
    """(window, number of local layers, whether they are chunked) from the ways configs spell it.

    Gemma 2 alternates sliding and full layers without saying so: its layers 0, 2, 4... use the
    window (transformers' Gemma2 attention: `sliding_window if not bool(layer_idx % 2)`). Llama 4
    attends within chunks of `attention_chunk_size` tokens on its RoPE layers (`no_rope_layers`
    1), three of every four by default; its other layers are global.
    """
    chunk = cfg.get("attention_chunk_size")
    kinds = cfg.get("layer_types")
    if isinstance(kinds, list):
        if len(kinds) != layers or not all(isinstance(k, str) for k in kinds):
            raise EngineError(
                f"config.json 'layer_types' must list one attention type per layer ({layers})",
                "config_layer_types",
                layers=layers,
            )
        chunked = sum(1 for k in kinds if k == "chunked_attention")
        if chunked:
            return _whole(cfg, "attention_chunk_size", limit="sliding_window"), chunked, True
        local = sum(1 for k in kinds if "sliding" in k)
        if not local or cfg.get("sliding_window") is None:
            return 0, 0, False
        return _whole(cfg, "sliding_window"), local, False
    if chunk is not None:
        window = _whole(cfg, "attention_chunk_size", limit="sliding_window")
        rope = cfg.get("no_rope_layers")
        if isinstance(rope, list) and len(rope) == layers and all(v in (0, 1) for v in rope):
            local = sum(1 for v in rope if v)
        else:
            interval = _whole(cfg, "no_rope_layer_interval", default=4, limit="num_hidden_layers")
            local = layers - layers // interval
        return (window, local, True) if local else (0, 0, False)
    window = cfg.get("sliding_window")
    if window is None or cfg.get("use_sliding_window") is False:
        return 0, 0, False
    window = _whole(cfg, "sliding_window")
    pattern = cfg.get("sliding_window_pattern")
    if pattern is not None:
        pattern = _whole(cfg, "sliding_window_pattern", limit="num_hidden_layers")
        return window, layers - layers // pattern, False
    if _text(cfg, "model_type") == "gemma2":
        return window, (layers + 1) // 2, False
    if cfg.get("use_sliding_window") is True and cfg.get("max_window_layers") is not None:
        # Qwen2: layers from `max_window_layers` on use the window.
        first = _whole(cfg, "max_window_layers", minimum=0, limit="num_hidden_layers")
        local = max(layers - first, 0)
        return (window, local, False) if local else (0, 0, False)
    return window, layers, False


def _moe_layers(cfg: dict[str, Any], layers: int) -> int:
    """How many layers hold experts (the rest have a dense MLP)."""
    listed = cfg.get("moe_layers")
    if isinstance(listed, list) and listed:
        if not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < layers for i in listed):
            raise EngineError(
                f"config.json 'moe_layers' must list layer numbers below {layers}", "config_moe_layers", layers=layers
            )
        return len(set(listed))
    step = cfg.get("interleave_moe_layer_step")
    if step is not None:  # Llama 4: every `step`-th layer, from layer step - 1
        step = _whole(cfg, "interleave_moe_layer_step", limit="num_hidden_layers")
        return len(range(step - 1, layers, step))
    first_dense = _whole(cfg, "first_k_dense_replace", default=0, minimum=0, limit="num_hidden_layers")
    sparse_step = _whole(cfg, "decoder_sparse_step", default=1, limit="num_hidden_layers")
    only_mlp = cfg.get("mlp_only_layers")
    dense = {i for i in only_mlp if isinstance(i, int)} if isinstance(only_mlp, list) else set()
    return sum(1 for i in range(first_dense, layers) if i not in dense and (i + 1) % sparse_step == 0)


def _moe(cfg: dict[str, Any], layers: int, model_type: str) -> Moe | None:
    expert_key = next((k for k in ("num_local_experts", "num_experts", "n_routed_experts") if cfg.get(k)), None)
    if expert_key is None:
        return None
    experts = _whole(cfg, expert_key, limit="experts")
    top_k = _whole(cfg, "num_experts_per_tok", limit="experts")
    if top_k > experts:
        raise EngineError(
            f"config.json 'num_experts_per_tok' ({top_k}) exceeds the {experts} experts",
            "config_top_k",
            top_k=top_k,
            experts=experts,
        )
    moe_layers = _moe_layers(cfg, layers)
    if moe_layers == 0:
        raise EngineError("config.json leaves no layer with experts", "config_no_moe_layers")
    gpt_oss = model_type == "gpt_oss"
    llama4 = model_type in ("llama4", "llama4_text")
    if cfg.get("moe_intermediate_size") is not None:
        width = _whole(cfg, "moe_intermediate_size")
    else:
        width = _whole(cfg, "intermediate_size")
    shared = _whole(cfg, "n_shared_experts", default=0, minimum=0, limit="experts")
    shared_width = 0
    if cfg.get("shared_expert_intermediate_size"):  # Qwen2-MoE: one shared expert of its own width
        shared_width = _whole(cfg, "shared_expert_intermediate_size", limit="intermediate_size")
        shared = max(shared, 1)
    elif llama4:  # Llama 4: one shared expert as wide as a routed one
        shared = max(shared, 1)
    return Moe(
        experts=experts,
        top_k=top_k,
        expert_intermediate=width,
        shared_experts=shared,
        dense_layers=layers - moe_layers,
        expert_bias=gpt_oss,
        router_bias=gpt_oss,
        router_score_bias=model_type == "deepseek_v3",
        shared_intermediate=shared_width,
        shared_expert_gate=model_type == "qwen2_moe" and shared > 0,
    )


def _dense_width(cfg: dict[str, Any], moe: Moe | None, model_type: str) -> int:
    """The width of the dense MLP (every layer's, or the MoE model's dense layers')."""
    if moe is None or moe.dense_layers > 0:
        if model_type in ("llama4", "llama4_text") and cfg.get("intermediate_size_mlp") is not None:
            return _whole(cfg, "intermediate_size_mlp", limit="intermediate_size")
        return _whole(cfg, "intermediate_size")
    return _whole(cfg, "intermediate_size", default=1)


def from_hf_config(cfg: Any, name: str | None = None) -> Llm:
    """A custom model from the parsed contents of a Hugging Face config.json.

    Dense, GQA, MLA and MoE decoders (shared experts, interleaved MoE layers), sliding, alternating
    and chunked attention; a multimodal config is read through its `text_config` (the vision
    encoder is left out of the count and said so); a `quantization_config` becomes the model's
    checkpoint in the matching format. Anything else is refused in one sentence that names the
    architecture and what cannot be sized.
    """
    if not isinstance(cfg, dict):
        raise EngineError(
            "config.json must be a JSON object (the contents of the file, between braces)", "config_not_object"
        )
    left_out: tuple[str, ...] = ()
    if isinstance(cfg.get("text_config"), dict):
        if isinstance(cfg.get("vision_config"), dict):
            left_out = ("vision encoder",)
        cfg = {**cfg, **cfg["text_config"]}
    _refuse_unsupported(cfg)
    model_type = _text(cfg, "model_type")
    layers = _whole(cfg, "num_hidden_layers")
    hidden = _whole(cfg, "hidden_size")
    heads = _whole(cfg, "num_attention_heads")
    kv_heads = _whole(cfg, "num_key_value_heads", default=heads)
    if heads % kv_heads:
        raise EngineError(
            f"config.json 'num_key_value_heads' ({kv_heads}) must divide 'num_attention_heads' ({heads})",
            "config_kv_heads_divide",
            kv_heads=kv_heads,
            heads=heads,
        )
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

    moe = _moe(cfg, layers, model_type)
    intermediate = _dense_width(cfg, moe, model_type)
    window, local, chunked = _local_layers(cfg, layers)

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
        chunked_attention=chunked,
        mla=mla,
        moe=moe,
    )
    total = Llm(id="custom", name="", architecture=arch, params_total=0).params.total
    if total > MAX_PARAMS:
        raise EngineError(
            f"config.json describes {total:,} parameters, more than any model this site can size",
            "config_too_many_params",
            total=total,
        )
    max_context = _whole(cfg, "max_position_embeddings", default=DEFAULT_CONTEXT)
    checkpoint = read_quantization(cfg, arch)
    label = name or _text(cfg, "_name_or_path") or model_type or "custom model"
    return Llm(
        id="custom",
        name=label[:120],
        architecture=arch,
        params_total=total,
        native_format=checkpoint.format if checkpoint is not None and checkpoint.format else "bf16",
        max_context=max_context,
        checkpoints=(checkpoint,) if checkpoint is not None else (),
        left_out=left_out,
    )


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
            raise EngineError(f"{key} must be a positive number, got {shown(value)}", "totals_positive", key=key)
        if isinstance(value, float) and not math.isfinite(value):
            raise EngineError(f"{key} must be a positive number, got {shown(value)}", "totals_positive", key=key)
    for key in ("total", "active"):
        if not MIN_PARAMS <= values[key] <= MAX_PARAMS:
            raise EngineError(
                f"{key} must be from {MIN_PARAMS:,} to {MAX_PARAMS:,} parameters, got {shown(values[key])}",
                "totals_range",
                key=key,
                minimum=MIN_PARAMS,
                maximum=MAX_PARAMS,
            )
    if active > total:
        raise EngineError(
            f"active parameters ({shown(active)}) cannot exceed the total ({shown(total)})", "active_exceeds_total"
        )
    for key in ("layers", "kv_heads", "head_dim", "max_context"):
        value = values[key]
        if value != int(value):
            raise EngineError(f"{key} must be a whole number, got {shown(value)}", "totals_not_whole", key=key)
    if (
        layers > LIMITS["num_hidden_layers"]
        or kv_heads > LIMITS["num_key_value_heads"]
        or head_dim > LIMITS["head_dim"]
    ):
        raise EngineError("layers, KV heads or head dim is beyond any published model", "totals_beyond_published")
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
