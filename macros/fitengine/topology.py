"""Which link a group of cards in a node talks over."""

from __future__ import annotations

from dataclasses import dataclass

from .catalog import Catalog, Node


@dataclass(frozen=True)
class GroupLink:
    """The slowest link inside a group of cards: its name, per-direction rate, NCCL's latency per
    ring step and share of the rate, and whether every card of the group is NVLink-linked to the others."""

    link_id: str
    name: str
    per_direction_gbps: float
    latency_s: float
    busbw_share: float = 1.0
    all_nvlink: bool = False


def group_link(catalog: Catalog, node: Node, cards: int) -> GroupLink | None:
    """The slowest link among the first `cards` cards of the node (None for one card).

    Cards fill bridged groups and CPU sockets in order, so a group of two on a bridged node is
    one bridged pair, and a group larger than a socket's share crosses sockets.
    """
    if cards <= 1:
        return None
    if cards > node.count:
        raise ValueError(f"{node.id} has {node.count} cards, not {cards}")
    # Asked for every layout the searches try: each node's groups are worked out once a catalog.
    groups = catalog.memo.get("group_links")
    if groups is None:
        groups = catalog.memo["group_links"] = {}
    key = (node.id, cards)
    found = groups.get(key)
    if found is None:
        found = groups[key] = _group_link(catalog, node, cards)
    return found


def _group_link(catalog: Catalog, node: Node, cards: int) -> GroupLink:
    gpu = catalog.gpus[node.gpu]
    topology = catalog.topologies[node.topology]
    if gpu.nvlink is not None and topology.nvlink == "sxm":
        return _nvlink(catalog, gpu.nvlink.generation, gpu.nvlink.per_direction_gbps)
    if gpu.nvlink is not None and topology.nvlink == "bridge" and cards <= node.nvlink_group:
        return _nvlink(catalog, gpu.nvlink.generation, gpu.nvlink.per_direction_gbps)
    per_socket = node.count // node.sockets
    link = catalog.links["cross-socket"] if cards > per_socket else catalog.links[node.pcie]
    return GroupLink(link.id, link.name, link.per_direction_gbps, link.latency_s, link.busbw_share)


def _nvlink(catalog: Catalog, generation: int, per_direction_gbps: float) -> GroupLink:
    link = catalog.links[f"nvlink-{generation}"]
    return GroupLink(link.id, link.name, per_direction_gbps, link.latency_s, link.busbw_share, all_nvlink=True)
