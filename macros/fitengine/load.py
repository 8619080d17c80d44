"""A replica under load: its steady state at a number of users (serving.py), the layout that
serves the reader's users best, the most users it serves within the target and the load at which
its price per token within the target is lowest."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .catalog import Catalog, Gpu, Node, Runtime
from .layout import Layout
from .serving import Serving
from .sizing import Sizing
from .steps import Steady
from .topology import GroupLink, group_link
from .units import SECONDS_PER_HOUR
from .workloads import MAX_CONCURRENCY, Workload


def spread(users: int, replicas: int) -> list[tuple[int, int]]:
    """Users spread over replicas as evenly as possible: (users per replica, replicas with that many)."""
    base, extra = divmod(users, replicas)
    groups = [(base + 1, extra), (base, replicas - extra)]
    return [(u, n) for u, n in groups if u > 0 and n > 0]


def serving_of(
    catalog: Catalog, work: Workload, node: Node, gpu: Gpu, runtime: Runtime, sizing: Sizing, layout: Layout
) -> Serving:
    tp_link, all_link = group_link(catalog, node, layout.tp), group_link(catalog, node, layout.cards)
    key = (layout, tp_link, all_link)
    serving = sizing.servings.get(key)
    if serving is None:
        serving = sizing.servings[key] = _new_serving(catalog, work, gpu, runtime, sizing, layout, tp_link, all_link)
    return serving


def _new_serving(
    catalog: Catalog,
    work: Workload,
    gpu: Gpu,
    runtime: Runtime,
    sizing: Sizing,
    layout: Layout,
    tp_link: GroupLink | None,
    all_link: GroupLink | None,
) -> Serving:
    """A replica of `layout`, `tp_link` joining its tensor-parallel cards, `all_link` all its cards."""
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
        tp_link=tp_link if layout.tp > 1 else None,
        pp_link=all_link if layout.pp > 1 else None,
        compute_tflops=tflops,
        ep_link=all_link if layout.dp > 1 else None,
        ungraphed=sizing.ungraphed,
        shared=sizing.serving_terms,  # the same model, format, card, runtime and throughput
    )


@dataclass(frozen=True)
class Load:
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


def load_at(serving: Serving, work: Workload, sizing: Sizing, batch: int, communicate: bool = True) -> Load:
    # A replica with no collectives (one card) has one steady state, with or without them.
    key = ("load", batch, communicate or serving.alone)
    found = serving.memo.get(key)  # asked again and again by the searches: looked up first
    if found is None:
        admitted = sizing.in_flight(serving.layout)
        found = Load(serving.steady(batch, admitted, work.input_tokens, work.output_tokens, communicate))
        serving.memo[key] = found
    return found  # type: ignore[return-value]


def speed_at(
    work: Workload, serving: Serving, sizing: Sizing, replicas: int, users: int
) -> tuple[dict[str, Any], float]:
    """The figures at the reader's users, and the node's answer tokens per second there."""
    groups = spread(users, replicas)
    slowest = load_at(serving, work, sizing, groups[0][0]).steady
    total = _node_tok_s(serving, work, sizing, groups)
    figures = {
        "decode_tok_s_per_user": 1 / slowest.tpot_s,
        "decode_tok_s_per_user_no_comm": load_at(serving, work, sizing, groups[0][0], communicate=False).per_user,
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


def _node_tok_s(serving: Serving, work: Workload, sizing: Sizing, groups: list[tuple[int, int]]) -> float:
    """Answer tokens per second of the node's replicas, `groups` of (users per replica, replicas)."""
    return sum(load_at(serving, work, sizing, batch).total * count for batch, count in groups)


