"""What the engine understands of a model: its counts, attention, KV cache, experts and storage.

`describe` returns plain data (numbers, strings, lists) for the `model` command of the CLI and
for a page that shows "read from config.json": the same figures the fit arithmetic uses.
"""

from __future__ import annotations

from typing import Any

from .architecture import PARTS, Architecture
from .catalog import Format, Llm
from .checkpoint import unquantized_parts
from .memory import weight_bytes


def attention_kind(arch: Architecture) -> str:
    """`mla` (a cached latent), `mha` (one KV head per query head), `mqa` (one KV head) or `gqa`."""
    if arch.mla is not None:
        return "mla"
    if arch.kv_heads == arch.heads:
        return "mha"
    return "mqa" if arch.kv_heads == 1 else "gqa"


def kv_bytes_per_layer_token(arch: Architecture, kv_bytes: int) -> int:
    """KV cache bytes one layer keeps per token: K and V of every KV head, or MLA's latent."""
    if arch.mla is not None:
        return (arch.mla.kv_lora_rank + arch.mla.qk_rope_head_dim) * kv_bytes
    return 2 * arch.kv_heads * arch.head_dim * kv_bytes


def _attention(arch: Architecture) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": attention_kind(arch),
        "heads": arch.heads,
        "kv_heads": arch.kv_heads,
        "head_dim": arch.head_dim,
        "global_layers": arch.global_layers,
        "local_layers": arch.local_layers,
        "local_kind": ("chunked" if arch.chunked_attention else "sliding") if arch.local_layers else None,
        "window": arch.sliding_window if arch.local_layers else 0,
    }
    if arch.mla is not None:
        out["kv_lora_rank"] = arch.mla.kv_lora_rank
        out["qk_rope_head_dim"] = arch.mla.qk_rope_head_dim
    return out


def _kv(arch: Architecture, kv_bytes: int) -> dict[str, int]:
    """Bytes per token of context, by layer kind: local layers stop growing once their window is full."""
    per_layer = kv_bytes_per_layer_token(arch, kv_bytes)
    kinds = {"global": arch.global_layers * per_layer}
    if arch.local_layers:
        kinds["chunked" if arch.chunked_attention else "sliding"] = arch.local_layers * per_layer
    return kinds


def _moe(arch: Architecture) -> dict[str, Any] | None:
    m = arch.moe
    if m is None:
        return None
    return {
        "experts": m.experts,
        "top_k": m.top_k,
        "expert_intermediate": m.expert_intermediate,
        "shared_experts": m.shared_experts,
        "shared_intermediate": m.shared_width if m.shared_experts else 0,
        "moe_layers": arch.moe_layers,
        "dense_layers": m.dense_layers,
        "dense_intermediate": arch.intermediate if m.dense_layers else 0,
    }


def _storage(model: Llm, fmt: Format) -> dict[str, Any]:
    checkpoint = model.checkpoint(fmt.id)
    kept = unquantized_parts(model, fmt)
    from_checkpoint = checkpoint is not None and checkpoint.unquantized is not None
    out: dict[str, Any] = {
        "format": fmt.id,
        "bits_per_weight": fmt.bits_per_weight,
        "unquantized": list(kept),
        "unquantized_from": "checkpoint" if from_checkpoint else "format",
        "weight_bytes": weight_bytes(model.params, fmt, kept),
    }
    return out


def _quantization(model: Llm, fmt: Format | None) -> list[dict[str, Any]]:
    """The model's published checkpoints (the chosen format's alone when one is given)."""
    out = []
    for c in model.checkpoints:
        if fmt is not None and c.format != fmt.id:
            continue
        out.append(
            {
                "format": c.format or None,
                "method": c.method or None,
                "bits": c.bits or None,
                "group_size": c.group_size or None,
                "block_size": [c.block_n, c.block_k] if c.block_n else None,
                "unquantized": None if c.unquantized is None else list(c.unquantized),
                "partly_unquantized": list(c.partly_unquantized),
                "modules": list(c.modules),
                "source": c.source,
            }
        )
    return out


def describe(model: Llm, fmt: Format | None = None, kv_bytes: int = 2) -> dict[str, Any]:
    """The model as the engine reads it, in plain data.

    `kv_bytes` is the bytes per cached value (2 for a 16-bit KV cache). With a format, `storage`
    says which parts stay 16-bit (the model's checkpoint in that format when it says, else the
    format's default) and the weights' bytes.
    """
    arch = model.architecture
    params = model.params
    return {
        "id": model.id,
        "name": model.name,
        "params_total": params.total,
        "params_active": params.active,
        "params_by_part": {part: getattr(params, part) for part in PARTS},
        "layers": arch.layers,
        "hidden": arch.hidden,
        "vocab": arch.vocab,
        "tied_embeddings": arch.tied_embeddings,
        "max_context": model.max_context,
        "attention": _attention(arch),
        "kv_bytes_per_value": kv_bytes,
        "kv_bytes_per_token": _kv(arch, kv_bytes),
        "moe": _moe(arch),
        "native_format": model.native_format,
        "storage": _storage(model, fmt) if fmt is not None else None,
        "checkpoints": _quantization(model, fmt),
        "left_out": list(model.left_out),
    }


__all__ = ["attention_kind", "describe", "kv_bytes_per_layer_token"]
