"""The catalog as frozen dataclasses, built from plain data (YAML at build time, JSON in the browser).

`Catalog.from_dict` expects data that has already been validated (JSON Schema and cross-references,
see `macros/catalog_loader.py`); it converts every figure to the engine's units: bytes, GB/s,
seconds, TFLOPS, USD.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .architecture import Architecture, Mla, Moe, Params, count_params
from .catalog_diffusion import DiffusionModel, diffusion_from_dict
from .checkpoint import Checkpoint
from .units import to_bytes


@dataclass(frozen=True)
class NvLink:
    generation: int
    form: str  # "sxm" or "bridge"
    per_direction_gbps: float
    bridge_group: int = 0


@dataclass(frozen=True)
class Gpu:
    id: str
    name: str
    architecture: str
    memory_sold_gb: float
    memory_usable_bytes: float
    memory_bandwidth_gbps: float
    pcie_generation: int
    nvlink: NvLink | None
    bf16_tflops: float
    fp8_tflops: float | None
    fp4_tflops: float | None
    fp8: bool


@dataclass(frozen=True)
class Link:
    id: str
    name: str
    kind: str  # pcie, cross-socket, nvlink
    per_direction_gbps: float  # for nvlink: per link
    latency_s: float  # per step of NCCL's ring
    busbw_share: float  # of per_direction_gbps, reached by NCCL's ring all-reduce on large messages
    generation: int = 0
    max_links: int = 0


@dataclass(frozen=True)
class Topology:
    id: str
    name: str
    nvlink: str  # none, bridge, sxm


@dataclass(frozen=True)
class Node:
    id: str
    gpu: str
    count: int
    topology: str
    sockets: int
    pcie: str
    price_month_usd: float
    nvlink_group: int = 0


@dataclass(frozen=True)
class TensorRate:
    rate: str  # the card's tensor rate a format's quantized products reach on `architectures`: fp8 or fp4
    parts: str  # which products: linear (every quantized matrix) or experts (the experts alone)
    architectures: tuple[str, ...]


# The MoE kernels a format can name (formats.yaml `<kernels>_moe`), in the order they are read.
MOE_KERNELS = ("marlin", "flashinfer", "triton", "deepgemm")


@dataclass(frozen=True)
class Format:
    id: str
    name: str
    bits_per_weight: float
    unquantized: tuple[str, ...]
    native: tuple[str, ...]
    weight_only: tuple[str, ...]
    weight_only_moe: bool
    diffusion: bool
    runtime: str = "vllm"  # the runtime that serves it by default
    group_size: int = 0  # weights sharing one scale along a row (0: per tensor or per channel)
    expert_pad: int = 0  # an expert slice's width is padded up to a multiple of it (0: not padded)
    # (kernels, intermediate multiple, hidden multiple) where a card's MoE kernels pad otherwise than expert_pad
    expert_pads: tuple[tuple[str, int, int], ...] = ()
    moe_kernels: tuple[tuple[str, str], ...] = ()  # (architecture, marlin | flashinfer | triton | deepgemm)
    tensor_rate: TensorRate | None = None  # a lower-precision tensor rate its quantized products reach on some cards
    kernel_share: float = 1.0  # the share of the runtime's bandwidth and throughput its kernels reach (measured)

    def kernels_on(self, architecture: str) -> str:
        """The MoE kernels the format's experts run through on a card of `architecture`
        (formats.yaml `<kernels>_moe`), "" for the runtime's usual ones."""
        return dict(self.moe_kernels).get(architecture, "")

    def pad_multiples(self, kernels: str) -> tuple[int, int]:
        """The multiples `kernels` pad each card's slice of an expert to: its intermediate width
        and the hidden width (`expert_pad` and 1 where the kernels give none of their own)."""
        pads = {k: (intermediate, hidden) for k, intermediate, hidden in self.expert_pads}
        return pads.get(kernels, (self.expert_pad, 1))


