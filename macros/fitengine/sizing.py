"""Memory per card for a workload: the weights' share, the runtime's reserve, the KV cache a
request holds, and from them the requests a replica admits at once and the longest context."""

from __future__ import annotations

import dataclasses
import math
from collections import OrderedDict

from .architecture import Architecture, Params
from .catalog import Catalog, Gpu, Runtime
from .checkpoint import unquantized_parts
from .layout import Layout
from .memory import (
    expert_padding,
    expert_weight_bytes,
    kv_bytes_per_card,
    runtime_reserve_bytes,
    weight_bytes,
    weight_bytes_per_card,
)
from .reasons import Reason
from .runtime_defaults import batched_tokens, max_sequences
from .serving import Serving
from .workloads import Workload


class Sizing:
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
        # What a step the server runs without CUDA graphs adds (Workload.cuda_graphs): to a decode
        # step, to a step that carries a prompt chunk (Serving.ungraphed).
        extra = self.arch.layers * runtime.ungraphed_layer_overhead_s
        extra += self.arch.moe_layers * runtime.ungraphed_moe_layer_overhead_s
        self.ungraphed = {"full": (0.0, 0.0), "decode-only": (0.0, extra), "none": (extra, extra)}[work.cuda_graphs]
        self.unquantized = unquantized_parts(work.model, work.format)
        self.weights = weight_bytes(self.params, work.format, self.unquantized)
        self.expert_weights = expert_weight_bytes(self.params, work.format, self.unquantized)
        utilization = work.memory_utilization if work.memory_utilization is not None else runtime.memory_utilization
        self.capacity = gpu.memory_usable_bytes * utilization
        self._reserve = (card_reserve_bytes(self.arch, runtime, gpu), card_reserve_bytes(self.arch, runtime, gpu, True))
        self._catalog = catalog
        self._fp8_kv: Sizing | None = None
        self._kv: dict[tuple[int, int, int], float] = {}
        self._most: dict[tuple[object, ...], int] = {}
        self._admitted: dict[Layout, int] = {}
        self._weights_card: dict[Layout, float] = {}
        self.servings: dict[tuple[object, ...], Serving] = {}
        self.serving_terms: dict[str, object] = {}  # what its servings share (Serving.shared)
        # The layouts tried on a node of n cards and why each is refused: the same for every card
        # (fit_all hands its sizings one dict).
        self.tried: dict[int, list[tuple[Layout, Reason | None]]] = {} if tried is None else tried

    def fp8_kv(self) -> Sizing:
        """The same arithmetic with an FP8 KV cache (made once, when a row asks)."""
        if self._fp8_kv is None:
            lighter = dataclasses.replace(self.work, kv_cache="fp8")
            self._fp8_kv = Sizing(self._catalog, lighter, self.gpu, self.runtime)
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
        """Weight bytes on each card of the layout, the padding of its experts' slices included."""
        held = self._weights_card.get(layout)
        if held is None:
            slices = layout.expert_slices
            padded = self.expert_weights * (
                expert_padding(self.arch, self.work.format, self.gpu.architecture, slices) - 1
            )
            if layout.dp == 1:
                held = (self.weights + padded) / layout.cards
            else:
                weights, experts = self.weights + padded, self.expert_weights + padded
                held = weight_bytes_per_card(weights, experts, layout.tp, layout.pp, layout.dp)
            self._weights_card[layout] = held
        return held

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


def fits_with_fp8_kv(sizing: Sizing, accepted: list[Layout]) -> bool:
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


KEPT_WORKLOADS = 32  # the workloads whose sizings a catalog keeps, the most recently asked


class Kept:
    """The sizings of the workloads a catalog was last asked about, by card.

    A sizing, its servings and their steady states depend on the model, format, lengths, runtime
    and options, never on the reader's users or target: a question that differs from an earlier
    one only in those (a guide's curve over users, a reader trying another number of users or
    another target) finds the earlier steady states made. The most recent `KEPT_WORKLOADS` are kept.
    """

    def __init__(self) -> None:
        self._by_work: OrderedDict[
            Workload, tuple[dict[str, Sizing], dict[int, list[tuple[Layout, Reason | None]]]]
        ] = OrderedDict()

    def sizings(self, work: Workload) -> tuple[dict[str, Sizing], dict[int, list[tuple[Layout, Reason | None]]]]:
        """The sizings by card id and the layouts tried by node size, for `work` (new ones are
        added to what is returned)."""
        key = dataclasses.replace(work, concurrency=1, min_tok_s=None, max_ttft_s=None)
        try:
            found = self._by_work.pop(key, None)
        except TypeError:  # a workload that cannot be a key is worked out afresh
            return {}, {}
        if found is None:
            found = ({}, {})
        self._by_work[key] = found
        while len(self._by_work) > KEPT_WORKLOADS:
            self._by_work.popitem(last=False)
        return found


def kept(catalog: Catalog) -> Kept:
    """The catalog's own `Kept` (made at its first question)."""
    found = catalog.memo.get("sizings")
    if found is None:
        found = catalog.memo["sizings"] = Kept()
    return found
