"""The catalog's image and video pipelines: their components, working memory and the public runs
they are held against, built from the catalog's plain data (see catalog.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .units import to_bytes


@dataclass(frozen=True)
class Component:
    role: str  # transformer, text_encoder, vae
    name: str
    params: int
    bits: float = 0  # the precision the pipeline keeps it in whatever the format (0: the format's; the VAE 16)


@dataclass(frozen=True)
class MemoryReport:
    """A public report of a pipeline run on one card: it ran, or it ran out of memory.
    `transformer_bits` is the precision the run held the denoiser in (Wan 2.1's generate.py keeps
    its FP32 checkpoint as stored); `text_encoders_on_card` whether they stayed on the card while
    it denoised; `at_reference` whether it was at the model's reference resolution (its working
    memory is known there only); `capacity_bytes` the card's total as the report gives it, for a
    card the catalog does not rent (0: the catalog card's `memory_usable`)."""

    outcome: str  # ran or oom
    gpu: str  # a catalog card, or "" with capacity_bytes
    card: str  # the card as the report names it
    capacity_bytes: float
    at_reference: bool
    transformer_bits: float
    text_encoders_on_card: bool
    url: str


@dataclass(frozen=True)
class DiffusionModel:
    id: str
    name: str
    kind: str  # image or video
    components: tuple[Component, ...]
    activation_bytes: float
    native_format: str | None = None  # the precision its weights are published in, when sourced
    resolution: str = ""  # the reference output the working memory is for ("1280 x 720, 5 s")
    reports: tuple[MemoryReport, ...] = ()  # public runs and out-of-memory reports it is held against


def diffusion_from_dict(m: dict[str, Any]) -> DiffusionModel:
    return DiffusionModel(
        id=m["id"],
        name=m["name"],
        kind=m["kind"],
        components=tuple(
            Component(c["role"], c["name"], int(c["params"]["value"]), float(c.get("bits", 0))) for c in m["components"]
        ),
        activation_bytes=to_bytes(m["activation"]["value"], m["activation"]["unit"]),
        native_format=m.get("native_format"),
        resolution=str(m.get("resolution", "")),
        reports=tuple(_report(r, str(m.get("resolution", ""))) for r in m.get("memory_reports", ())),
    )


def _report(r: dict[str, Any], reference: str) -> MemoryReport:
    capacity = r.get("capacity")
    return MemoryReport(
        outcome=r["outcome"],
        gpu=r.get("gpu", ""),
        card=r["card"],
        capacity_bytes=to_bytes(capacity["value"], capacity["unit"]) if capacity else 0.0,
        at_reference=r["resolution"] == reference,
        transformer_bits=float(r["transformer_bits"]),
        text_encoders_on_card=r["text_encoders"] == "card",
        url=r["url"],
    )
