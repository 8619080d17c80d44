"""The verdict per node for a language model: one card, split, or no fit, with its figures.

Memory decides the layout: the runtime's cap on each card's memory, the card's share of the
weights, the runtime's own reserve (activations of its largest batch, CUDA graphs, buffers) and
the KV cache of the requests each replica admits at once (vLLM pages it: a request holds its
prompt and its answer so far; llama.cpp gives each slot a whole context). A layout holds the
workload when one request of the context fits; the first the runtime accepts (fewest cards, then
fewest pipeline stages) that admits all its users at once is chosen, else the one admitting the
most, and the users beyond wait. The node's other cards hold replicas, and the reader's users
are spread over them. Speed and prices then come from the serving model (`serving.py`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

from .catalog import Catalog, Format, Gpu, Node, Runtime
from .layout import Layout, candidates, refusal
from .load import at_target, choose_layout, serving_of, speed_at
from .reasons import Reason
from .serving import Serving
from .sizing import Sizing, fits_with_fp8_kv, kept
from .trust import trust
from .units import GB, SECONDS_PER_HOUR, hourly
from .workloads import MAX_CONCURRENCY, Workload, quant_block, resolve_runtime


@dataclass(frozen=True)
class NodeFit:
    """One node's answer. GB are 10^9 bytes; memory figures are per card.

    Speeds are tokens per second: `decode_tok_s_per_user` is what each user sees while their
    answer streams (the others' prompts included), `decode_tok_s_total` what the node produces
    for all users at once; `_no_comm` is the same per-user figure with free collectives (what
    the link costs is the difference). `tokens_per_hour` counts what the node serves for the
    workload, prompts and answers together: the hour's price over it is
    `usd_per_million_tokens_workload`; over the answers alone (the prompts' time included), it
    is `usd_per_million_output_tokens`.

    The target (Workload.min_tok_s, max_ttft_s): `meets_target` at the reader's users;
    `max_users_at_target` the most users the node serves within it on the row's layout;
    `best_usd_per_million_output_tokens` the lowest price per million answer tokens within it on
    that layout, at `best_concurrency` users (None and 0 where the layout never meets it).
    `speed_band` and `ttft_band` say how far measured points were from the engine's figures
    for a setup like this one (measured / engine, low and high: catalog/validation); where the
    validation covers no such setup, `band_covered` is false and the bands are the overall ones.
    """

    node: str
    gpu: str
    count: int
    runtime: str
    verdict: str  # single, split or none
    cards_used: int
    tensor_parallel: int
    pipeline_parallel: int
    expert_parallel: int
    replicas: int
    concurrency_per_replica: int
    need_gb: float
    capacity_gb: float
    weights_gb: float
    kv_gb: float
    reserve_gb: float
    decode_tok_s_per_user: float | None
    decode_tok_s_per_user_no_comm: float | None
    decode_tok_s_total: float | None
    ttft_s: float | None
    queue_s: float | None  # of ttft_s, the wait of users beyond those admitted at once
    bound: str | None  # memory, compute or communication: what limits the decode step
    allreduce_ms_per_token: float | None
    link: str | None
    max_concurrency: int
    meets_target: bool
    max_users_at_target: int
    tokens_per_hour: float | None
    speed_band: tuple[float, float] | None
    ttft_band: tuple[float, float] | None
    band_covered: bool
    price_month_usd: float
    price_hour_usd: float
    usd_per_million_tokens_workload: float | None
    usd_per_million_output_tokens: float | None
    best_usd_per_million_output_tokens: float | None
    best_concurrency: int
    max_context: int
    weight_only: bool
    reason: Reason
    notes: tuple[Reason, ...] = ()
    data_parallel: int = 1  # data-parallel attention ranks of each replica (1: none; 0: no fit)

    def to_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in _NODEFIT_FIELDS}
        data["reason"] = self.reason.to_dict()
        data["notes"] = [n.to_dict() for n in self.notes]
        for band in ("speed_band", "ttft_band"):
            if data[band] is not None:
                data[band] = list(data[band])
        return data


_NODEFIT_FIELDS = tuple(f.name for f in fields(NodeFit))
# What the node's price sets (price_fit); every other field is the same at any price.
PRICED_FIELDS = (
    "price_month_usd",
    "price_hour_usd",
    "usd_per_million_tokens_workload",
    "usd_per_million_output_tokens",
    "best_usd_per_million_output_tokens",
)


@dataclass(frozen=True)
class Unpriced:
    """A node's answer before its price: what `unpriced_fit` works out, which `price_fit` prices.

    `figures` holds every NodeFit field but PRICED_FIELDS (read it, never modify it); `load`
    and `best` are what the prices per token divide the hour by: the node's answer tokens per
    second at the reader's users, and at the cheapest load within the target (None where the
    node gives no such figure).
    """

    figures: dict[str, Any]
    load: float | None = None
    best: float | None = None


def format_support(gpu: Gpu, fmt: Format, is_moe: bool) -> Reason | None:
    """None when the card runs the format natively; else why it cannot, or the weight-only note."""
    params = {"gpu": gpu.name, "architecture": gpu.architecture, "format": fmt.name}
    if gpu.architecture in fmt.native:
        return None
    if gpu.architecture in fmt.weight_only:
        if is_moe and not fmt.weight_only_moe:
            return Reason("format_moe_weight_only", params)
        return Reason("weight_only", params)
    return Reason("format_unsupported", params)


def _accepted(work: Workload, runtime: Runtime, count: int) -> list[tuple[Layout, Reason | None]]:
    block = quant_block(work.model, work.format)
    arch = work.model.architecture
    if work.layout is not None:
        layouts: tuple[Layout, ...] = (work.layout,)
    else:
        layouts = candidates(count, runtime, arch.moe is not None)
    pad = work.format.expert_pad
    return [(lay, refusal(arch, runtime, lay, block, pad)) for lay in layouts if lay.cards <= count]


def fit_node(catalog: Catalog, work: Workload, node: Node, sizing: Sizing | None = None) -> NodeFit:
    """The verdict and figures for one node (`sizing`: the card's, when the caller shares it)."""
    return price_fit(catalog, work, node, unpriced_fit(catalog, work, node, sizing))


def price_fit(catalog: Catalog, work: Workload, node: Node, unpriced: Unpriced) -> NodeFit:
    """The node's answer at its price: its monthly and hourly price, and its prices per million tokens."""
    price_hour = hourly(node.price_month_usd, catalog.assumptions.hours_per_month)
    tokens = unpriced.figures["tokens_per_hour"]
    return NodeFit(
        **unpriced.figures,
        price_month_usd=node.price_month_usd,
        price_hour_usd=price_hour,
        usd_per_million_tokens_workload=price_hour / tokens * 1e6 if tokens else None,
        usd_per_million_output_tokens=_per_million(price_hour, unpriced.load),
        best_usd_per_million_output_tokens=_per_million(price_hour, unpriced.best),
    )


def _per_million(price_hour: float, tok_s: float | None) -> float | None:
    """The hour's price per million tokens made at `tok_s` tokens per second (None: no such figure)."""
    return price_hour / (tok_s * SECONDS_PER_HOUR) * 1e6 if tok_s else None


def unpriced_fit(catalog: Catalog, work: Workload, node: Node, sizing: Sizing | None = None) -> Unpriced:
    """`fit_node` before the node's price: the verdict, the layout, memory, speed, and what the
    prices per token divide the hour by. It reads nothing of the node's price, so a catalog in
    which only nodes' prices changed gives the same (tests/test_fit.py checks it on every node)."""
    gpu = catalog.gpus[node.gpu]
    runtime = resolve_runtime(catalog, work)
    if sizing is None:
        sizing = Sizing(catalog, work, gpu, runtime)
    is_moe = work.model.architecture.moe is not None
    users = work.concurrency

    def result(
        verdict: str,
        layout: Layout,
        reason: Reason,
        notes: tuple[Reason, ...] = (),
        load: float | None = None,
        best: float | None = None,
        **extra: Any,
    ) -> Unpriced:
        figures: dict[str, Any] = {
            "decode_tok_s_per_user": None,
            "decode_tok_s_per_user_no_comm": None,
            "decode_tok_s_total": None,
            "ttft_s": None,
            "queue_s": None,
            "bound": None,
            "allreduce_ms_per_token": None,
            "link": None,
            "best_concurrency": 0,
            "max_concurrency": 0,
            "max_context": 0,
            "replicas": 0,
            "concurrency_per_replica": 0,
            "meets_target": False,
            "max_users_at_target": 0,
            "tokens_per_hour": None,
            "speed_band": None,
            "ttft_band": None,
            "band_covered": False,
        }
        figures.update(extra)
        fits = verdict != "none"
        per_replica = figures["concurrency_per_replica"] or users
        # What the KV cache holds: the requests admitted at once at their average length, or
        # (no fit) one request of the longest context.
        held = sizing.held_length() if fits else work.context
        in_memory = sizing.wanted(per_replica, layout) if fits else 1
        figures.update(
            node=node.id,
            gpu=gpu.id,
            count=node.count,
            runtime=runtime.id,
            verdict=verdict,
            cards_used=layout.cards if fits else 0,
            tensor_parallel=layout.tp if fits else 0,
            pipeline_parallel=layout.pp if fits else 0,
            expert_parallel=layout.ep if fits else 0,
            data_parallel=layout.dp if fits else 0,
            need_gb=sizing.need(layout, held, in_memory) / GB,
            capacity_gb=sizing.capacity / GB,
            weights_gb=sizing.weights_card(layout) / GB,
            kv_gb=sizing.kv_sequence(layout, held) * in_memory / GB,
            reserve_gb=sizing.reserve(layout) / GB,
            weight_only=any(n.code == "weight_only" for n in notes),
            reason=reason,
            notes=notes,
        )
        return Unpriced(figures, load, best)

    support = format_support(gpu, work.format, is_moe)
    tried = sizing.tried.get(node.count)
    if tried is None:
        tried = sizing.tried[node.count] = _accepted(work, runtime, node.count)
    accepted = [lay for lay, why in tried if why is None]
    widest = max(accepted, key=lambda lay: (lay.cards, -lay.pp, -lay.dp, -lay.ep)) if accepted else Layout()
    if work.layout is not None and work.layout.cards > node.count:
        reason = Reason("layout_too_big", {"cards": work.layout.cards, "count": node.count})
        return result("none", Layout(), reason)
    if support is not None and support.code != "weight_only":
        return result("none", widest, support)
    notes: tuple[Reason, ...] = (support,) if support is not None else ()
    refused_full = [why for lay, why in tried if why is not None and lay.cards == node.count and lay.pp == 1]
    if sizing.reserve(Layout()) >= sizing.capacity:
        reason = Reason("no_room", {"reserve": sizing.reserve(Layout()) / GB, "capacity": sizing.capacity / GB})
        return result("none", widest, reason, notes)

    # A layout holds the workload when one request of the longest context fits. Of those, the one
    # that meets the target for the reader's users at the lowest price per token wins (the node's
    # price is the same for all: the most tokens per second); where none meets it, the closest.
    holding = [lay for lay in accepted if sizing.in_flight(lay) > 0]
    servings = {lay: serving_of(catalog, work, node, gpu, runtime, sizing, lay) for lay in holding}
    chosen = choose_layout(work, sizing, servings, node.count, users)
    if chosen is None:
        need = sizing.need(widest, work.context, 1) / GB
        code = "no_memory" if node.count > 1 else "no_memory_one"
        reason = Reason(code, {"count": widest.cards, "need": need, "capacity": sizing.capacity / GB})
        if refused_full and widest.cards < node.count:
            notes = (*notes, refused_full[0])
        if work.kv_cache == "auto" and runtime.kind == "server" and fits_with_fp8_kv(sizing, accepted):
            notes = (*notes, Reason("fp8_kv_fits", {}))
        return result("none", widest, reason, notes, concurrency_per_replica=1)

    layout = chosen
    replicas = node.count // layout.cards
    per_replica = math.ceil(users / replicas)
    serving = servings[layout]
    figures, load = speed_at(work, serving, sizing, replicas, users)
    most_users, best_users, best = at_target(work, sizing, serving, replicas)
    figures.update(
        max_users_at_target=most_users,
        best_concurrency=best_users,
        **trust(
            catalog.error_band,
            runtime,
            layout,
            per_replica,
            (node.gpu, work.model.id, work.format.id),
            catalog.silicon_band,
        ),
    )
    admitted = sizing.in_flight(layout)
    held = sizing.held_length()
    need = {
        "need": sizing.need(layout, held, sizing.wanted(per_replica, layout)) / GB,
        "capacity": sizing.capacity / GB,
    }
    if layout.cards == 1:
        verdict = "single"
        reason = Reason("single_copies", {**need, "replicas": replicas}) if replicas > 1 else Reason("single", need)
    else:
        verdict = "split"
        if runtime.kind == "layer-split":
            code, extra = "split_layers", {"cards": layout.cards}
        elif layout.dp > 1:
            code, extra = "split_dp", {"cards": layout.cards, "tp": layout.tp, "dp": layout.dp, "ep": layout.ep}
        elif layout.ep > 1:
            code, extra = "split_ep", {"cards": layout.cards, "tp": layout.tp, "pp": layout.pp, "ep": layout.ep}
        else:
            code = "split_tp" if layout.pp == 1 else "split_pp"
            extra = {"cards": layout.cards, "tp": layout.tp, "pp": layout.pp}
        reason = Reason(code, {**need, **extra})
    if replicas > 1 and users > 1:
        notes = (*notes, Reason("replicas", {"replicas": replicas, "users": users, "per_replica": per_replica}))
    if layout.dp > 1:
        notes = (*notes, Reason("dp_ranks", {"dp": layout.dp, "per_rank": math.ceil(per_replica / layout.dp)}))
    if refused_full and layout.cards < node.count and replicas == 1:
        notes = (*notes, refused_full[0])
    if figures["queue_s"]:
        notes = (
            *notes,
            Reason("queued", {"admitted": admitted * replicas, "users": users, "queue": figures["queue_s"]}),
        )
    if work.min_tok_s is not None and work.max_ttft_s is not None:
        target = {
            "speed": figures["decode_tok_s_per_user"],
            "min": float(work.min_tok_s),
            "ttft": figures["ttft_s"],
            "max": float(work.max_ttft_s),
        }
        notes = (*notes, Reason("target_met" if figures["meets_target"] else "target_missed", target))
        if work.layout is None and len(servings) > 1:
            code = "layout_best" if figures["meets_target"] else "layout_closest"
            notes = (*notes, Reason(code, {"layouts": len(servings)}))
    return result(
        verdict,
        layout,
        reason,
        notes,
        load,
        best,
        replicas=replicas,
        concurrency_per_replica=per_replica,
        # The longest context at which this layout still admits the reader's users as it does:
        # one request's longest where the cache is paged, else as many whole contexts as it admits.
        max_context=sizing.longest_context(layout, 1 if sizing.paged else min(per_replica, admitted)),
        max_concurrency=min(admitted * replicas, MAX_CONCURRENCY),
        **figures,
    )


def replica(catalog: Catalog, work: Workload, node: Node, layout: Layout) -> Serving:
    """The serving model of one replica of `layout` on `node` (for figures a row does not carry)."""
    gpu = catalog.gpus[node.gpu]
    runtime = resolve_runtime(catalog, work)
    return serving_of(catalog, work, node, gpu, runtime, Sizing(catalog, work, gpu, runtime), layout)


def fit_all(catalog: Catalog, work: Workload, unpriced: dict[str, Unpriced] | None = None) -> list[NodeFit]:
    """Every node of the catalog, in catalog order (`unpriced`: see fit_nodes)."""
    return fit_nodes(catalog, work, catalog.nodes, unpriced)


def fit_nodes(
    catalog: Catalog, work: Workload, nodes: Iterable[Node], unpriced: dict[str, Unpriced] | None = None
) -> list[NodeFit]:
    """The given nodes of the catalog, in their order.

    `unpriced`: each node's answer before its price (by node id), kept by a caller from an
    earlier call for the same workload on a catalog that differs from this one in nodes' prices
    at most; the nodes it lacks are worked out and added to it.
    """
    runtime = resolve_runtime(catalog, work)
    sizings, tried = kept(catalog).sizings(work)
    out = []
    for node in nodes:
        found = None if unpriced is None else unpriced.get(node.id)
        if found is None:
            sizing = sizings.get(node.gpu)
            if sizing is None:
                sizing = sizings[node.gpu] = Sizing(catalog, work, catalog.gpus[node.gpu], runtime, tried)
            found = unpriced_fit(catalog, work, node, sizing)
            if unpriced is not None:
                unpriced[node.id] = found
        out.append(price_fit(catalog, work, node, found))
    return out