@dataclass(frozen=True)
class Runtime:
    """A serving runtime: what it runs, which layouts it accepts, how it spends memory and time.
    `kind` is "server" (vLLM class: tensor, pipeline and expert parallelism, a utilization cap)
    or "layer-split" (llama.cpp: consecutive layers on consecutive cards, no cap)."""

    id: str
    name: str
    kind: str
    formats: tuple[str, ...]
    parallel: tuple[str, ...]  # tensor, pipeline, expert, layer
    memory_utilization: float
    batched_tokens: int
    batched_tokens_large: int
    large_card_bytes: float
    max_sequences: int
    max_sequences_large: int
    activation_per_vocab_token: float  # bytes
    activation_per_hidden_token: float  # bytes
    fixed_per_card_bytes: float
    fixed_per_card_split_bytes: float
    bandwidth_efficiency: float
    compute_efficiency: float
    layer_overhead_s: float
    moe_layer_overhead_s: float
    request_overhead_s: float
    arrival_burst: float  # share of the other users' prompts that arrive with a request
    mla_layer_overhead_s: float = 0  # extra fixed time of a layer with multi-head latent attention
    marlin_moe_layer_overhead_s: float = 0  # extra fixed time of an MoE layer run through Marlin's kernels
    flashinfer_moe_layer_overhead_s: float = 0  # an MoE layer's fixed time through FlashInfer's fused kernels
    triton_moe_bandwidth_share: float = 1.0  # of the bandwidth reached, reading experts through Triton's fused_moe
    deepgemm_moe_bandwidth_share: float = 1.0  # the same, through DeepGEMM's grouped kernels
    moe_compute_share: float = 1.0  # of the throughput reached, by the experts' grouped matrix products
    sequence_overhead_s: float = 0  # time each sequence of a step adds outside the model (scheduling, sampling, output)
    ungraphed_layer_overhead_s: float = 0  # time a layer adds to a step run without CUDA graphs
    ungraphed_moe_layer_overhead_s: float = 0  # and an MoE layer on top of it
    custom_allreduce_max_bytes: float = 0  # 0: the runtime has no all-reduce kernel of its own
    custom_allreduce_latency_s: float = 0
    custom_allreduce_latency_per_card_s: float = 0
    custom_allreduce_efficiency: float = 0
    # The release the constants above hold from, and earlier releases' bandwidth share (() and 0: none given).
    current_from: tuple[int, ...] = ()
    earlier_bandwidth_efficiency: float = 0

    def moe_layer_time(self, kernels: str) -> float:
        """An MoE layer's fixed time through `kernels` (formats.yaml `<kernels>_moe`; "": the usual ones):
        FlashInfer's its own, Marlin's the usual one and more."""
        if kernels == "flashinfer":
            return self.flashinfer_moe_layer_overhead_s
        return self.moe_layer_overhead_s + (self.marlin_moe_layer_overhead_s if kernels == "marlin" else 0.0)

    def moe_bandwidth_share(self, kernels: str) -> float:
        """The share of the bandwidth reached that experts are read at through `kernels` (1: like any weight)."""
        shares = {"triton": self.triton_moe_bandwidth_share, "deepgemm": self.deepgemm_moe_bandwidth_share}
        return shares.get(kernels, 1.0)


@dataclass(frozen=True)
class Llm:
    id: str
    name: str
    architecture: Architecture
    params_total: int
    native_format: str = "bf16"
    max_context: int = 131072
    params_override: Params | None = None  # for a model described by its totals alone
    checkpoints: tuple[Checkpoint, ...] = ()  # published checkpoints that say how they are stored
    left_out: tuple[str, ...] = ()  # parts of the published model the count leaves out (a vision encoder)

    def checkpoint(self, fmt_id: str) -> Checkpoint | None:
        """The published checkpoint in format `fmt_id`, if the model has one that says how it is stored."""
        return next((c for c in self.checkpoints if c.format == fmt_id), None)

    @cached_property
    def params(self) -> Params:
        """Parameters by part, counted from the shapes unless given outright (counted once)."""
        return self.params_override or count_params(self.architecture)


