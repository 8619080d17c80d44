"""Transformer architectures: their shapes, and the parameters those shapes imply.

A model's memory and speed follow from its shapes. This module holds the shapes
(`Architecture`) and counts parameters from them, split into the parts a weight
format may treat differently (embeddings, output head, attention, MLP, experts).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mla:
    """Multi-head latent attention (DeepSeek-V2/V3): what is cached is a latent, not K and V."""

    q_lora_rank: int  # 0 when queries are projected directly
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int


@dataclass(frozen=True)
class Moe:
    """Mixture of experts: `experts` routed experts of which `top_k` run per token."""

    experts: int
    top_k: int
    expert_intermediate: int
    shared_experts: int = 0
    dense_layers: int = 0  # layers with a dense MLP (of `Architecture.intermediate`) instead of experts
    expert_bias: bool = False  # biases on the expert projections (gpt-oss)
    router_bias: bool = False
    router_score_bias: bool = False  # DeepSeek-V3's e_score_correction_bias
    shared_intermediate: int = 0  # width of each shared expert; 0 when it is the routed experts' width
    shared_expert_gate: bool = False  # Qwen2-MoE: a one-output gate scaling the shared expert

    @property
    def shared_width(self) -> int:
        return self.shared_intermediate or self.expert_intermediate


@dataclass(frozen=True)
class Architecture:
    """The shapes of a decoder-only transformer, as a Hugging Face config.json gives them."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    intermediate: int
    tied_embeddings: bool = False
    qkv_bias: bool = False
    o_bias: bool = False
    qk_norm: bool = False
    attention_sinks: bool = False
    norms_per_layer: int = 2
    sliding_window: int = 0  # tokens kept by local layers; 0 when every layer is global
    local_layers: int = 0  # how many layers use the sliding window
    chunked_attention: bool = False  # local layers attend within fixed chunks of `sliding_window` tokens (Llama 4)
    mla: Mla | None = None
    moe: Moe | None = None

    @property
    def global_layers(self) -> int:
        return self.layers - self.local_layers

    @property
    def moe_layers(self) -> int:
        """Layers whose MLP is routed experts (0 for a dense model)."""
        return self.layers - self.moe.dense_layers if self.moe else 0


# The parts a weight format or a checkpoint may treat differently (keep in 16-bit, quantize).
PARTS = ("embeddings", "lm_head", "attention", "mlp", "experts")


@dataclass(frozen=True)
class Params:
    """Parameter counts by part. `experts_active` is what one token reads of `experts`."""

    embeddings: int
    lm_head: int
    attention: int
    mlp: int  # dense MLPs, shared experts, routers and norms
    experts: int
    experts_active: int

    @property
    def total(self) -> int:
        return self.embeddings + self.lm_head + self.attention + self.mlp + self.experts

    @property
    def active(self) -> int:
        return self.total - self.experts + self.experts_active


def _attention_params(a: Architecture) -> int:
    if a.mla is not None:
        m = a.mla
        qk_dim = m.qk_nope_head_dim + m.qk_rope_head_dim
        if m.q_lora_rank:
            q = a.hidden * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * a.heads * qk_dim
        else:
            q = a.hidden * a.heads * qk_dim
        kv = (
            a.hidden * (m.kv_lora_rank + m.qk_rope_head_dim)
            + m.kv_lora_rank
            + m.kv_lora_rank * a.heads * (m.qk_nope_head_dim + m.v_head_dim)
        )
        out = a.heads * m.v_head_dim * a.hidden
        return q + kv + out
    q_out = a.heads * a.head_dim
    kv_out = a.kv_heads * a.head_dim
    weights = a.hidden * q_out + 2 * a.hidden * kv_out + q_out * a.hidden
    bias = (q_out + 2 * kv_out if a.qkv_bias else 0) + (a.hidden if a.o_bias else 0)
    norm = 2 * a.head_dim if a.qk_norm else 0
    sinks = a.heads if a.attention_sinks else 0
    return weights + bias + norm + sinks


def _gated_mlp(hidden: int, intermediate: int, bias: bool = False) -> int:
    params = 3 * hidden * intermediate
    if bias:
        params += 2 * intermediate + hidden
    return params


def count_params(a: Architecture) -> Params:
    """Count the parameters the shapes imply (gated MLPs, RMS norms without bias)."""
    embeddings = a.vocab * a.hidden
    lm_head = 0 if a.tied_embeddings else a.vocab * a.hidden
    attention = a.layers * _attention_params(a)
    norms = a.layers * a.norms_per_layer * a.hidden + a.hidden
    if a.moe is None:
        mlp = a.layers * _gated_mlp(a.hidden, a.intermediate) + norms
        return Params(embeddings, lm_head, attention, mlp, 0, 0)
    m = a.moe
    moe_layers = a.moe_layers
    one_expert = _gated_mlp(a.hidden, m.expert_intermediate, m.expert_bias)
    router = a.hidden * m.experts + (m.experts if m.router_bias else 0)
    router += m.experts if m.router_score_bias else 0
    shared = m.shared_experts * _gated_mlp(a.hidden, m.shared_width)
    shared += a.hidden if m.shared_expert_gate and m.shared_experts else 0
    mlp = m.dense_layers * _gated_mlp(a.hidden, a.intermediate) + moe_layers * (router + shared) + norms
    experts = moe_layers * m.experts * one_expert
    experts_active = moe_layers * m.top_k * one_expert
    return Params(embeddings, lm_head, attention, mlp, experts, experts_active)


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def padded_expert_params(a: Architecture, tp: int, intermediate_multiple: int, hidden_multiple: int = 1) -> int:
    """Routed-expert parameters as a MoE kernel allocates them over `tp` cards, padding included.

    Some kernels pad each card's slice of an expert: vLLM's MXFP4 MoE rounds the intermediate
    width per card up to a multiple of 64 (Triton kernels), 128 (ROCm) or 256 with the hidden
    size to 256 too (FlashInfer on Blackwell) (vllm/model_executor/layers/quantization/mxfp4.py,
    `create_weights`). The multiples belong to the runtime; with multiples of 1 this is
    `count_params(a).experts`.
    """
    if a.moe is None:
        return 0
    m = a.moe
    per_card = _round_up(-(-m.expert_intermediate // tp), intermediate_multiple)
    hidden = _round_up(a.hidden, hidden_multiple)
    one_expert = 3 * hidden * per_card * tp
    if m.expert_bias:
        one_expert += 2 * per_card * tp + hidden
    return a.moe_layers * m.experts * one_expert
