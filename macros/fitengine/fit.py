"""The verdict per node for a language model: one card, split, or no fit, with its figures."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any

from .architecture import Params
from .catalog import Catalog, Format, Gpu, Llm, Node
from .errors import EngineError
from .memory import active_weight_bytes, experts_touched, kv_bytes_per_card, weight_bytes
from .reasons import Reason
from .speed import allreduce_seconds, decode_floor, send_seconds
from .topology import group_link
from .units import GB

MAX_CONCURRENCY = 4096


@dataclass(frozen=True)
class Workload:
    """What the reader wants to run: a model in a format, a context length, sequences at once."""

    model: Llm
    format: Format
    context: int
    concurrency: int = 1

    def __post_init__(self) -> None:
        if isinstance(self.context, bool) or not isinstance(self.context, int) or self.context < 1:
            raise EngineError(f"context must be a whole number of tokens of at least 1, got {self.context!r}")
        if self.context > self.model.max_context:
            raise EngineError(
                f"context {self.context} exceeds {self.model.name}'s maximum of {self.model.max_context} tokens"
            )
        c = self.concurrency
        if isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= MAX_CONCURRENCY:
            raise EngineError(f"concurrency must be a whole number from 1 to {MAX_CONCURRENCY}, got {c!r}")


@dataclass(frozen=True)
class NodeFit:
    """One node's answer. GB are 10^9 bytes; memory figures are per card."""

    node: str
    gpu: str
    count: int
    verdict: str  # single, split or none
    cards_used: int
    tensor_parallel: int
    pipeline_parallel: int
    replicas: int
    need_gb: float
    capacity_gb: float
    weights_gb: float
    kv_gb: float
    reserve_gb: float
    tok_s_floor: float | None
    tok_s_with_allreduce: float | None
    allreduce_ms_per_token: float | None
    link: str | None
    price_month_usd: float
    price_hour_usd: float
    usd_per_million_tokens: float | None
    max_context: int
    weight_only: bool
    reason: Reason
    notes: tuple[Reason, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in _NODEFIT_FIELDS}
        data["reason"] = self.reason.to_dict()
        data["notes"] = [n.to_dict() for n in self.notes]
        return data


_NODEFIT_FIELDS = tuple(f.name for f in fields(NodeFit))


@dataclass(frozen=True)
class _Layout:
    tp: int
    pp: int
    cards: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", self.tp * self.pp)


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


def _layouts(model: Llm, count: int) -> tuple[_Layout, ...]:
    """Candidate layouts, fewest cards first: pure tensor parallelism, then pipeline stages."""
    return _layouts_for(model.architecture.heads, model.architecture.layers, count)