def choose_layout(
    work: Workload, sizing: Sizing, servings: dict[Layout, Serving], count: int, users: int
) -> Layout | None:
    """Of the layouts that hold the workload (in the runtime's order), the one that meets the
    target for `users` at the most tokens per second (the first of equals); where none meets it,
    the one that misses it by the least (Workload.shortfall). None when none holds it.

    The layouts are worked out most promising first, by a ceiling on the tokens per second each
    can reach (`_ceiling`); a layout whose ceiling, or whose least possible miss, already loses
    to a layout worked out is passed over: it could not be chosen (tests/test_fit.py holds the
    choice to the one made by working every layout out)."""
    prompt, answer = work.input_tokens, work.output_tokens
    steps = (1 if prompt > 0 else 0) + max(answer - 1, 0)  # the steps of a cycle, each at least a floor
    candidates = []
    for index, (layout, serving) in enumerate(servings.items()):
        groups = spread(users, count // layout.cards)
        candidates.append((_ceiling(serving, answer, steps, groups), index, layout, serving, groups))
    candidates.sort(key=lambda c: (-c[0], c[1]))
    best: tuple[tuple[float, float], int] | None = None
    chosen = None
    for ceiling, index, layout, serving, groups in candidates:
        if best is not None and _loses(work, serving, prompt, ceiling, best[0]):
            continue
        slowest = load_at(serving, work, sizing, groups[0][0]).steady
        meets = work.meets(slowest.tpot_s, slowest.ttft_s)
        # Met beats missed; then the more tokens per second, or the smaller miss; then the
        # earlier in the runtime's order.
        rank = (
            (0.0, -_node_tok_s(serving, work, sizing, groups))
            if meets
            else (1.0, work.shortfall(slowest.tpot_s, slowest.ttft_s))
        )
        if best is None or (rank, index) < best:
            best, chosen = (rank, index), layout
    return chosen


_MARGIN = 1e-9  # a bound is trusted only this far beyond the figure it is held to (float rounding)


def _ceiling(serving: Serving, answer: int, steps: int, groups: list[tuple[int, int]]) -> float:
    """Answer tokens per second the node's replicas of `serving` cannot exceed with `groups` of
    (users per replica, replicas): each replica's cycle of a request takes `steps` steps of at
    least Serving.step_floor each, while at most its users' requests are in flight
    (Serving.steady's total)."""
    cycle = steps * serving.step_floor
    if cycle <= 0:
        return math.inf
    return sum(batch * count for batch, count in groups) * answer / cycle


def _loses(work: Workload, serving: Serving, prompt: int, ceiling: float, best: tuple[float, float]) -> bool:
    """Whether a layout of `ceiling` (its tokens per second at most) and `serving`'s step floor
    would lose to the best rank found so far (choose_layout's), whatever its steady state: its
    time per token is at least a step, its first token at least the request's overhead and a
    step of prompt."""
    tpot = serving.step_floor * (1 - _MARGIN)
    ttft = (serving.runtime.request_overhead_s + (serving.step_floor if prompt > 0 else 0.0)) * (1 - _MARGIN)
    if best[0] == 0.0:  # a layout that meets the target was found: only a faster one that meets it wins
        return ceiling * (1 + _MARGIN) < -best[1] or not work.meets(tpot, ttft)
    return work.shortfall(tpot, ttft) > best[1]


def _most_at_target(work: Workload, sizing: Sizing, serving: Serving) -> int:
    """The most users one replica serves within the target (0 when not even one).

    Speed and first token worsen as users are added, each smoothly, so the edge is found by
    interpolating each one's miss (1 at the target) over whole numbers up to the requests the
    replica admits at once. Beyond them speed stays, and each user's wait
    for a place grows by a cycle over the admitted (the closed loop), which gives the rest directly.
    """
    admitted = min(sizing.in_flight(serving.layout), MAX_CONCURRENCY)

    def steady(batch: int) -> Steady:
        return load_at(serving, work, sizing, batch).steady

    def within(batch: int) -> bool:  # the row's own test (meets_target)
        return work.meets(steady(batch).tpot_s, steady(batch).ttft_s)

    def misses(batch: int) -> tuple[float, float]:  # by how much speed and first token miss, as logarithms
        speed, first = work.misses(steady(batch).tpot_s, steady(batch).ttft_s)
        return math.log(max(speed, 1e-300)), math.log(max(first, 1e-300))

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
    # Bracket [lo, hi]: lo within the target, hi not. Each of the two misses (speed, first
    # token) grows smoothly with the users, and the edge is where the first of them reaches the
    # target: each one that misses at hi is read as a curve through the loads read nearest its
    # edge, its logarithm against the square root of the users (on those scales it is nearest a
    # line across the catalog's models and cards), and the nearer edge is tried. A guess that
    # rounds onto an end moves to its neighbor inside; after three guesses running that each
    # narrowed the bracket by less than half, the next is its middle.
    lo, hi = 1, admitted
    read = {lo: misses(lo), hi: misses(hi)}
    kept = 0
    while hi - lo > 1:
        guess = math.inf
        for k in (0, 1):
            if read[hi][k] <= 0:
                continue  # this one is met at hi: the other sets the edge
            left = sorted(b for b in read if b <= lo)[-2:]
            right = sorted(b for b in read if b >= hi)[:2]
            near = sorted((*left, *right), key=lambda b: abs(read[b][k]))[:3]
            guess = min(guess, _root([(math.sqrt(b), read[b][k]) for b in near], math.sqrt(lo), math.sqrt(hi)) ** 2)
        if kept >= 3:
            guess, kept = (lo + hi) / 2, 0
        guess = min(max(round(guess), lo + 1), hi - 1)
        width = hi - lo
        if within(guess):
            lo = guess
        else:
            hi = guess
        read[guess] = misses(guess)
        kept = kept + 1 if hi - lo > width / 2 else 0
    return lo


def _root(points: list[tuple[float, float]], lo: float, hi: float) -> float:
    """Where the curve through `points` (x, y; y increasing with x) crosses zero between lo and
    hi: the inverse quadratic through three of them, else the line through the two that bracket
    it, else the bracket's middle."""
    if len(points) == 3:
        (x0, y0), (x1, y1), (x2, y2) = points
        if y0 != y1 and y1 != y2 and y0 != y2:
            x = (
                x0 * y1 * y2 / ((y0 - y1) * (y0 - y2))
                + x1 * y0 * y2 / ((y1 - y0) * (y1 - y2))
                + x2 * y0 * y1 / ((y2 - y0) * (y2 - y1))
            )
            if lo < x < hi:
                return x
    below = max((p for p in points if p[1] <= 0), default=None)
    above = min((p for p in points if p[1] > 0), default=None)
    if below is not None and above is not None and above[1] != below[1]:
        x = below[0] + (above[0] - below[0]) * -below[1] / (above[1] - below[1])
        if lo < x < hi:
            return x
    return (lo + hi) / 2


def at_target(work: Workload, sizing: Sizing, serving: Serving, replicas: int) -> tuple[int, int, float | None]:
    """The most users the node serves within the target on the replicas of `serving`'s layout,
    and where its price per answer token within the target is lowest: the users and the node's
    answer tokens per second there (0, 0, None where the layout never meets the target).

    The cheapest load is searched from one user a replica to the edge (tests/test_fit.py checks
    it against every batch). Users beyond the requests the replica admits at once wait for a
    place and add nothing to its tokens per second: past them the price stays that of the
    admitted, so the search stops there (the smallest of equal prices is the answer).
    """
    most = min(_most_at_target(work, sizing, serving), MAX_CONCURRENCY // replicas)
    if most < 1:
        return 0, 0, None
    dp = serving.layout.dp
    top = min(most, max(dp, sizing.in_flight(serving.layout)))

    def cost(users: int) -> float:
        return 1 / load_at(serving, work, sizing, users).total

    if dp == 1:
        batch = _cheapest_batch(cost, top)
    else:
        # Users fill the ranks in turn, each paced by the busiest: between two multiples of the
        # ranks the price falls with every user added, so the cheapest load is a multiple of them
        # (one search over those) or the edge itself.
        batch = top
        if top >= dp:
            full = dp * _cheapest_batch(lambda k: cost(k * dp), top // dp)
            batch = min((full, top), key=lambda b: (cost(b), b))
    return most * replicas, batch * replicas, load_at(serving, work, sizing, batch).total * replicas


def _cheapest_batch(cost: Callable[[int], float], most: int) -> int:
    """The batch from 1 to `most` of the lowest cost (the smallest of equals).

    The cost falls as the weights' reads are shared by more sequences, then may rise where the
    prompts' share of the steps and each sequence's own time outweigh it: one smooth valley.
    Still falling at `most`, the valley's floor is there. Else the floor lies between one user
    and `most`, and a parabola through the cheapest load found so far and its two nearest
    neighbors says where (a golden-section step where the parabola would not narrow the
    bracket by half every two rounds); the search ends on a load cheaper than both its
    neighbors, the valley's floor.
    """
    if most == 1 or cost(most) < cost(most - 1):
        return most
    lo, x, hi = 1, most - 1, most
    if x == lo or cost(lo) <= cost(x):  # the floor is not inside: searched from one user
        return _fibonacci_floor(cost, most)
    widths = [hi - lo, hi - lo]  # the bracket's width one and two rounds ago
    while hi - lo > 2:
        a, b, c = lo, x, hi
        fa, fb, fc = cost(a), cost(b), cost(c)
        q = (b - a) * (fb - fc) - (b - c) * (fb - fa)
        vertex = b - ((b - a) ** 2 * (fb - fc) - (b - c) ** 2 * (fb - fa)) / (2 * q) if q else math.nan
        if not lo < vertex < hi or hi - lo > widths[-2] / 2:
            # golden section of the larger side
            vertex = x + 0.382 * (hi - x) if hi - x > x - lo else x - 0.382 * (x - lo)
        u = min(max(round(vertex), lo + 1), hi - 1)
        if u == x:
            u = x + 1 if (vertex > x and x + 1 < hi) or x - 1 == lo else x - 1
        widths = [widths[-1], hi - lo]
        if u < x:
            if cost(u) <= cost(x):
                hi, x = x, u
            else:
                lo = u
        elif cost(u) < cost(x):
            lo, x = x, u
        else:
            hi = u
    return min((lo, x, hi), key=lambda b: (cost(b), b))


def _fibonacci_floor(cost: Callable[[int], float], most: int) -> int:
    """`_cheapest_batch` by a Fibonacci search of 1 to `most`, each round reusing one of the
    last round's two costs: where the floor is at one user or the parabola has no bracket."""
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