@dataclass(frozen=True)
class Assumptions:
    usable_fraction: float  # diffusion pipelines; language models follow their runtime
    kv_bytes: int
    kv_bytes_fp8: int
    activation_bytes: int
    allreduces_per_layer: int
    gradient_bytes: int
    hours_per_month: float
    default_context: int
    default_concurrency: int
    default_input_tokens: int
    default_output_tokens: int
    target_tok_s: float
    target_ttft_s: float
    diffusion_reference_gpu: str


@dataclass(frozen=True)
class ApiPrice:
    """A per-token API's published price for a catalog model, per million tokens in and out."""

    id: str
    provider: str
    model: str
    input_usd_per_mtok: float
    output_usd_per_mtok: float
    url: str
    read: str  # the day the price was read, ISO 8601

    def per_output_mtok(self, input_tokens: int, output_tokens: int) -> float:
        """The bill per million output tokens for requests of these lengths (the prompts billed in)."""
        return self.output_usd_per_mtok + self.input_usd_per_mtok * input_tokens / output_tokens


@dataclass(frozen=True)
class Catalog:
    gpus: dict[str, Gpu]
    links: dict[str, Link]
    topologies: dict[str, Topology]
    nodes: tuple[Node, ...]
    formats: dict[str, Format]
    runtimes: dict[str, Runtime]
    llms: dict[str, Llm]
    diffusion: dict[str, DiffusionModel]
    assumptions: Assumptions
    error_band: dict[str, Any] | None = None  # catalog/validation/error_band.json, when present
    silicon_band: dict[str, Any] | None = None  # catalog/validation/silicon_band.json: other cards' points
    api_prices: dict[str, ApiPrice] = field(default_factory=dict)  # catalog/api_prices.yaml
    # What the engine works out from this catalog and keeps for its next question (sizing.Kept):
    # never part of the catalog's value, empty in every catalog made anew (dataclasses.replace too).
    memo: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Catalog:
        """Build the catalog from the merged contents of the catalog files."""
        return cls(
            gpus={g["id"]: _gpu(g) for g in data["gpus"]},
            links={x["id"]: _link(x) for x in data["links"]},
            topologies={t["id"]: Topology(t["id"], t["name"], t["nvlink"]) for t in data["topologies"]},
            nodes=tuple(_node(n) for n in data["nodes"]),
            formats={f["id"]: _format(f) for f in data["formats"]},
            runtimes={r["id"]: _runtime(r) for r in data["runtimes"]},
            llms={m["id"]: _llm(m) for m in data["llms"]},
            diffusion={m["id"]: diffusion_from_dict(m) for m in data["diffusion"]},
            assumptions=_assumptions(data["assumptions"]),
            error_band=data.get("error_band"),
            silicon_band=data.get("silicon_band"),
            api_prices={p["id"]: _api_price(p) for p in data.get("api_prices", ())},
        )

    def node(self, node_id: str) -> Node:
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)


def _v(figure: dict[str, Any]) -> Any:
    return figure["value"]


def _gpu(g: dict[str, Any]) -> Gpu:
    nv = g.get("nvlink")
    nvlink = nv and NvLink(nv["generation"], nv["form"], float(_v(nv["per_direction"])), nv.get("bridge_group", 0))
    fp8, fp4 = g.get("fp8_dense"), g.get("fp4_dense")
    return Gpu(
        id=g["id"],
        name=g["name"],
        architecture=g["architecture"],
        memory_sold_gb=float(_v(g["memory_sold"])),
        memory_usable_bytes=to_bytes(_v(g["memory_usable"]), g["memory_usable"]["unit"]),
        memory_bandwidth_gbps=float(_v(g["memory_bandwidth"])),
        pcie_generation=g["pcie"]["generation"],
        nvlink=nvlink,
        bf16_tflops=float(_v(g["bf16_dense"])),
        fp8_tflops=float(_v(fp8)) if fp8 else None,
        fp4_tflops=float(_v(fp4)) if fp4 else None,
        fp8=bool(g["fp8"]),
    )