@cache
def _layouts_for(heads: int, layers: int, count: int) -> tuple[_Layout, ...]:
    pure = [_Layout(n, 1) for n in range(1, count + 1) if heads % n == 0]
    piped = []
    for n in range(2, count + 1):
        for tp in range(n - 1, 0, -1):
            if n % tp == 0 and heads % tp == 0 and n // tp <= layers:
                piped.append(_Layout(tp, n // tp))
    return tuple(pure + piped)


def _widest(model: Llm, count: int) -> _Layout:
    return _widest_for(model.architecture.heads, model.architecture.layers, count)


@cache
def _widest_for(heads: int, layers: int, count: int) -> _Layout:
    return max(_layouts_for(heads, layers, count), key=lambda lay: (lay.cards, lay.tp))


class _Sizing:
    """Memory arithmetic for one model, format and card, shared by every layout tried."""

    def __init__(self, catalog: Catalog, work: Workload, gpu: Gpu) -> None:
        a = catalog.assumptions
        self.work = work
        self.arch = work.model.architecture
        self.params: Params = work.model.params
        self.kv_bytes = a.kv_bytes
        self.weights = weight_bytes(self.params, work.format)
        self.reserve = a.reserve_moe_bytes if self.arch.moe else a.reserve_dense_bytes
        self.capacity = gpu.memory_usable_bytes * a.usable_fraction
        self._kv: dict[tuple[int, int, int], float] = {}
        self._fits: dict[tuple[int, int], _Layout | None] = {}

    def kv(self, layout: _Layout, context: int) -> float:
        key = (layout.tp, layout.pp, context)
        kv = self._kv.get(key)
        if kv is None:
            per_sequence = kv_bytes_per_card(self.arch, context, self.kv_bytes, layout.tp, layout.pp)
            kv = self._kv[key] = per_sequence * self.work.concurrency
        return kv

    def need(self, layout: _Layout, context: int) -> float:
        return self.weights / layout.cards + self.kv(layout, context) + self.reserve

    def first_fit(self, count: int, context: int) -> _Layout | None:
        """The first layout (fewest cards) of `count` cards that holds the workload at `context`."""
        key = (count, context)
        if key not in self._fits:
            layouts = _layouts(self.work.model, count)
            self._fits[key] = next((lay for lay in layouts if self.fits(lay, context)), None)
        return self._fits[key]

    def fits(self, layout: _Layout, context: int) -> bool:
        return self.need(layout, context) <= self.capacity

    def longest_context(self, layout: _Layout) -> int:
        """The longest context (up to the model's maximum) that still fits with this layout.

        The KV cache grows linearly with the context, with a gentler slope past the sliding
        window: solve the line, then step to the exact edge (float rounding moves it by one).
        """
        most = self.work.model.max_context
        free = self.capacity - self.weights / layout.cards - self.reserve
        steep = self.kv(layout, 1)
        if free < steep:
            return 0
        window = self.arch.sliding_window if self.arch.local_layers else 0
        if window and free > self.kv(layout, window):
            gentle = self.kv(layout, window + 1) - self.kv(layout, window)
            guess = most if gentle <= 0 else window + int((free - self.kv(layout, window)) // gentle)
        else:
            guess = int(free // steep)
        guess = max(0, min(guess, most))
        while guess > 0 and not self.fits(layout, guess):
            guess -= 1
        while guess < most and self.fits(layout, guess + 1):
            guess += 1
        return guess


def fit_node(catalog: Catalog, work: Workload, node: Node, sizing: _Sizing | None = None) -> NodeFit:
    """The verdict and figures for one node (`sizing`: the card's, when the caller shares it)."""
    gpu = catalog.gpus[node.gpu]
    a = catalog.assumptions
    price_hour = node.price_month_usd / a.hours_per_month
    if sizing is None:
        sizing = _Sizing(catalog, work, gpu)
    is_moe = work.model.architecture.moe is not None

    def result(verdict: str, layout: _Layout, reason: Reason, notes: tuple[Reason, ...] = (), **extra: Any) -> NodeFit:
        fields: dict[str, Any] = {
            "tok_s_floor": None,
            "tok_s_with_allreduce": None,
            "allreduce_ms_per_token": None,
            "link": None,
            "usd_per_million_tokens": None,
            "max_context": 0,
            "replicas": 0,
        }
        fields.update(extra)
        fits = verdict != "none"
        return NodeFit(
            node=node.id,
            gpu=gpu.id,
            count=node.count,
            verdict=verdict,
            cards_used=layout.cards if fits else 0,
            tensor_parallel=layout.tp if fits else 0,
            pipeline_parallel=layout.pp if fits else 0,
            need_gb=sizing.need(layout, work.context) / GB,
            capacity_gb=sizing.capacity / GB,
            weights_gb=sizing.weights / layout.cards / GB,
            kv_gb=sizing.kv(layout, work.context) / GB,
            reserve_gb=sizing.reserve / GB,
            price_month_usd=node.price_month_usd,
            price_hour_usd=price_hour,
            weight_only=any(n.code == "weight_only" for n in notes),
            reason=reason,
            notes=notes,
            **fields,
        )

    widest = _widest(work.model, node.count)
    support = format_support(gpu, work.format, is_moe)
    if support is not None and support.code != "weight_only":
        return result("none", widest, support)
    notes = (support,) if support is not None else ()
    if sizing.reserve >= sizing.capacity:
        reason = Reason("no_room", {"reserve": sizing.reserve / GB, "capacity": sizing.capacity / GB})
        return result("none", widest, reason, notes)
    layout = sizing.first_fit(node.count, work.context)
    if layout is None:
        need = sizing.need(widest, work.context) / GB
        code = "no_memory" if node.count > 1 else "no_memory_one"
        reason = Reason(code, {"count": node.count, "need": need, "capacity": sizing.capacity / GB})
        return result("none", widest, reason, notes)

    replicas = node.count // layout.cards
    speed = _speed(catalog, work, node, gpu, sizing, layout)
    tokens_per_hour = speed["tok_s_with_allreduce"] * work.concurrency * replicas * 3600
    figures = {"need": sizing.need(layout, work.context) / GB, "capacity": sizing.capacity / GB}
    if layout.cards == 1:
        verdict = "single"
        reason = (
            Reason("single_copies", {**figures, "replicas": replicas}) if replicas > 1 else Reason("single", figures)
        )
    else:
        verdict = "split"
        code = "split_tp" if layout.pp == 1 else "split_pp"
        reason = Reason(code, {**figures, "cards": layout.cards, "tp": layout.tp, "pp": layout.pp})
    return result(
        verdict,
        layout,
        reason,
        notes,
        replicas=replicas,
        max_context=sizing.longest_context(layout),
        usd_per_million_tokens=price_hour / tokens_per_hour * 1e6,
        **speed,
    )


def _speed(catalog: Catalog, work: Workload, node: Node, gpu: Gpu, sizing: _Sizing, layout: _Layout) -> dict[str, Any]:
    """Decode floor, and the floor once the tensor-parallel all-reduces are paid for."""
    a = catalog.assumptions
    arch = work.model.architecture
    batch = work.concurrency
    experts = experts_touched(arch, sizing.params, batch) if batch > 1 else None
    active = active_weight_bytes(sizing.params, work.format, experts)
    # Per step, the slowest path reads each stage's weight share and its KV, stage after stage.
    per_card = active / layout.tp + sizing.kv(layout, work.context) * layout.pp
    floor = decode_floor(per_card, gpu.memory_bandwidth_gbps, a.decode_efficiency)
    comm = 0.0
    link_name = None
    if layout.tp > 1:
        link = group_link(catalog, node, layout.tp)
        assert link is not None
        message = arch.hidden * a.activation_bytes * batch
        comm += arch.layers * a.allreduces_per_layer * allreduce_seconds(message, layout.tp, link)
        link_name = link.name
    if layout.pp > 1:
        link = group_link(catalog, node, layout.cards)
        assert link is not None
        comm += (layout.pp - 1) * send_seconds(arch.hidden * a.activation_bytes * batch, link)
        link_name = link.name
    with_comm = 1 / (1 / floor + comm)
    return {
        "tok_s_floor": floor,
        "tok_s_with_allreduce": with_comm,
        "allreduce_ms_per_token": comm * 1000,
        "link": link_name,
    }


def fit_all(catalog: Catalog, work: Workload) -> list[NodeFit]:
    """Every node of the catalog, in catalog order."""
    # Nodes with the same card share its memory arithmetic (several sizes of node per card).
    sizings: dict[str, _Sizing] = {}
    out = []
    for node in catalog.nodes:
        sizing = sizings.get(node.gpu)
        if sizing is None:
            sizing = sizings[node.gpu] = _Sizing(catalog, work, catalog.gpus[node.gpu])
        out.append(fit_node(catalog, work, node, sizing))
    return out


def workload(
    catalog: Catalog, model: str | Llm, fmt: str, context: int | None = None, concurrency: int | None = None
) -> Workload:
    """A workload from catalog ids, with the catalog's default context and concurrency."""
    a = catalog.assumptions
    if isinstance(model, str):
        if model not in catalog.llms:
            raise EngineError(f"unknown model {model!r}; choose one of: {', '.join(catalog.llms)}")
        model = catalog.llms[model]
    if fmt not in catalog.formats:
        raise EngineError(f"unknown format {fmt!r}; choose one of: {', '.join(catalog.formats)}")
    return Workload(
        model=model,
        format=catalog.formats[fmt],
        context=a.default_context if context is None else context,
        concurrency=a.default_concurrency if concurrency is None else concurrency,
    )
