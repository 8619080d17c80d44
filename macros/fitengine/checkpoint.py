"""Published checkpoints: what they keep in 16-bit and how their quantization scales are laid out.

A weight format says what checkpoints in it usually keep in 16-bit (`Format.unquantized`). A
model's own checkpoint may keep more or less: gpt-oss keeps attention and its routers in BF16
beside MXFP4 experts, Meta's Llama 3.1 405B FP8 keeps every attention block in BF16. A checkpoint
also fixes its scale layout (DeepSeek-V3's FP8 has one scale per 128 x 128 block, AWQ one per
group of 128 inputs), which a tensor-parallel split must respect. `Checkpoint` holds that, from
the catalog or from a config.json `quantization_config`; `unquantized_parts` is what the memory
arithmetic uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .architecture import PARTS, Architecture
from .errors import EngineError

if TYPE_CHECKING:
    from .catalog import Format, Llm


@dataclass(frozen=True)
class Checkpoint:
    """A published checkpoint of a model in one format.

    `unquantized` is None when the checkpoint says nothing: the format's default then applies.
    `block_n` x `block_k` is the scale block of block-quantized weights (output rows x input
    columns, config.json `weight_block_size`); `group_size` the inputs sharing one scale (AWQ,
    GPTQ); 0 when the checkpoint has none. A tensor-parallel split must keep every card's slice
    a whole number of blocks or groups.
    """

    format: str  # catalog format id ("" when the method matches none)
    unquantized: tuple[str, ...] | None = None
    method: str = ""  # quant_method as config.json names it
    bits: int = 0  # bits per quantized weight, 0 when not stated
    group_size: int = 0
    block_n: int = 0
    block_k: int = 0
    partly_unquantized: tuple[str, ...] = ()  # parts kept in 16-bit in some layers only
    intermediate: int = 0  # MLP width padded so that tensor-parallel slices split evenly (0: as the model)
    modules: tuple[str, ...] = ()  # the modules the checkpoint leaves unquantized, as it names them
    source: str = ""


def unquantized_parts(model: Llm, fmt: Format) -> tuple[str, ...]:
    """The parts of `model` kept in 16-bit in `fmt`: its checkpoint's when it says, else the format's."""
    checkpoint = model.checkpoint(fmt.id)
    if checkpoint is not None and checkpoint.unquantized is not None:
        return checkpoint.unquantized
    return fmt.unquantized


# quant_method -> (catalog format id by weight bits; bits when the config does not say)
_METHODS: dict[str, tuple[dict[int, str], int]] = {
    "fp8": ({8: "fp8"}, 8),
    "fbgemm_fp8": ({8: "fp8"}, 8),
    "awq": ({4: "awq-int4"}, 4),
    "gptq": ({4: "gptq-int4"}, 4),
    "mxfp4": ({4: "mxfp4"}, 4),
}
_LAYER = re.compile(r"(?:^|\.)(?:layers|h|blocks)\.(\d+)(?:\.|$)")
_WHOLE_LAYER = re.compile(r"(?:^|\.)(?:layers|h|blocks)\.(\d+)$")


def _number(qc: dict[str, Any], key: str, default: int = 0) -> int:
    value = qc.get(key)
    if value is None:
        return default
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not -1 <= value <= 1_000_000:
        raise EngineError(
            f"config.json 'quantization_config.{key}' must be a whole number, got {value!r}",
            "config_quant_not_whole",
            key=f"quantization_config.{key}",
        )
    return max(value, 0)  # -1 (GPTQ, AWQ): one scale per output channel, no groups


def _names(qc: dict[str, Any], key: str) -> tuple[str, ...]:
    value = qc.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise EngineError(
            f"config.json 'quantization_config.{key}' must be a list of module names, got {value!r}",
            "config_quant_modules",
            key=f"quantization_config.{key}",
        )
    return tuple(value)


def _block(value: Any, key: str) -> tuple[int, int]:
    if value is None:
        return 0, 0
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 1_000_000 for v in value)
    ):
        raise EngineError(
            f"config.json 'quantization_config.{key}' must be two whole numbers [n, k], got {value!r}",
            "config_quant_pair",
            key=f"quantization_config.{key}",
        )
    return value[0], value[1]


def _part_of(name: str) -> str:
    """The part of the model a module name belongs to ('router', 'layer' or 'other' outside PARTS)."""
    n = name.lower()
    if any(k in n for k in ("vision", "visual", "multi_modal", "mm_projector", "audio")):
        return "other"
    if _WHOLE_LAYER.search(n):
        return "layer"
    leaf = n.rsplit(".", 1)[-1]
    if "embed" in n or leaf in ("wte", "tok_embeddings"):
        return "embeddings"
    if "lm_head" in n or n == "output":
        return "lm_head"
    if "shared_expert" in n:
        return "mlp"
    if "router" in n or (leaf in ("gate", "gating") and ("mlp" in n or "moe" in n or n == leaf)):
        return "router"
    if "expert" in n:
        return "experts"
    if any(k in n for k in ("attn", "attention", "q_proj", "k_proj", "v_proj", "o_proj", "qkv")):
        return "attention"
    if any(k in n for k in ("mlp", "feed_forward", "ffn", "gate_proj", "up_proj", "down_proj")):
        return "mlp"
    return "other"


def _coverage(modules: tuple[str, ...], arch: Architecture) -> tuple[set[str], set[str]]:
    """(parts every layer keeps in 16-bit, parts some layers keep in 16-bit) from module names."""
    layers: dict[str, set[int]] = {part: set() for part in PARTS}
    full: set[str] = set()
    whole: set[int] = set()
    # In a MoE without shared experts or dense layers, the `mlp` part is the routers and norms.
    routers_are_mlp = arch.moe is not None and not arch.moe.shared_experts and not arch.moe.dense_layers
    for name in modules:
        part = _part_of(name)
        if part == "layer":
            match = _WHOLE_LAYER.search(name.lower())
            if match:
                whole.add(int(match.group(1)))
            continue
        if part == "router":
            if not routers_are_mlp:
                continue
            part = "mlp"
        if part not in layers:
            continue
        match = _LAYER.search(name.lower())
        if match is None or "*" in name:
            full.add(part)
        else:
            layers[part].add(int(match.group(1)))
    in_layers = ("attention", "mlp", "experts")
    partly: set[str] = set()
    for part in in_layers:
        kept = layers[part] | whole
        if len(kept) >= arch.layers:
            full.add(part)
        elif kept:
            partly.add(part)
    if arch.moe is None:
        full.discard("experts")
        partly.discard("experts")
    return full, partly - full


def _compressed_tensors(qc: dict[str, Any]) -> dict[str, Any]:
    """The weight scheme of a compressed-tensors config (its first config group)."""
    groups = qc.get("config_groups")
    if not isinstance(groups, dict) or not groups:
        return {}
    first = next(iter(groups.values()))
    weights = first.get("weights") if isinstance(first, dict) else None
    return weights if isinstance(weights, dict) else {}


def read_quantization(cfg: dict[str, Any], arch: Architecture) -> Checkpoint | None:
    """The checkpoint a config.json `quantization_config` describes, or None when it has none."""
    qc = cfg.get("quantization_config")
    if qc is None:
        return None
    if not isinstance(qc, dict):
        raise EngineError("config.json 'quantization_config' must be an object", "config_quant_not_object")
    method = qc.get("quant_method")
    if not isinstance(method, str) or not method:
        raise EngineError(
            "config.json 'quantization_config' has no 'quant_method': it names how the weights are stored",
            "config_quant_no_method",
        )
    method = method.lower()
    modules = _names(qc, "modules_to_not_convert") or _names(qc, "ignore") or _names(qc, "llm_int8_skip_modules")
    bits = _number(qc, "bits") or _number(qc, "w_bit")
    group = _number(qc, "group_size") or _number(qc, "q_group_size")
    block_n, block_k = _block(qc.get("weight_block_size"), "weight_block_size")
    fmt = ""
    if method == "compressed-tensors":
        weights = _compressed_tensors(qc)
        bits = bits or _number(weights, "num_bits")
        group = group or _number(weights, "group_size")
        if weights.get("block_structure") is not None:
            block_n, block_k = _block(weights.get("block_structure"), "config_groups weights.block_structure")
        kind = weights.get("type")
        fmt = {(8, "float"): "fp8", (4, "int"): "gptq-int4", (4, "float"): "nvfp4"}.get((bits, kind), "")
    elif method == "modelopt":
        # NVIDIA ModelOpt checkpoints: {"quant_method": "modelopt", "quant_algo": "NVFP4" | "FP8"}
        algo = str(qc.get("quant_algo", "")).upper()
        bits, fmt = {"NVFP4": (4, "nvfp4"), "FP8": (8, "fp8")}.get(algo, (bits, ""))
    elif method == "bitsandbytes":
        if qc.get("load_in_4bit") is True:
            bits = 4
            fmt = "nf4" if qc.get("bnb_4bit_quant_type") == "nf4" else ""
        elif qc.get("load_in_8bit") is True:
            bits = 8
    elif method in _METHODS:
        by_bits, default_bits = _METHODS[method]
        bits = bits or default_bits
        fmt = by_bits.get(bits, "")
    full, partly = _coverage(modules, arch)
    # These methods quantize linear layers: the embedding table stays 16-bit, and so does the
    # output head unless the config says it is quantized too.
    full.add("embeddings")
    if qc.get("lm_head") is not True:
        full.add("lm_head")
    return Checkpoint(
        format=fmt,
        unquantized=tuple(p for p in PARTS if p in full),
        method=method,
        bits=bits,
        group_size=group,
        block_n=block_n,
        block_k=block_k,
        partly_unquantized=tuple(p for p in PARTS if p in partly),
        modules=modules[:200],
        source="config.json quantization_config",
    )


__all__ = ["Checkpoint", "read_quantization", "unquantized_parts"]