def _link(x: dict[str, Any]) -> Link:
    rate = x.get("per_direction") or x["per_link"]
    return Link(
        id=x["id"],
        name=x["name"],
        kind=x["kind"],
        per_direction_gbps=float(_v(rate)),
        latency_s=float(_v(x["latency"])) * 1e-6,
        busbw_share=float(_v(x["busbw_share"])),
        generation=x.get("pcie_generation") or x.get("nvlink_generation") or 0,
        max_links=x.get("max_links", 0),
    )


def _node(n: dict[str, Any]) -> Node:
    return Node(
        id=n["id"],
        gpu=n["gpu"],
        count=n["count"],
        topology=n["topology"],
        sockets=n["sockets"],
        pcie=n["pcie"],
        price_month_usd=float(_v(n["price_month"])),
        nvlink_group=n.get("nvlink_group", 0),
    )


def _format(f: dict[str, Any]) -> Format:
    return Format(
        id=f["id"],
        name=f["name"],
        bits_per_weight=float(_v(f["bits_per_weight"])),
        unquantized=tuple(f["unquantized"]),
        native=tuple(f["native"]),
        weight_only=tuple(f["weight_only"]),
        weight_only_moe=bool(f["weight_only_moe"]),
        diffusion=bool(f["diffusion"]),
        runtime=f.get("runtime", "vllm"),
        group_size=int(f["group_size"]["value"]) if f.get("group_size") else 0,
        expert_pad=int(f["expert_pad"]["value"]) if f.get("expert_pad") else 0,
        expert_pads=tuple(
            (k, int(pad["intermediate"]), int(pad["hidden"]))
            for k in MOE_KERNELS
            if (pad := f.get(f"{k}_moe", {}).get("pad"))
        ),
        moe_kernels=tuple((a, k) for k in MOE_KERNELS for a in f.get(f"{k}_moe", {}).get("architectures", ())),
        tensor_rate=TensorRate(r["rate"], r["parts"], tuple(r["architectures"]))
        if (r := f.get("tensor_rate"))
        else None,
        kernel_share=float(f["kernel_share"]["value"]) if f.get("kernel_share") else 1.0,
    )


def _runtime(r: dict[str, Any]) -> Runtime:
    def val(key: str) -> float:
        return float(r[key]["value"])

    def optional(key: str, scale: float = 1.0, default: float = 0.0) -> float:
        return val(key) * scale if key in r else default

    return Runtime(
        id=r["id"],
        name=r["name"],
        kind=r["kind"],
        formats=tuple(r["formats"]),
        parallel=tuple(r["parallel"]),
        memory_utilization=val("memory_utilization"),
        batched_tokens=int(val("batched_tokens")),
        batched_tokens_large=int(val("batched_tokens_large")),
        large_card_bytes=to_bytes(val("large_card_memory"), r["large_card_memory"]["unit"]),
        max_sequences=int(val("max_sequences")),
        max_sequences_large=int(val("max_sequences_large")),
        activation_per_vocab_token=val("activation_per_vocab_token"),
        activation_per_hidden_token=val("activation_per_hidden_token"),
        fixed_per_card_bytes=to_bytes(val("fixed_per_card"), r["fixed_per_card"]["unit"]),
        fixed_per_card_split_bytes=to_bytes(val("fixed_per_card_split"), r["fixed_per_card_split"]["unit"]),
        bandwidth_efficiency=val("bandwidth_efficiency"),
        compute_efficiency=val("compute_efficiency"),
        layer_overhead_s=val("layer_overhead") * 1e-6,
        moe_layer_overhead_s=(moe := val("moe_layer_overhead") * 1e-6),
        request_overhead_s=val("request_overhead") * 1e-3,
        arrival_burst=val("arrival_burst"),
        mla_layer_overhead_s=optional("mla_layer_overhead", 1e-6),
        marlin_moe_layer_overhead_s=optional("marlin_moe_layer_overhead", 1e-6),
        flashinfer_moe_layer_overhead_s=optional("flashinfer_moe_layer_overhead", 1e-6, moe),
        triton_moe_bandwidth_share=optional("triton_moe_bandwidth_share", 1.0, 1.0),
        deepgemm_moe_bandwidth_share=optional("deepgemm_moe_bandwidth_share", 1.0, 1.0),
        moe_compute_share=optional("moe_compute_share", 1.0, 1.0),
        sequence_overhead_s=optional("sequence_overhead", 1e-6),
        ungraphed_layer_overhead_s=optional("ungraphed_layer_overhead", 1e-6),
        ungraphed_moe_layer_overhead_s=optional("ungraphed_moe_layer_overhead", 1e-6),
        **_custom_allreduce(r),
        current_from=tuple(int(part) for part in r["current_from"].split(".")) if "current_from" in r else (),
        earlier_bandwidth_efficiency=optional("earlier_bandwidth_efficiency"),
    )


