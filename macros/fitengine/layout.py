"""Parallel layouts and the rules a runtime checks before it accepts one.

A layout spreads one replica of a model over `tp` x `pp` x `dp` cards: `tp` cards share every
layer (tensor parallelism), `pp` groups of layers run one after another (pipeline stages, or
llama.cpp's layer split). With expert parallelism (`ep` > 1) the experts of an MoE layer are
dealt whole to the `ep` cards of the tensor-parallel group instead of being sliced.

Data-parallel attention (`dp` > 1, vLLM's --data-parallel-size with --enable-expert-parallel,
MoE models only): `dp` ranks of `tp` cards each run attention and the dense layers on their own
requests, with their own KV cache, while the experts are dealt whole to all `dp` x `tp` cards
(`ep` = dp x tp: docs/serving/expert_parallel_deployment.md, EP_SIZE = TP_SIZE x DP_SIZE). Its
ranks step together: the expert layers of every rank synchronize at each forward pass, idle
ranks running empty ones (docs/serving/data_parallel_deployment.md).

vLLM refuses a tensor-parallel degree that does not divide the attention heads, a KV-head count
that neither divides nor is divided by it, an MLP or expert width that does not split evenly,
and a slice that would cut a quantization block or group. Each refusal is a `Reason`.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

from .architecture import Architecture
from .catalog import Runtime
from .reasons import Reason


class Layout(NamedTuple):
    """A replica's layout (a tuple: a key of the engine's memos, hashed and compared thousands of
    times an answer)."""

    tp: int = 1
    pp: int = 1
    ep: int = 1  # 1: experts sliced like the other matrices; tp (or dp x tp): experts dealt whole
    dp: int = 1  # data-parallel attention ranks, each of tp cards

    @property
    def cards(self) -> int:
        """The cards of one replica."""
        return self.tp * self.pp * self.dp

    @property
    def expert_slices(self) -> int:
        """The cards each routed expert is sliced over: 1 where experts are dealt whole, else every
        card of a stage (with data-parallel attention the experts span all the ranks)."""
        return 1 if self.ep > 1 else self.tp * self.dp


def refusal(arch: Architecture, runtime: Runtime, layout: Layout, block: int = 0, expert_pad: int = 0) -> Reason | None:
    """Why `runtime` refuses `layout` for this model (None when it accepts it).

    `block`: the quantization block or group of the checkpoint's weights (0 when there is none);
    each card's slice of a row-split matrix must hold whole blocks, unless the format pads an
    expert's slice up to a multiple of `expert_pad` (vLLM's MXFP4 MoE kernels).
    """
    return _refusal(
        arch.heads, arch.kv_heads, arch.intermediate, arch.layers, _moe_shape(arch), runtime, layout, block, expert_pad
    )


def _moe_shape(arch: Architecture) -> tuple[int, int, int]:
    if arch.moe is None:
        return (0, 0, 0)
    return (arch.moe.experts, arch.moe.expert_intermediate, arch.moe.dense_layers)


@cache
def _refusal(
    heads: int,
    kv_heads: int,
    intermediate: int,
    layers: int,
    moe: tuple[int, int, int],
    runtime: Runtime,
    layout: Layout,
    block: int,
    expert_pad: int = 0,
) -> Reason | None:
    tp, pp, ep, dp = layout.tp, layout.pp, layout.ep, layout.dp
    experts, expert_width, dense_layers = moe
    if tp > 1 and "tensor" not in runtime.parallel:
        return Reason("layout_no_tp", {"runtime": runtime.name})
    if pp > 1 and not ({"pipeline", "layer"} & set(runtime.parallel)):
        return Reason("layout_no_pp", {"runtime": runtime.name})
    if dp > 1 and not {"data", "expert"} <= set(runtime.parallel):
        return Reason("layout_no_dp", {"runtime": runtime.name})
    if dp > 1 and not experts:
        return Reason("layout_dp_dense", {"dp": dp})
    if dp > 1 and pp > 1:
        return Reason("layout_dp_pp", {"dp": dp, "pp": pp})
    if ep > 1 and ("expert" not in runtime.parallel or not experts):
        return Reason("layout_no_ep", {"runtime": runtime.name})
    if pp > layers:
        return Reason("layout_stages", {"pp": pp, "layers": layers})
    if dp > 1 and experts % ep:
        return Reason("layout_experts", {"ep": ep, "experts": experts})
    if tp == 1:
        return None
    if heads % tp:
        return Reason("layout_heads", {"tp": tp, "heads": heads})
    if kv_heads % tp and tp % kv_heads:
        return Reason("layout_kv_heads", {"tp": tp, "kv_heads": kv_heads})
    widths = []  # (width, whether its slices are padded)
    if not experts or dense_layers:
        widths.append((intermediate, False))
    if experts and ep == 1:
        widths.append((expert_width, expert_pad > 0))
    if experts and ep > 1 and experts % ep:
        return Reason("layout_experts", {"ep": ep, "experts": experts})
    for width, padded in widths:
        if width % tp:
            return Reason("layout_width", {"tp": tp, "width": width})
        if block and not padded and (width // tp) % block:
            return Reason("layout_block", {"tp": tp, "width": width, "slice": width // tp, "block": block})
    return None


def candidates(count: int, runtime: Runtime, moe: bool) -> tuple[Layout, ...]:
    """Every layout a practitioner would launch on a node of `count` cards, in the order they try them.

    Card counts that divide the node (its other cards then hold whole replicas), fewest first;
    for a number of cards, fewest pipeline stages first; for an MoE model under a runtime with
    expert parallelism, experts dealt whole only after every sliced layout of as many cards, and
    then (where the runtime has data-parallel attention) attention in data-parallel ranks, the
    most ranks first. A layer-split runtime only ever splits layers.
    """
    expert = moe and "expert" in runtime.parallel
    return _candidates(count, runtime.kind == "layer-split", expert, expert and "data" in runtime.parallel)


@cache
def _candidates(count: int, layer_split: bool, expert: bool, data: bool = False) -> tuple[Layout, ...]:
    out: list[Layout] = []
    for cards in (n for n in range(1, count + 1) if count % n == 0):
        if layer_split:
            out.append(Layout(1, cards))
            continue
        splits = [(cards // pp, pp) for pp in range(1, cards + 1) if cards % pp == 0]
        out += [Layout(tp, pp) for tp, pp in splits]
        if expert:
            out += [Layout(tp, pp, tp) for tp, pp in splits if tp > 1]
        if data:
            ranks = [dp for dp in range(cards, 1, -1) if cards % dp == 0]
            out += [Layout(cards // dp, 1, cards, dp) for dp in ranks]
    return tuple(out)
