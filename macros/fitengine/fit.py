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

import dataclasses
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from typing import Any

from .architecture import Architecture, Params
from .catalog import Catalog, Format, Gpu, Llm, Node, Runtime
from .checkpoint import unquantized_parts
from .errors import EngineError, shown, unknown
from .layout import Layout, candidates, refusal
from .memory import expert_weight_bytes, kv_bytes_per_card, runtime_reserve_bytes, weight_bytes, weight_bytes_per_card
from .reasons import Reason, render
from .serving import Serving, Steady, batched_tokens, max_sequences
from .topology import group_link
from .trust import trust
from .units import GB, SECONDS_PER_HOUR, hourly

MAX_CONCURRENCY = 4096
MAX_TOKENS = 10_000_000
KV_CACHE = ("auto", "fp8")
MAX_PARALLEL = 64  # cards in one layout's dimension: beyond any node
MIN_UTILIZATION = 0.05  # the smallest share of a card's memory the runtime may be given
MAX_TARGET_TOK_S = 10_000  # tokens per second per user: beyond any card's decode
MAX_TARGET_TTFT_S = 3600  # seconds: an hour's wait for a first token is no target


@dataclass(frozen=True)
class Workload:
    """What the reader wants to run.

    `context` is the longest sequence the deployment must hold (one request of it must fit);
    `input_tokens` and `output_tokens` are one request's prompt and answer (they set the speed);
    `concurrency` is the reader's total users on the node. `runtime`, `layout`,
    `memory_utilization` and `kv_cache` override the defaults (the format's runtime, the layout
    that serves the target best, the runtime's cap, a 16-bit KV cache).

    The target is what each user must get: `min_tok_s` tokens per second of answer at least and
    a first token within `max_ttft_s` seconds (None: no such limit).
    """

    model: Llm
    format: Format
    context: int
    concurrency: int = 1
    input_tokens: int = 1024
    output_tokens: int = 256
    runtime: Runtime | None = None
    layout: Layout | None = None
    memory_utilization: float | None = None
    kv_cache: str = "auto"
    min_tok_s: float | None = None
    max_ttft_s: float | None = None

    def meets(self, tpot_s: float, ttft_s: float) -> bool:
        """Whether a user who sees a token every `tpot_s` and the first after `ttft_s` gets the target."""
        return (self.min_tok_s is None or tpot_s * self.min_tok_s <= 1) and (
            self.max_ttft_s is None or ttft_s <= self.max_ttft_s
        )

    def shortfall(self, tpot_s: float, ttft_s: float) -> float:
        """How far from the target: the larger of the factors by which speed and first token miss it
        (1 or less: met)."""
        speed = tpot_s * self.min_tok_s if self.min_tok_s is not None else 0.0
        first = ttft_s / self.max_ttft_s if self.max_ttft_s is not None else 0.0
        return max(speed, first)

    def __post_init__(self) -> None:
        if isinstance(self.context, bool) or not isinstance(self.context, int) or self.context < 1:
            raise EngineError(
                f"context must be a whole number of tokens of at least 1, got {shown(self.context)}", "context_range"
            )
        if self.context > self.model.max_context:
            raise EngineError(
                f"context {self.context} exceeds {self.model.name}'s maximum of {self.model.max_context} tokens",
                "context_too_long",
                context=self.context,
                maximum=self.model.max_context,
                model=self.model.name,
            )
        c = self.concurrency
        if isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= MAX_CONCURRENCY:
            raise EngineError(
                f"concurrency must be a whole number from 1 to {MAX_CONCURRENCY}, got {c!r}",
                "concurrency_range",
                maximum=MAX_CONCURRENCY,
            )
        for name in ("input_tokens", "output_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TOKENS:
                raise EngineError(
                    f"{name.replace('_', ' ')} must be a whole number from 1 to {MAX_TOKENS}, got {shown(value)}",
                    "tokens_range",
                    key=name,
                    maximum=MAX_TOKENS,
                )
        # The last token of an answer is never cached: a request needs input + output - 1 tokens.
        if self.input_tokens + self.output_tokens - 1 > self.context:
            raise EngineError(
                f"a request of {self.input_tokens} input and {self.output_tokens} output tokens does not fit "
                f"a context of {self.context} tokens",
                "request_exceeds_context",
                input=self.input_tokens,
                output=self.output_tokens,
                context=self.context,
            )
        u = self.memory_utilization
        if u is not None and (isinstance(u, bool) or not isinstance(u, int | float) or not MIN_UTILIZATION <= u <= 1):
            raise EngineError(
                f"memory utilization must be a number from {MIN_UTILIZATION} to 1, got {shown(u)}",
                "memory_utilization_range",
                minimum=MIN_UTILIZATION,
                maximum=1,
            )
        speed, first = self.min_tok_s, self.max_ttft_s
        if speed is not None and not _positive_at_most(speed, MAX_TARGET_TOK_S):
            raise EngineError(
                f"the target speed must be above 0 and at most {MAX_TARGET_TOK_S} tokens per second, got {shown(speed)}",
                "target_speed_range",
                maximum=MAX_TARGET_TOK_S,
            )
        if first is not None and not _positive_at_most(first, MAX_TARGET_TTFT_S):
            raise EngineError(
                f"the target first-token time must be above 0 and at most {MAX_TARGET_TTFT_S} s, got {shown(first)}",
                "target_ttft_range",
                maximum=MAX_TARGET_TTFT_S,
            )
        if self.kv_cache not in KV_CACHE:
            raise EngineError(
                f"KV cache must be one of {', '.join(KV_CACHE)}, got {shown(self.kv_cache, 20)}",
                "kv_cache_choice",
                choices=", ".join(KV_CACHE),
            )


def _positive_at_most(value: object, most: float) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and 0 < value <= most


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


def quant_block(model: Llm, fmt: Format) -> int:
    """The quantization block or group each card's slice must hold whole: the checkpoint's, else the format's."""
    checkpoint = model.checkpoint(fmt.id)
    if checkpoint is not None:
        block = max(checkpoint.block_n, checkpoint.block_k, checkpoint.group_size)
        if block:
            return block
    return fmt.group_size


def as_published(model: Llm, fmt: Format) -> Llm:
    """The model as its published checkpoint in `fmt` is shaped (an MLP width padded to split evenly)."""
    checkpoint = model.checkpoint(fmt.id)
    if checkpoint is None or not checkpoint.intermediate:
        return model
    arch = dataclasses.replace(model.architecture, intermediate=checkpoint.intermediate)
    return dataclasses.replace(model, architecture=arch, params_override=None)


class _Sizing:
    """Memory arithmetic for one model, format, runtime and card, shared by every layout tried."""

    def __init__(
        self,
        catalog: Catalog,
        work: Workload,
        gpu: Gpu,
        runtime: Runtime,
        tried: dict[int, list[tuple[Layout, Reason | None]]] | None = None,
    ) -> None:
        a = catalog.assumptions
        self.work = work
        self.gpu = gpu
        self.runtime = runtime
        self.arch = work.model.architecture
        self.params: Params = work.model.params
        self.kv_bytes = a.kv_bytes_fp8 if work.kv_cache == "fp8" else a.kv_bytes
        self.unquantized = unquantized_parts(work.model, work.format)
        self.weights = weight_bytes(self.params, work.format, self.unquantized)
        self.expert_weights = expert_weight_bytes(self.params, work.format, self.unquantized)
        utilization = work.memory_utilization if work.memory_utilization is not None else runtime.memory_utilization
        self.capacity = gpu.memory_usable_bytes * utilization
        self._reserve = (card_reserve_bytes(self.arch, runtime, gpu), card_reserve_bytes(self.arch, runtime, gpu, True))
        self._catalog = catalog
        self._fp8_kv: _Sizing | None = None
        self._kv: dict[tuple[int, int, int], float] = {}
        self._most: dict[tuple[object, ...], int] = {}
        self._admitted: dict[Layout, int] = {}
        self.servings: dict[tuple[object, ...], Serving] = {}
        # The layouts tried on a node of n cards and why each is refused: the same for every card
        # (fit_all hands its sizings one dict).
        self.tried: dict[int, list[tuple[Layout, Reason | None]]] = {} if tried is None else tried

    def fp8_kv(self) -> _Sizing:
        """The same arithmetic with an FP8 KV cache (made once, when a row asks)."""
        if self._fp8_kv is None:
            lighter = dataclasses.replace(self.work, kv_cache="fp8")
            self._fp8_kv = _Sizing(self._catalog, lighter, self.gpu, self.runtime)
        return self._fp8_kv

    def reserve(self, layout: Layout) -> float:
        return self._reserve[layout.cards > 1]

    def kv_sequence(self, layout: Layout, context: int) -> float:
        """KV bytes of one sequence of `context` tokens on one card of the layout."""
        key = (layout.tp, layout.pp, context)
        kv = self._kv.get(key)
        if kv is None:
            kv = self._kv[key] = kv_bytes_per_card(self.arch, context, self.kv_bytes, layout.tp, layout.pp)
        return kv

    def weights_card(self, layout: Layout) -> float:
        if layout.dp == 1:
            return self.weights / layout.cards
        return weight_bytes_per_card(self.weights, self.expert_weights, layout.tp, layout.pp, layout.dp)

    def room(self, layout: Layout) -> float:
        """Bytes left for the KV cache on each card of the layout."""
        return self.capacity - self.weights_card(layout) - self.reserve(layout)

    def need(self, layout: Layout, context: int, sequences: int) -> float:
        return self.weights_card(layout) + self.reserve(layout) + self.kv_sequence(layout, context) * sequences

    def fits(self, layout: Layout, context: int, sequences: int) -> bool:
        return self.need(layout, context, sequences) <= self.capacity

    @property
    def paged(self) -> bool:
        """Whether the runtime pages its KV cache (vLLM: a request holds the blocks of its tokens so
        far) rather than giving each of its slots a whole context up front (llama.cpp)."""
        return self.runtime.kind == "server"

    def held_length(self) -> int:
        """Tokens of KV cache one request holds on average over its life: its prompt, then half
        its answer (paged), or the whole context (a slot of a runtime that does not page)."""
        w = self.work
        return math.ceil(w.input_tokens + w.output_tokens / 2) if self.paged else w.context

    def in_flight(self, layout: Layout) -> int:
        """Requests one replica admits at once: the runtime's sequence cap, and what its KV cache
        holds at the workload's lengths (0 when not even one request of the longest context fits).
        With data-parallel attention, each rank's (vLLM's --max-num-seqs and KV cache are per rank)
        times its ranks."""
        admitted = self._admitted.get(layout)
        if admitted is None:
            admitted = self._admitted[layout] = self._in_flight(layout)
        return admitted

    def _in_flight(self, layout: Layout) -> int:
        if self.most_sequences(layout, self.work.context) < 1:
            return 0
        cap = max_sequences(self.runtime, self.gpu)
        return max(1, min(cap, self.most_sequences(layout, self.held_length()))) * layout.dp

    def wanted(self, users: int, layout: Layout | None = None) -> int:
        """Requests a replica of `users` users would hold at once on each card if memory allowed
        (with data-parallel attention, the busiest rank's share of them)."""
        ranks = layout.dp if layout is not None else 1
        return min(math.ceil(users / ranks), max_sequences(self.runtime, self.gpu))

    def most_sequences(self, layout: Layout, context: int) -> int:
        """How many sequences of `context` tokens one replica holds (0 when not even one)."""
        key = ("most", layout, context)
        most = self._most.get(key)
        if most is None:
            most = self._most[key] = self._most_sequences(layout, context)
        return most

    def _most_sequences(self, layout: Layout, context: int) -> int:
        room = self.room(layout)
        per = self.kv_sequence(layout, context)
        if room < per or per <= 0:
            return 0
        most = int(room // per)
        while most > 0 and not self.fits(layout, context, most):
            most -= 1
        return most

    def longest_context(self, layout: Layout, sequences: int) -> int:
        """The longest context (up to the model's maximum) at which `sequences` still fit.

        The KV cache grows linearly with the context, with a gentler slope past the sliding
        window: solve the line, then step to the exact edge (float rounding moves it by one).
        """
        most = self.work.model.max_context
        free = self.room(layout) / sequences
        steep = self.kv_sequence(layout, 1)
        if free < steep:
            return 0
        window = self.arch.sliding_window if self.arch.local_layers else 0
        if window and free > self.kv_sequence(layout, window):
            gentle = self.kv_sequence(layout, window + 1) - self.kv_sequence(layout, window)
            guess = most if gentle <= 0 else window + int((free - self.kv_sequence(layout, window)) // gentle)
        else:
            guess = int(free // steep)
        guess = max(0, min(guess, most))
        while guess > 0 and not self.fits(layout, guess, sequences):
            guess -= 1
        while guess < most and self.fits(layout, guess + 1, sequences):
            guess += 1
        return guess


def _spread(users: int, replicas: int) -> list[tuple[int, int]]:
    """Users spread over replicas as evenly as possible: (users per replica, replicas with that many)."""
    base, extra = divmod(users, replicas)
    groups = [(base + 1, extra), (base, replicas - extra)]
    return [(u, n) for u, n in groups if u > 0 and n > 0]


def _accepted(work: Workload, runtime: Runtime, count: int) -> list[tuple[Layout, Reason | None]]:
    block = quant_block(work.model, work.format)
    arch = work.model.architecture
    if work.layout is not None:
        layouts: tuple[Layout, ...] = (work.layout,)
    else:
        layouts = candidates(count, runtime, arch.moe is not None)
    pad = work.format.expert_pad
    return [(lay, refusal(arch, runtime, lay, block, pad)) for lay in layouts if lay.cards <= count]


def fit_node(catalog: Catalog, work: Workload, node: Node, sizing: _Sizing | None = None) -> NodeFit:
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


def unpriced_fit(catalog: Catalog, work: Workload, node: Node, sizing: _Sizing | None = None) -> Unpriced:
    """`fit_node` before the node's price: the verdict, the layout, memory, speed, and what the
    prices per token divide the hour by. It reads nothing of the node's price, so a catalog in
    which only nodes' prices changed gives the same (tests/test_fit.py checks it on every node)."""
    gpu = catalog.gpus[node.gpu]
    runtime = resolve_runtime(catalog, work)
    if sizing is None:
        sizing = _Sizing(catalog, work, gpu, runtime)
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
    servings = {lay: _serving(catalog, work, node, gpu, runtime, sizing, lay) for lay in holding}
    chosen = _choose(work, sizing, servings, node.count, users)
    if chosen is None:
        need = sizing.need(widest, work.context, 1) / GB
        code = "no_memory" if node.count > 1 else "no_memory_one"
        reason = Reason(code, {"count": widest.cards, "need": need, "capacity": sizing.capacity / GB})
        if refused_full and widest.cards < node.count:
            notes = (*notes, refused_full[0])
        if work.kv_cache == "auto" and runtime.kind == "server" and _fits_with_fp8_kv(sizing, accepted):
            notes = (*notes, Reason("fp8_kv_fits", {}))
        return result("none", widest, reason, notes, concurrency_per_replica=1)

    layout = chosen
    replicas = node.count // layout.cards
    per_replica = math.ceil(users / replicas)
    serving = servings[layout]
    figures, load = _speed(work, serving, sizing, replicas, users)
    most_users, best_users, best = _at_target(work, sizing, serving, replicas)
    figures.update(
        max_users_at_target=most_users,
        best_concurrency=best_users,
        **trust(catalog.error_band, runtime, layout, per_replica),
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


def _fits_with_fp8_kv(sizing: _Sizing, accepted: list[Layout]) -> bool:
    """Whether an FP8 KV cache (a vLLM option) would let one of the accepted layouts hold the workload."""
    lighter = sizing.fp8_kv()
    return any(lighter.in_flight(lay) > 0 for lay in accepted)


def card_reserve_bytes(arch: Architecture, runtime: Runtime, gpu: Gpu, split: bool = False) -> float:
    """What `runtime` keeps on each card of `gpu` besides weights and KV cache (`split`: a replica of several cards)."""
    fixed = runtime.fixed_per_card_split_bytes if split else runtime.fixed_per_card_bytes
    return runtime_reserve_bytes(
        arch,
        batched_tokens(runtime, gpu),
        runtime.activation_per_vocab_token,
        runtime.activation_per_hidden_token,
        fixed,
    )


def _serving(
    catalog: Catalog, work: Workload, node: Node, gpu: Gpu, runtime: Runtime, sizing: _Sizing, layout: Layout
) -> Serving:
    key = (layout, group_link(catalog, node, layout.tp), group_link(catalog, node, layout.cards))
    serving = sizing.servings.get(key)
    if serving is None:
        serving = sizing.servings[key] = _new_serving(catalog, work, node, gpu, runtime, sizing, layout)
    return serving


def _new_serving(
    catalog: Catalog, work: Workload, node: Node, gpu: Gpu, runtime: Runtime, sizing: _Sizing, layout: Layout
) -> Serving:
    a = catalog.assumptions
    fp8_compute = work.format.id == "fp8" and gpu.architecture in work.format.native and gpu.fp8_tflops
    tflops = gpu.fp8_tflops if fp8_compute and gpu.fp8_tflops else gpu.bf16_tflops
    return Serving(
        arch=sizing.arch,
        params=sizing.params,
        fmt=work.format,
        gpu=gpu,
        runtime=runtime,
        layout=layout,
        kv_bytes=sizing.kv_bytes,
        unquantized=sizing.unquantized,
        activation_bytes=a.activation_bytes,
        allreduces_per_layer=a.allreduces_per_layer,
        tp_link=group_link(catalog, node, layout.tp) if layout.tp > 1 else None,
        pp_link=group_link(catalog, node, layout.cards) if layout.pp > 1 else None,
        compute_tflops=tflops,
        ep_link=group_link(catalog, node, layout.cards) if layout.dp > 1 else None,
    )


@dataclass(frozen=True)
class _Load:
    """One replica's steady state at `batch` users."""

    steady: Steady

    @property
    def per_user(self) -> float:
        return 1 / self.steady.tpot_s

    @property
    def total(self) -> float:
        return self.steady.total_tok_s

    @property
    def prefill_share(self) -> float:
        return self.steady.prefill_share


def _load(serving: Serving, work: Workload, sizing: _Sizing, batch: int, communicate: bool = True) -> _Load:
    def make() -> _Load:
        admitted = sizing.in_flight(serving.layout)
        return _Load(serving.steady(batch, admitted, work.input_tokens, work.output_tokens, communicate))

    return serving.kept(("load", batch, communicate), make)


def _speed(
    work: Workload, serving: Serving, sizing: _Sizing, replicas: int, users: int
) -> tuple[dict[str, Any], float]:
    """The figures at the reader's users, and the node's answer tokens per second there."""
    groups = _spread(users, replicas)
    slowest = _load(serving, work, sizing, groups[0][0]).steady
    total = _node_tok_s(serving, work, sizing, groups)
    figures = {
        "decode_tok_s_per_user": 1 / slowest.tpot_s,
        "decode_tok_s_per_user_no_comm": _load(serving, work, sizing, groups[0][0], communicate=False).per_user,
        "decode_tok_s_total": total,
        "ttft_s": slowest.ttft_s,
        "queue_s": slowest.queue_s,
        "bound": slowest.bound,
        "allreduce_ms_per_token": slowest.communication_s * 1000,
        "link": _link_name(serving),
        "meets_target": work.meets(slowest.tpot_s, slowest.ttft_s),
        "tokens_per_hour": total * SECONDS_PER_HOUR * (work.input_tokens + work.output_tokens) / work.output_tokens,
    }
    return figures, total


def _link_name(serving: Serving) -> str | None:
    link = serving.tp_link or serving.pp_link or serving.ep_link
    return link.name if link else None


def _node_tok_s(serving: Serving, work: Workload, sizing: _Sizing, groups: list[tuple[int, int]]) -> float:
    """Answer tokens per second of the node's replicas, `groups` of (users per replica, replicas)."""
    return sum(_load(serving, work, sizing, batch).total * count for batch, count in groups)


def _choose(work: Workload, sizing: _Sizing, servings: dict[Layout, Serving], count: int, users: int) -> Layout | None:
    """Of the layouts that hold the workload (in the runtime's order), the one that meets the
    target for `users` at the most tokens per second (the first of equals); where none meets it,
    the one that misses it by the least (Workload.shortfall). None when none holds it."""
    best: tuple[float, float] | None = None
    chosen = None
    for layout, serving in servings.items():
        groups = _spread(users, count // layout.cards)
        slowest = _load(serving, work, sizing, groups[0][0]).steady
        meets = work.meets(slowest.tpot_s, slowest.ttft_s)
        # Met beats missed; then the more tokens per second, or the smaller miss.
        rank = (
            (0.0, -_node_tok_s(serving, work, sizing, groups))
            if meets
            else (1.0, work.shortfall(slowest.tpot_s, slowest.ttft_s))
        )
        if best is None or rank < best:
            best, chosen = rank, layout
    return chosen


def _most_at_target(work: Workload, sizing: _Sizing, serving: Serving) -> int:
    """The most users one replica serves within the target (0 when not even one).

    Speed and first token worsen as users are added, each about in proportion, so the edge is
    found on the miss (Workload.shortfall, 1 at the edge) by false position over whole numbers
    up to the requests the replica admits at once. Beyond them speed stays, and each user's wait
    for a place grows by a cycle over the admitted (the closed loop), which gives the rest directly.
    """
    admitted = min(sizing.in_flight(serving.layout), MAX_CONCURRENCY)

    def steady(batch: int) -> Steady:
        return _load(serving, work, sizing, batch).steady

    def within(batch: int) -> bool:  # the row's own test (meets_target)
        return work.meets(steady(batch).tpot_s, steady(batch).ttft_s)

    def gap(batch: int) -> float:  # how far from the edge, on a log scale: what the false position reads
        return math.log(max(work.shortfall(steady(batch).tpot_s, steady(batch).ttft_s), 1e-300))

    if admitted < 1 or not within(1):
        return 0
    if within(admitted):
        edge = steady(admitted)
        if work.max_ttft_s is None:
            return MAX_CONCURRENCY
        more = int((work.max_ttft_s - edge.ttft_s) * admitted / edge.cycle_s) if edge.cycle_s > 0 else 0
        most = min(MAX_CONCURRENCY, admitted + max(0, more))
        while most > admitted and not within(most):  # float rounding at the edge
            most -= 1
        return most
    # Bracket [lo, hi]: lo within the target, hi not. The gap's logarithm is read as a line in
    # the square root of the users between them (the miss grows faster than in proportion near
    # the edge; on those scales it is nearest a line across the catalog's models and cards), the
    # Illinois rule halving the side that stays; a guess that rounds onto an end moves to its
    # neighbor inside, where the line says the edge is.
    lo, hi = 1, admitted
    g_lo, g_hi = gap(lo), gap(hi)
    side = 0
    while hi - lo > 1:
        root_lo, root_hi = math.sqrt(lo), math.sqrt(hi)
        guess = (root_lo + (root_hi - root_lo) * -g_lo / (g_hi - g_lo)) ** 2 if g_hi > g_lo else (lo + hi) / 2
        guess = min(max(round(guess), lo + 1), hi - 1)
        if within(guess):
            lo, g_lo = guess, min(gap(guess), 0.0)
            if side == 1:
                g_hi /= 2
            side = 1
        else:
            hi, g_hi = guess, max(gap(guess), 0.0)
            if side == -1:
                g_lo /= 2
            side = -1
    return lo


def _at_target(work: Workload, sizing: _Sizing, serving: Serving, replicas: int) -> tuple[int, int, float | None]:
    """The most users the node serves within the target on the replicas of `serving`'s layout,
    and where its price per answer token within the target is lowest: the users and the node's
    answer tokens per second there (0, 0, None where the layout never meets the target).

    The cheapest load is searched from one user a replica to the edge (tests/test_fit.py checks
    it against every batch).
    """
    most = min(_most_at_target(work, sizing, serving), MAX_CONCURRENCY // replicas)
    if most < 1:
        return 0, 0, None
    dp = serving.layout.dp

    def cost(users: int) -> float:
        return 1 / _load(serving, work, sizing, users).total

    if dp == 1:
        batch = _cheapest_batch(cost, most)
    else:
        # Users fill the ranks in turn, each paced by the busiest: between two multiples of the
        # ranks the price falls with every user added, so the cheapest load is a multiple of them
        # (one search over those) or the edge itself.
        batch = most
        if most >= dp:
            full = dp * _cheapest_batch(lambda k: cost(k * dp), most // dp)
            batch = min((full, most), key=lambda b: (cost(b), b))
    return most * replicas, batch * replicas, _load(serving, work, sizing, batch).total * replicas


def _cheapest_batch(cost: Callable[[int], float], most: int) -> int:
    """The batch from 1 to `most` of the lowest cost (the smallest of equals).

    The cost falls as the weights' reads are shared by more sequences, then may rise where the
    prompts' share of the steps and each sequence's own time outweigh it: one valley. Still
    falling at `most`, the valley's floor is there; else a Fibonacci search of the integers
    finds it, each round reusing one of the last round's two costs.
    """
    if most == 1 or cost(most) < cost(most - 1):
        return most
    fib = [1, 1]
    while fib[-1] < most:
        fib.append(fib[-1] + fib[-2])

    def priced(batch: int) -> float:  # beyond `most` the valley is closed: an infinite cost
        return cost(batch) if batch <= most else math.inf

    lo, k = 1, len(fib) - 1  # the valley's floor lies in [lo, lo + fib[k]]
    while k > 2:
        a, b = lo + fib[k - 2], lo + fib[k - 1]
        if priced(a) > priced(b):
            lo = a
        k -= 1
    return min(range(lo, min(lo + fib[k], most) + 1), key=lambda b: (cost(b), b))


def replica(catalog: Catalog, work: Workload, node: Node, layout: Layout) -> Serving:
    """The serving model of one replica of `layout` on `node` (for figures a row does not carry)."""
    gpu = catalog.gpus[node.gpu]
    runtime = resolve_runtime(catalog, work)
    return _serving(catalog, work, node, gpu, runtime, _Sizing(catalog, work, gpu, runtime), layout)


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
    sizings: dict[str, _Sizing] = {}
    tried: dict[int, list[tuple[Layout, Reason | None]]] = {}
    out = []
    for node in nodes:
        found = None if unpriced is None else unpriced.get(node.id)
        if found is None:
            sizing = sizings.get(node.gpu)
            if sizing is None:
                sizing = sizings[node.gpu] = _Sizing(catalog, work, catalog.gpus[node.gpu], runtime, tried)
            found = unpriced_fit(catalog, work, node, sizing)
            if unpriced is not None:
                unpriced[node.id] = found
        out.append(price_fit(catalog, work, node, found))
    return out


def resolve_runtime(catalog: Catalog, work: Workload) -> Runtime:
    """The workload's runtime, or its format's default."""
    return work.runtime or catalog.runtimes[work.format.runtime]


def workload(
    catalog: Catalog,
    model: str | Llm,
    fmt: str,
    context: int | None = None,
    concurrency: int | None = None,
    *,
    input_tokens: int | None = None,
    output_tokens: int | None = None,
    runtime: str | None = None,
    layout: tuple[int, ...] | None = None,
    memory_utilization: float | None = None,
    kv_cache: str | None = None,
    min_tok_s: float | None = None,
    max_ttft_s: float | None = None,
) -> Workload:
    """A workload from catalog ids, with the catalog's defaults (the target's included).

    The default prompt and answer lengths are shortened to fit a context shorter than both.
    A forced `layout` (tp, pp, ep) or (tp, pp, ep, dp) the runtime refuses for this model raises
    EngineError. With dp > 1 (data-parallel attention) the experts go to all dp x tp cards: ep is
    then that product, or 1 to let it follow.
    """
    a = catalog.assumptions
    if isinstance(model, str):
        if model not in catalog.llms:
            raise unknown("model", model, catalog.llms)
        model = catalog.llms[model]
    if fmt not in catalog.formats:
        raise unknown("format", fmt, catalog.formats)
    the_format = catalog.formats[fmt]
    model = as_published(model, the_format)
    the_runtime = None
    if runtime is not None:
        if runtime not in catalog.runtimes:
            raise unknown("runtime", runtime, catalog.runtimes)
        the_runtime = catalog.runtimes[runtime]
        if fmt not in the_runtime.formats:
            runs = ", ".join(catalog.formats[f].name for f in the_runtime.formats if f in catalog.formats)
            raise EngineError(
                f"{the_runtime.name} does not run {the_format.name}; it runs: {runs}",
                "runtime_format",
                runtime=the_runtime.name,
                format=the_format.name,
                formats=runs,
            )
    chosen_runtime = the_runtime or catalog.runtimes[the_format.runtime]
    if kv_cache == "fp8" and chosen_runtime.kind != "server":
        raise EngineError(
            f"{chosen_runtime.name} has no FP8 KV cache option here; use auto",
            "kv_cache_runtime",
            runtime=chosen_runtime.name,
        )
    context = a.default_context if context is None else context
    if isinstance(context, int) and not isinstance(context, bool) and context >= 1:
        if output_tokens is None:
            output_tokens = min(a.default_output_tokens, max(1, context // 4))
        if input_tokens is None:
            input_tokens = max(1, min(a.default_input_tokens, context + 1 - output_tokens))
    forced = None
    if layout is not None:
        tp, pp, ep, dp = (*layout, 1) if len(layout) == 3 else layout
        degrees = (("tensor_parallel", tp), ("pipeline_parallel", pp), ("expert_parallel", ep), ("data_parallel", dp))
        for name, value in degrees:
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_PARALLEL:
                raise EngineError(
                    f"{name.replace('_', ' ')} must be a whole number from 1 to {MAX_PARALLEL}, got {shown(value)}",
                    "parallel_range",
                    key=name,
                    maximum=MAX_PARALLEL,
                )
        if dp > 1 and ep in (1, dp * tp):
            ep = dp * tp
        elif dp > 1:
            raise EngineError(
                f"with data parallel {dp}, expert parallel must be 1 or data parallel x tensor parallel ({dp * tp}), "
                f"got {ep}",
                "expert_parallel_dp",
                dp=dp,
                ranks=dp * tp,
                ep=ep,
            )
        elif ep not in (1, tp):
            raise EngineError(
                f"expert parallel must be 1 or equal to tensor parallel ({tp}), got {ep}",
                "expert_parallel_tp",
                tp=tp,
                ep=ep,
            )
        forced = Layout(tp, pp, ep, dp)
        why = refusal(model.architecture, chosen_runtime, forced, quant_block(model, the_format), the_format.expert_pad)
        if why is not None:
            # The verdict's own words (reasons.py, layout_*): the page says them in its language.
            raise EngineError(f"layout refused: {render(why)}", why.code, **why.params)
    return Workload(
        model=model,
        format=the_format,
        context=context,
        concurrency=a.default_concurrency if concurrency is None else concurrency,
        input_tokens=a.default_input_tokens if input_tokens is None else input_tokens,
        output_tokens=a.default_output_tokens if output_tokens is None else output_tokens,
        runtime=the_runtime,
        layout=forced,
        memory_utilization=memory_utilization,
        kv_cache=kv_cache or "auto",
        min_tok_s=a.target_tok_s if min_tok_s is None else min_tok_s,
        max_ttft_s=a.target_ttft_s if max_ttft_s is None else max_ttft_s,
    )