def _custom_allreduce(r: dict[str, Any]) -> dict[str, float]:
    if "custom_allreduce_max" not in r:
        return {}
    return {
        "custom_allreduce_max_bytes": to_bytes(r["custom_allreduce_max"]["value"], r["custom_allreduce_max"]["unit"]),
        "custom_allreduce_latency_s": float(r["custom_allreduce_latency"]["value"]) * 1e-6,
        "custom_allreduce_latency_per_card_s": float(r["custom_allreduce_latency_per_card"]["value"]) * 1e-6,
        "custom_allreduce_efficiency": float(r["custom_allreduce_efficiency"]["value"]),
    }


def architecture_from_dict(a: dict[str, Any]) -> Architecture:
    """Build an Architecture from the catalog's `architecture` mapping."""
    fields = dict(a)
    mla = fields.pop("mla", None)
    moe = fields.pop("moe", None)
    return Architecture(**fields, mla=Mla(**mla) if mla else None, moe=Moe(**moe) if moe else None)


def _llm(m: dict[str, Any]) -> Llm:
    return Llm(
        id=m["id"],
        name=m["name"],
        architecture=architecture_from_dict(m["architecture"]),
        params_total=int(_v(m["params_total"])),
        native_format=m["native_format"],
        max_context=m["max_context"],
        checkpoints=tuple(_checkpoint(c) for c in m.get("checkpoints", ())),
    )


def _checkpoint(c: dict[str, Any]) -> Checkpoint:
    unquantized = c.get("unquantized")
    block = c.get("block_size") or (0, 0)
    return Checkpoint(
        format=c["format"],
        unquantized=None if unquantized is None else tuple(unquantized),
        method=c.get("method", ""),
        bits=c.get("bits", 0),
        group_size=c.get("group_size", 0),
        block_n=block[0],
        block_k=block[1],
        partly_unquantized=tuple(c.get("partly_unquantized", ())),
        intermediate=c.get("intermediate", 0),
        source=c["source"],
    )


def _assumptions(a: dict[str, Any]) -> Assumptions:
    def val(key: str) -> Any:
        return a[key]["value"]

    return Assumptions(
        usable_fraction=float(val("usable_fraction")),
        kv_bytes=int(val("kv_bytes")),
        kv_bytes_fp8=int(val("kv_bytes_fp8")),
        activation_bytes=int(val("activation_bytes")),
        allreduces_per_layer=int(val("allreduces_per_layer")),
        gradient_bytes=int(val("gradient_bytes")),
        hours_per_month=float(val("hours_per_month")),
        default_context=int(val("default_context")),
        default_concurrency=int(val("default_concurrency")),
        default_input_tokens=int(val("default_input_tokens")),
        default_output_tokens=int(val("default_output_tokens")),
        target_tok_s=float(val("target_tok_s")),
        target_ttft_s=float(val("target_ttft_s")),
        diffusion_reference_gpu=str(val("diffusion_reference_gpu")),
    )


def _api_price(p: dict[str, Any]) -> ApiPrice:
    return ApiPrice(
        id=p["id"],
        provider=p["provider"],
        model=p["model"],
        input_usd_per_mtok=float(p["input"]["value"]),
        output_usd_per_mtok=float(p["output"]["value"]),
        url=p["url"],
        read=str(p["read"]),
    )
