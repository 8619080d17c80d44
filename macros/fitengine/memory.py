"""Memory: weight bytes under a format, KV cache bytes under a parallel layout."""

from __future__ import annotations

import math

from .architecture import PARTS, Architecture, Params, padded_expert_params
from .catalog import Format

UNQUANTIZED_BITS = 16.0


def bits_for(fmt: Format, part: str, unquantized: tuple[str, ...] | None = None) -> float:
    """Bits per weight the format gives to a part of the model.

    `unquantized`: the parts kept in 16-bit (a checkpoint's, see `checkpoint.unquantized_parts`);
    the format's own `unquantized` when not given.
    """
    kept = fmt.unquantized if unquantized is None else unquantized
    return UNQUANTIZED_BITS if part in kept else fmt.bits_per_weight


def weight_bytes(params: Params, fmt: Format, unquantized: tuple[str, ...] | None = None) -> float:
    """Bytes of all weights under the format (MoE: every expert counts)."""
    return sum(getattr(params, part) * bits_for(fmt, part, unquantized) for part in PARTS) / 8


def expert_weight_bytes(params: Params, fmt: Format, unquantized: tuple[str, ...] | None = None) -> float:
    """Bytes of the routed experts' weights under the format."""
    return params.experts * bits_for(fmt, "experts", unquantized) / 8


def weight_bytes_per_card(weights: float, experts: float, tp: int, pp: int, dp: int = 1) -> float:
    """One card's share of `weights` bytes (of which `experts` are routed experts') in a layout.

    Tensor parallelism slices every matrix over `tp` cards and pipeline stages split the layers;
    with data-parallel attention each of the `dp` ranks holds attention and the dense layers
    whole (its own tp slice of them) while the experts are spread over all dp x tp cards.
    """
    return (weights - experts) / (tp * pp) + experts / (tp * pp * dp)


def expert_padding(arch: Architecture, fmt: Format, gpu_architecture: str, tp: int) -> float:
    """How many times the unpadded size the routed experts are as the format's MoE kernels on a
    card of `gpu_architecture` lay them out over `tp` cards (1 where nothing is padded).

    vLLM pads each card's slice of an MXFP4 expert (formats.yaml `expert_pad`): the intermediate
    width to a multiple of 64 with Hopper's Triton kernels, and with Marlin's or FlashInfer's
    (`kernels`) to their own multiples, the hidden width too. The kernels read and multiply the
    padded matrices, and the card holds them."""
    if not fmt.expert_pad or arch.moe is None:
        return 1.0
    intermediate, hidden = fmt.pad_multiples(fmt.kernels_on(gpu_architecture))
    return padded_expert_params(arch, tp, intermediate, hidden) / padded_expert_params(arch, tp, 1)


def experts_touched(arch: Architecture, params: Params, batch: int | float) -> float:
    """Expert parameters a step reads with `batch` sequences in flight.

    Each of E experts is picked with probability k/E per token, so a layer touches about
    E(1 - (1 - k/E)^B) experts for B tokens.
    """
    if arch.moe is None or params.experts == 0:
        return 0.0
    e, k = arch.moe.experts, arch.moe.top_k
    touched = e * (1 - (1 - k / e) ** max(batch, 1))
    return params.experts * touched / e


def kv_bytes_per_card(arch: Architecture, context: int, kv_bytes: int, tp: int = 1, pp: int = 1) -> float:
    """KV cache of one sequence of `context` tokens, on one card of a tp x pp layout.

    GQA/MHA: 2 (K and V) x kv heads on the card x head_dim x bytes, per layer and token; under
    tensor parallelism each card holds kv_heads / tp heads, never fewer than one (heads are
    replicated when tp exceeds them). MLA caches one latent (kv_lora_rank + rope dim) per layer
    and token, the same on every tensor-parallel card. Sliding-window layers keep at most the
    window. Pipeline stages each hold their share of the layers.
    """
    if context <= 0:
        return 0.0
    window_tokens = min(context, arch.sliding_window) if arch.local_layers else 0
    token_layers = arch.global_layers * context + arch.local_layers * window_tokens
    if arch.mla is not None:
        per_token_layer = (arch.mla.kv_lora_rank + arch.mla.qk_rope_head_dim) * kv_bytes
    else:
        heads_on_card = math.ceil(arch.kv_heads / tp)
        per_token_layer = 2 * heads_on_card * arch.head_dim * kv_bytes
    return token_layers * per_token_layer / pp


def runtime_reserve_bytes(
    arch: Architecture, batched_tokens: int, per_vocab_token: float, per_hidden_token: float, fixed: float
) -> float:
    """What a runtime keeps on each card besides weights and KV cache.

    Activations of its largest batch (`batched_tokens` tokens: logits of the vocabulary and
    hidden states, per the runtime's measured bytes per token) plus a fixed share (CUDA graphs,
    memory outside the framework, communication buffers). Counted on every card of a replica.
    """
    return batched_tokens * (per_vocab_token * arch.vocab + per_hidden_token * arch.hidden) + fixed


def kv_bytes_per_token(arch: Architecture, kv_bytes: int) -> float:
    """KV cache bytes per token with every layer global (the figure tables usually quote)."""
    if arch.mla is not None:
        return arch.layers * (arch.mla.kv_lora_rank + arch.mla.qk_rope_head_dim) * kv_bytes
    return 2 * arch.layers * arch.kv_heads * arch.head_dim * kv_bytes


__all__ = [
    "PARTS",
    "bits_for",
    "expert_padding",
    "expert_weight_bytes",
    "experts_touched",
    "kv_bytes_per_card",
    "kv_bytes_per_token",
    "runtime_reserve_bytes",
    "weight_bytes",
    "weight_bytes_per_card",
]
