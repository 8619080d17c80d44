"""Why a verdict is what it is, as a code with parameters, rendered in the reader's language.

The engine returns `Reason` values, never sentences, so that it stays free of locale state;
`render` turns them into text with the caller's words (the texts of its language by code: the
site's message catalogs at build time, engine/messages/<locale>.json in the browser; English,
`TEMPLATES`, by default) and number formatter (Babel at build time, Intl.NumberFormat in the
browser).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# Decimals of every number in a reason sentence, wherever it is written: the build, the
# guides, and the browser (whose worker reads it from here).
REASON_DIGITS = 1


@dataclass(frozen=True)
class Reason:
    code: str
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "params": dict(self.params)}


class Messages(dict[str, Any]):
    """A table of messages in English, keyed by code: what a page shows, before translation.

    English is the messages' source language: each text is a msgid of the site's gettext
    catalogs (locales/site.pot), with `<context>.<key>` as its msgctxt; a pair of texts is a
    message with plural forms (one, many). The catalogs' extractor (babel.cfg, `make messages`)
    finds every `Messages("context", {...})` written in the code; each other language's texts
    come from its catalog (locales/<locale>/LC_MESSAGES/site.po), never from here.
    """

    def __init__(self, context: str, table: dict[str, Any]) -> None:
        super().__init__(table)
        self.context = context


# The reasons' English texts. A page in another language passes its own texts for the same
# codes (`words`): the build takes them from the catalogs, the browser's worker from
# engine/messages/<locale>.json, which the build writes from them.
TEMPLATES = Messages(
    "reasons",
    {
        "single": "Fits on one card: {need} GB of {capacity} GB.",
        "single_copies": "Fits on one card: {need} GB of {capacity} GB; the node can run {replicas} independent copies.",
        "split_tp": "Split over {cards} cards, tensor parallel {tp}: {need} GB per card of {capacity} GB.",
        "split_pp": "Split over {cards} cards, tensor parallel {tp} x {pp} pipeline stages: {need} GB per card of {capacity} GB.",
        "split_layers": "Layers split over {cards} cards, one after another: {need} GB per card of {capacity} GB.",
        "split_ep": "Split over {cards} cards, tensor parallel {tp} with the experts dealt whole to the {ep} cards: {need} GB per card of {capacity} GB.",
        "split_dp": "Split over {cards} cards: attention in {dp} data-parallel ranks of {tp} card(s), each with its own requests and KV cache, the experts dealt whole to all {ep} cards: {need} GB per card of {capacity} GB.",
        "dp_ranks": "Each of the {dp} ranks serves up to {per_rank} users; their steps run together, so every user's tokens wait for the prompts of all ranks.",
        "fp8_kv_fits": "It fits with an FP8 KV cache (a vLLM option that halves the cache).",
        "replicas": "The node holds {replicas} replicas of this layout; the {users} users are spread over them, up to {per_replica} each.",
        "target_met": "Within the target: {speed} tok/s per user against {min} asked, a first token in {ttft} s against {max} s at most.",
        "target_missed": "Misses the target: {speed} tok/s per user against {min} asked, a first token in {ttft} s against {max} s at most.",
        "layout_best": "Of the {layouts} layouts that hold it, this one serves these users within the target with the most tokens an hour, hence the lowest price per token.",
        "layout_closest": "Of the {layouts} layouts that hold it, none meets the target for these users; this one comes closest.",
        "queued": "Memory and the runtime admit {admitted} requests at once; of {users} users, the others wait about {queue} s for a place (counted in the time to first token).",
        "layout_too_big": "The requested layout needs {cards} cards; this node has {count}.",
        "layout_no_tp": "{runtime} has no tensor parallelism.",
        "layout_no_pp": "{runtime} has no pipeline parallelism.",
        "layout_no_ep": "{runtime} offers no expert parallelism for this model.",
        "layout_stages": "{pp} pipeline stages is more than the model's {layers} layers.",
        "layout_heads": "Tensor parallel {tp} does not divide the {heads} attention heads.",
        "layout_kv_heads": "Tensor parallel {tp} neither divides nor is divided by the {kv_heads} KV heads.",
        "layout_width": "Tensor parallel {tp} does not split the MLP width of {width} evenly.",
        "layout_experts": "Expert parallel {ep} does not divide the {experts} experts.",
        "layout_no_dp": "{runtime} has no data-parallel attention with expert parallelism.",
        "layout_dp_dense": "Data-parallel attention ({dp} ranks) is for mixture-of-experts models: a dense model's data-parallel ranks are independent copies, which the engine already places on the node's spare cards.",
        "layout_dp_pp": "Data-parallel attention ({dp} ranks) is modeled without pipeline stages, not with {pp}.",
        "layout_block": "Tensor parallel {tp} would cut the width of {width} into slices of {slice}, not a whole number of {block}-weight quantization blocks.",
        "no_memory": "Does not fit: even split over {count} cards it needs {need} GB per card, {capacity} GB available.",
        "no_memory_one": "Does not fit: it needs {need} GB on the node's one card, {capacity} GB available.",
        "no_room": "Does not fit: the runtime reserve alone ({reserve} GB) fills the usable memory ({capacity} GB).",
        "format_unsupported": "{gpu} ({architecture}) cannot run {format}.",
        "format_moe_weight_only": "{gpu} runs {format} only through a weight-only kernel, which does not support mixture-of-experts models.",
        "weight_only": "{gpu} runs {format} only through a weight-only kernel: weights are dequantized on the fly.",
        "diffusion_fits": "The whole pipeline fits on one card: {need} GB of {capacity} GB; {replicas} generations at once on this node.",
        "diffusion_fits_one": "The whole pipeline fits on the card: {need} GB of {capacity} GB.",
        "diffusion_offload": "Fits only with the text encoders on the CPU: {need} GB of {capacity} GB on the card.",
        "diffusion_no_memory": "Does not fit on one card: {need} GB needed even with the text encoders on the CPU, {capacity} GB available. The engine sizes one whole pipeline per card: splitting one generation over several cards (FSDP and xDiT sequence parallelism, which Wan 2.1 offers) is not modeled.",
        "diffusion_format": "{format} is not a format for diffusion pipelines.",
        "topo_count": "The matrix shows {found} GPUs; {node} has {count}.",
        "topo_no_nvlink": "{pairs} do not talk over NVLink; every pair of this node should show {want}.",
        "topo_fewer_links": "{pairs} show {found} instead of {want}: some NVLinks are down.",
        "topo_all_nvlink": "All {count} GPUs reach each other over {want}, as this node promises.",
        "topo_bridge_missing": "{pairs} should be joined by an NVLink bridge but talk over PCIe.",
        "topo_bridges_ok": "The bridged GPUs ({pairs}) talk over NVLink.",
        "topo_sys_in_group": "{pairs} cross CPU sockets (SYS) although they are meant to share a tensor-parallel group.",
        "topo_sys_across_sockets": "Groups of more than {per_socket} GPUs cross CPU sockets (SYS), as this node's two sockets imply: keep tensor-parallel groups within a socket.",
        "topo_pcie_ok": "The {count} GPUs talk over PCIe, as this node promises.",
        "topo_one_socket": "{pairs} show {found}, a path within one CPU socket, while {node} has its cards on {sockets} sockets (SYS between them): is {node} the node you rent?",
        "topo_unexpected_nvlink": "{pairs} show NVLink, which {node} does not have: is this output from another machine?",
        "nv_none": "{gpu} has no NVLink.",
        "nv_links_down": "Links down or slower than the {rate} GB/s an {link} link is rated for: {gpus} active.",
        "nv_gpu_no_link": "{gpus}: no NVLink up at the {rate} GB/s an {link} link is rated for; these GPUs reach the others over PCIe only.",
        "nv_all_up": "Every GPU has its {links} NVLinks up at {speed} GB/s.",
        "nv_count": "The output lists {found} GPUs; {node} has {count}.",
        "nv_too_many": "{gpus} list more links than the {most} a {gpu} has: is this output from another machine?",
        "nv_faster_than_link": "Links report {speed} GB/s, more than an {link} link's {rate} GB/s: is this output from another machine?",
        "topo_too_many_links": "{pairs} show {found}, more NVLinks than {node} has between two cards ({want}): is this output from another machine?",
        "topo_other_node": "No pair of GPUs shows the link {node} has: is {node} the node you rent? This matrix is what {matches} should show.",
        "topo_other_node_unknown": "No pair of GPUs shows the link {node} has: is {node} the node you rent?",
        "ar_too_many": "The run used {ranks} GPUs; {node} has only {count}.",
        "ar_one_gpu": "A run on one GPU measures no link.",
        "ar_fewer": "The run used {ranks} of the node's {count} GPUs: judged as a group of {ranks}.",
        "ar_wrong": "{rows} message sizes returned wrong results: a hardware or driver fault.",
        "ar_out_of_bounds": "nccl-tests counts {tests} tests with wrong results (Out of bounds values): a hardware or driver fault.",
        "ar_unchecked": "The run did not check its results (#wrong reads N/A: it was started with -c 0), so wrong results would go unseen: run it again without -c 0.",
        "ar_healthy": "Large messages reach {busbw} GB/s of bus bandwidth ({size}), {share} % of {link}'s {rate} GB/s per direction: healthy.",
        "ar_above_line_rate": "Large messages reach {busbw} GB/s of bus bandwidth ({size}), above {link}'s {rate} GB/s per direction: the switch reduces in the fabric (NVLink SHARP). Healthy.",
        "ar_faster_than_link": "Large messages reach {busbw} GB/s of bus bandwidth ({size}), more than {link}'s {rate} GB/s per direction can carry: is this output from another machine?",
        "ar_low": "Large messages reach only {busbw} GB/s of bus bandwidth ({size}), {share} % of {link}'s {rate} GB/s per direction: low.",
        "ar_fault": "Large messages reach only {busbw} GB/s of bus bandwidth ({size}), {share} % of {link}'s {rate} GB/s per direction: a sign of a fault.",
    },
)


def _plain(value: float) -> str:
    return f"{value:,.1f}"


def render(reason: Reason, words: Mapping[str, str] | None = None, number: Callable[[float], str] = _plain) -> str:
    """The reason as a sentence in the page's language: `words` are its texts by code (English
    when None); floats go through `number`, the language's formatter."""
    templates = TEMPLATES if words is None else words
    params = {k: number(v) if isinstance(v, float) else v for k, v in reason.params.items()}
    return templates[reason.code].format(**params)
