"""The catalog as frozen dataclasses, built from plain data (YAML at build time, JSON in the browser).

`Catalog.from_dict` expects data that has already been validated (JSON Schema and cross-references,
see `macros/catalog_loader.py`); it converts every figure to the engine's units: bytes, GB/s,
seconds, TFLOPS, USD.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .architecture import Architecture, Mla, Moe, Params, count_params
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
    fp8: bool


@dataclass(frozen=True)
class Link:
    id: str
    name: str
    kind: str  # pcie, cross-socket, nvlink
    per_direction_gbps: float  # for nvlink: per link
    latency_s: float
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
class Format:
    id: str
    name: str
    bits_per_weight: float
    unquantized: tuple[str, ...]
    native: tuple[str, ...]
    weight_only: tuple[str, ...]
    weight_only_moe: bool
    diffusion: bool


@dataclass(frozen=True)
class Llm:
    id: str
    name: str
    architecture: Architecture
    params_total: int
    native_format: str = "bf16"
    max_context: int = 131072
    params_override: Params | None = None  # for a model described by its totals alone
    checkpoints: tuple[Checkpoint, ...] = ()  # published checkpoints that say what they keep in 16-bit
    left_out: tuple[str, ...] = ()  # parts of the published model the count leaves out (a vision encoder)

    def checkpoint(self, fmt_id: str) -> Checkpoint | None:
        """The published checkpoint in format `fmt_id`, if the model has one that says how it is stored."""
        return next((c for c in self.checkpoints if c.format == fmt_id), None)

    @cached_property
    def params(self) -> Params:
        """Parameters by part, counted from the shapes unless given outright (counted once)."""
        return self.params_override or count_params(self.architecture)


@dataclass(frozen=True)
class Component:
    role: str  # transformer, text_encoder, vae
    name: str
    params: int


@dataclass(frozen=True)
class DiffusionModel:
    id: str
    name: str
    kind: str  # image or video
    components: tuple[Component, ...]
    activation_bytes: float


@dataclass(frozen=True)
class Assumptions:
    usable_fraction: float
    reserve_dense_bytes: float
    reserve_moe_bytes: float
    decode_efficiency: float
    kv_bytes: int
    activation_bytes: int
    allreduces_per_layer: int
    gradient_bytes: int
    hours_per_month: float
    default_context: int
    default_concurrency: int
    diffusion_reference_gpu: str


@dataclass(frozen=True)
class Catalog:
    gpus: dict[str, Gpu]
    links: dict[str, Link]
    topologies: dict[str, Topology]
    nodes: tuple[Node, ...]
    formats: dict[str, Format]
    llms: dict[str, Llm]
    diffusion: dict[str, DiffusionModel]
    assumptions: Assumptions

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Catalog:
        """Build the catalog from the merged contents of the catalog files."""
        return cls(
            gpus={g["id"]: _gpu(g) for g in data["gpus"]},
            links={x["id"]: _link(x) for x in data["links"]},
            topologies={t["id"]: Topology(t["id"], t["name"], t["nvlink"]) for t in data["topologies"]},
            nodes=tuple(_node(n) for n in data["nodes"]),
            formats={f["id"]: _format(f) for f in data["formats"]},
            llms={m["id"]: _llm(m) for m in data["llms"]},
            diffusion={m["id"]: _diffusion(m) for m in data["diffusion"]},
            assumptions=_assumptions(data["assumptions"]),
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
    nvlink = None
    if nv:
        nvlink = NvLink(nv["generation"], nv["form"], float(_v(nv["per_direction"])), nv.get("bridge_group", 0))
    fp8 = g.get("fp8_dense")
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
    )


def architecture_from_dict(a: dict[str, Any]) -> Architecture:
    """Build an Architecture from the catalog's `architecture` mapping."""
    fields = dict(a)
    mla = fields.pop("mla", None)
    moe = fields.pop("moe", None)
    return Architecture(
        **fields,
        mla=Mla(**mla) if mla else None,
        moe=Moe(**moe) if moe else None,
    )


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
        source=c["source"],
    )


def _diffusion(m: dict[str, Any]) -> DiffusionModel:
    return DiffusionModel(
        id=m["id"],
        name=m["name"],
        kind=m["kind"],
        components=tuple(Component(c["role"], c["name"], int(_v(c["params"]))) for c in m["components"]),
        activation_bytes=to_bytes(_v(m["activation"]), m["activation"]["unit"]),
    )


def _assumptions(a: dict[str, Any]) -> Assumptions:
    def val(key: str) -> Any:
        return a[key]["value"]

    return Assumptions(
        usable_fraction=float(val("usable_fraction")),
        reserve_dense_bytes=to_bytes(val("reserve_dense"), a["reserve_dense"]["unit"]),
        reserve_moe_bytes=to_bytes(val("reserve_moe"), a["reserve_moe"]["unit"]),
        decode_efficiency=float(val("decode_efficiency")),
        kv_bytes=int(val("kv_bytes")),
        activation_bytes=int(val("activation_bytes")),
        allreduces_per_layer=int(val("allreduces_per_layer")),
        gradient_bytes=int(val("gradient_bytes")),
        hours_per_month=float(val("hours_per_month")),
        default_context=int(val("default_context")),
        default_concurrency=int(val("default_concurrency")),
        diffusion_reference_gpu=str(val("diffusion_reference_gpu")),
    )
