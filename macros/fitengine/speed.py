"""Speed: what collectives cost on a link (the serving model in serving.py prices them)."""

from __future__ import annotations

from .topology import GroupLink
from .units import GB


def allreduce_seconds(message_bytes: float, cards: int, link: GroupLink) -> float:
    """Ring all-reduce time: 2(n-1) x latency + 2(n-1)/n x bytes / per-direction bandwidth.

    nccl-tests' bus-bandwidth model (doc/PERFORMANCE.md): a ring takes 2(n-1) steps, each paying
    the link's latency and carrying 1/n of the message.
    """
    if cards <= 1:
        return 0.0
    steps = 2 * (cards - 1)
    return steps * link.latency_s + steps / cards * message_bytes / (link.per_direction_gbps * GB)


def all_to_all_seconds(message_bytes: float, cards: int, link: GroupLink) -> float:
    """All-to-all time (expert parallelism's dispatch or combine): (n-1) x latency + (n-1)/n x bytes / bandwidth."""
    if cards <= 1:
        return 0.0
    return (cards - 1) * link.latency_s + (cards - 1) / cards * message_bytes / (link.per_direction_gbps * GB)


def send_seconds(message_bytes: float, link: GroupLink) -> float:
    """One point-to-point transfer between pipeline stages."""
    return link.latency_s + message_bytes / (link.per_direction_gbps * GB)


def gradient_allreduce_seconds(params: float, gradient_bytes: int, cards: int, link: GroupLink) -> float:
    """Time of one data-parallel gradient all-reduce of `params` values per training step."""
    return allreduce_seconds(params * gradient_bytes, cards, link)
