"""A runtime's defaults on a card: the tokens one step takes and the sequences one replica decodes
at once (vLLM gives cards of 70 GiB and more larger ones, the A100 excepted:
vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults)."""

from __future__ import annotations

from .catalog import Gpu, Runtime


def batched_tokens(runtime: Runtime, gpu: Gpu) -> int:
    """The runtime's default batch of tokens on this card (vLLM gives large cards more, A100 excepted)."""
    return runtime.batched_tokens_large if _large(runtime, gpu) else runtime.batched_tokens


def max_sequences(runtime: Runtime, gpu: Gpu) -> int:
    """Sequences one replica decodes at once by default (more users queue)."""
    return runtime.max_sequences_large if _large(runtime, gpu) else runtime.max_sequences


def _large(runtime: Runtime, gpu: Gpu) -> bool:
    return gpu.memory_usable_bytes >= runtime.large_card_bytes and gpu.architecture != "ampere"
