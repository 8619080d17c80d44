"""Collectives as the runtimes run them on a node's links (the serving model in serving.py prices them).

An all-reduce of a tensor-parallel group goes one of two ways:

- vLLM's own kernel (custom all-reduce) where the group is 2, 4, 6 or 8 cards all joined by
  NVLink and the message is at most its buffer: one kernel, a fixed time that grows a little with
  the cards, plus the message at a share of the NVLink rate (the runtime's constants);
- NCCL's ring otherwise (PCIe, larger messages such as a prefill chunk's, other runtimes):
  2(n-1) steps, the first n-1 of which set its small-message time (the link's latency per step;
  LL protocols pipeline the rest), and 2(n-1)/n of the message at the bus bandwidth NCCL reaches
  on the link (nccl-tests doc/PERFORMANCE.md).
"""

from __future__ import annotations

from .catalog import Runtime
from .topology import GroupLink
from .units import GB

CUSTOM_ALLREDUCE_CARDS = (2, 4, 6, 8)  # vllm custom_all_reduce.py: _SUPPORTED_WORLD_SIZES


def uses_custom_allreduce(message_bytes: float, cards: int, link: GroupLink, runtime: Runtime | None) -> bool:
    """Whether `runtime` runs this all-reduce with its own kernel rather than NCCL."""
    return (
        runtime is not None
        and runtime.custom_allreduce_max_bytes > 0
        and link.all_nvlink
        and cards in CUSTOM_ALLREDUCE_CARDS
        and message_bytes <= runtime.custom_allreduce_max_bytes
    )


def allreduce_seconds(message_bytes: float, cards: int, link: GroupLink, runtime: Runtime | None = None) -> float:
    """One all-reduce of `message_bytes` over `cards` cards, as `runtime` runs it (None: NCCL's ring)."""
    if cards <= 1:
        return 0.0
    ring = 2 * (cards - 1) / cards * message_bytes
    if runtime is not None and uses_custom_allreduce(message_bytes, cards, link, runtime):
        fixed = runtime.custom_allreduce_latency_s + (cards - 2) * runtime.custom_allreduce_latency_per_card_s
        return fixed + ring / (link.per_direction_gbps * GB * runtime.custom_allreduce_efficiency)
    return nccl_allreduce_seconds(message_bytes, cards, link)


def nccl_allreduce_seconds(message_bytes: float, cards: int, link: GroupLink) -> float:
    """NCCL's ring all-reduce: (n-1) steps of latency, and 2(n-1)/n of the message at its bus bandwidth."""
    if cards <= 1:
        return 0.0
    return (cards - 1) * link.latency_s + 2 * (cards - 1) / cards * message_bytes / bus_bandwidth(link)


def bus_bandwidth(link: GroupLink) -> float:
    """Bytes per second of bus bandwidth NCCL's ring reaches on the link (what nccl-tests reports as busbw)."""
    return link.per_direction_gbps * GB * link.busbw_share


def all_to_all_seconds(message_bytes: float, cards: int, link: GroupLink) -> float:
    """All-to-all time (expert parallelism's dispatch or combine): (n-1) x latency + (n-1)/n x bytes / bandwidth."""
    if cards <= 1:
        return 0.0
    return (cards - 1) * link.latency_s + (cards - 1) / cards * message_bytes / bus_bandwidth(link)


def allgather_seconds(gathered_bytes: float, cards: int, link: GroupLink) -> float:
    """NCCL's ring all-gather of `gathered_bytes` in all (each card's share of them to every
    card), or its reduce-scatter of as much: (n-1) steps of latency and (n-1)/n of the gathered
    bytes at the bus bandwidth (nccl-tests doc/PERFORMANCE.md: busbw = algbw x (n-1)/n for both)."""
    if cards <= 1:
        return 0.0
    return (cards - 1) * link.latency_s + (cards - 1) / cards * gathered_bytes / bus_bandwidth(link)


def send_seconds(message_bytes: float, link: GroupLink) -> float:
    """One point-to-point transfer between pipeline stages."""
    return link.latency_s + message_bytes / (link.per_direction_gbps * GB)


def gradient_allreduce_seconds(params: float, gradient_bytes: int, cards: int, link: GroupLink) -> float:
    """Time of one data-parallel gradient all-reduce of `params` values per training step (NCCL)."""
    return nccl_allreduce_seconds(params * gradient_bytes, cards, link)
