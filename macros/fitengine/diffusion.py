"""Image and video models: does one card hold the pipeline, and how fast is the card relatively.

The engine sizes one whole pipeline per card: each card serves its own image or video, so a node
of n cards runs n generations at once. Splitting one generation over several cards (Wan 2.1's
FSDP and xDiT sequence parallelism) is not modeled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any

from .catalog import Catalog, Format, Gpu, Node
from .catalog_diffusion import Component, DiffusionModel, MemoryReport
from .errors import unknown
from .fit import format_support
from .memory import UNQUANTIZED_BITS
from .reasons import Reason
from .units import GB, hourly


@dataclass(frozen=True)
class DiffusionFit:
    node: str
    gpu: str
    count: int
    verdict: str  # single or none
    offload_text_encoders: bool
    need_gb: float
    capacity_gb: float
    relative_speed: float | None  # the whole node, in reference cards
    price_month_usd: float
    price_hour_usd: float
    usd_per_reference_hour: float | None  # price of one reference card's hour of work
    reason: Reason
    notes: tuple[Reason, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["reason"] = self.reason.to_dict()
        data["notes"] = [n.to_dict() for n in self.notes]
        return data


def written_resolution(text: str) -> str:
    """A catalog resolution ("832 x 480, 5 s") as pages write it: a times sign, and a duration
    joined to its unit by a no-break space. The build's pages and the answers (which the widget
    shows as they come) write it from here."""
    return re.sub(r"(\d) s\b", "\\1\u00a0s", text.replace(" x ", " × "))


def component_bits(c: Component, fmt_bits: float) -> float:
    """The precision a component is held in: its own when the pipeline fixes it (Wan's FP32
    autoencoder), else 16-bit for an autoencoder and the format's for the rest."""
    if c.bits:
        return c.bits
    return UNQUANTIZED_BITS if c.role == "vae" else fmt_bits


def pipeline_bytes(model: DiffusionModel, fmt: Format, with_text_encoders: bool = True) -> float:
    """Weights on the card plus the working memory of one generation.

    The format applies to the denoiser and the text encoders; the autoencoder stays in 16-bit
    unless the pipeline keeps it in another precision.
    """
    total = model.activation_bytes
    for c in model.components:
        if c.role == "text_encoder" and not with_text_encoders:
            continue
        total += c.params * component_bits(c, fmt.bits_per_weight) / 8
    return total


@dataclass(frozen=True)
class ReportCheck:
    """A public report beside the engine's arithmetic for the same run."""

    report: MemoryReport
    need_gb: float  # what the engine counts on the card for the report's run
    capacity_gb: float  # the share of the card the engine plans against
    engine_fits: bool
    lower_bound: bool  # an out-of-memory run at another resolution: its weights alone are counted

    @property
    def agrees(self) -> bool:
        """The engine says it fits where the run ran, and does not where it ran out of memory."""
        return self.engine_fits == (self.report.outcome == "ran")


def report_check(catalog: Catalog, model: DiffusionModel, report: MemoryReport) -> ReportCheck:
    """The engine's memory for a reported run: the denoiser at the precision the run held it in,
    the text encoders if they stayed on the card, the autoencoder, and the working memory of the
    reference resolution. The working memory is known at that resolution only: a run at a smaller
    one that ran is given it (a ceiling: fewer pixels need less), one that ran out of memory is
    not (a floor: its weights alone)."""
    a = catalog.assumptions
    floor = not report.at_reference and report.outcome == "oom"
    total = 0.0 if floor else model.activation_bytes
    for c in model.components:
        if c.role == "text_encoder" and not report.text_encoders_on_card:
            continue
        if c.role == "transformer":
            total += c.params * report.transformer_bits / 8
        elif c.role == "text_encoder":
            total += c.params * UNQUANTIZED_BITS / 8  # published in 16-bit, run so
        else:
            total += c.params * component_bits(c, UNQUANTIZED_BITS) / 8
    card = report.capacity_bytes or catalog.gpus[report.gpu].memory_usable_bytes
    capacity = card * a.usable_fraction
    return ReportCheck(report, total / GB, capacity / GB, total <= capacity, floor)


def dense_tflops(gpu: Gpu, fmt: Format) -> float:
    """The card's dense throughput in the format: FP8 where the card computes in FP8, else BF16."""
    if fmt.id == "fp8" and gpu.fp8 and gpu.fp8_tflops:
        return gpu.fp8_tflops
    return gpu.bf16_tflops


def fit_diffusion_node(catalog: Catalog, model: DiffusionModel, fmt: Format, node: Node) -> DiffusionFit:
    gpu = catalog.gpus[node.gpu]
    a = catalog.assumptions
    capacity = gpu.memory_usable_bytes * a.usable_fraction
    price_hour = hourly(node.price_month_usd, a.hours_per_month)
    full = pipeline_bytes(model, fmt)
    common = {
        "node": node.id,
        "gpu": gpu.id,
        "count": node.count,
        "capacity_gb": capacity / GB,
        "price_month_usd": node.price_month_usd,
        "price_hour_usd": price_hour,
    }

    def none(reason: Reason, need: float, notes: tuple[Reason, ...] = ()) -> DiffusionFit:
        return DiffusionFit(
            verdict="none",
            offload_text_encoders=False,
            need_gb=need / GB,
            relative_speed=None,
            usd_per_reference_hour=None,
            reason=reason,
            notes=notes,
            **common,
        )

    if not fmt.diffusion:
        return none(Reason("diffusion_format", {"format": fmt.name}), full)
    support = format_support(gpu, fmt, is_moe=False)
    if support is not None and support.code != "weight_only":
        return none(support, full)
    notes = (support,) if support is not None else ()
    offload = False
    need = full
    if full > capacity:
        need = pipeline_bytes(model, fmt, with_text_encoders=False)
        offload = True
        if need > capacity:
            reason = Reason("diffusion_no_memory", {"need": need / GB, "capacity": capacity / GB})
            return none(reason, need, notes)
    reference = catalog.gpus[a.diffusion_reference_gpu]
    relative = node.count * dense_tflops(gpu, fmt) / dense_tflops(reference, fmt)
    figures = {"need": need / GB, "capacity": capacity / GB, "replicas": node.count}
    code = "diffusion_offload" if offload else "diffusion_fits" if node.count > 1 else "diffusion_fits_one"
    reason = Reason(code, figures)
    return DiffusionFit(
        verdict="single",
        offload_text_encoders=offload,
        need_gb=need / GB,
        relative_speed=relative,
        usd_per_reference_hour=price_hour / relative,
        reason=reason,
        notes=notes,
        **common,
    )


def fit_diffusion(catalog: Catalog, model: str, fmt: str) -> list[DiffusionFit]:
    """Every node of the catalog for an image or video model, in catalog order."""
    if model not in catalog.diffusion:
        raise unknown("model", model, catalog.diffusion)
    if fmt not in catalog.formats:
        raise unknown("format", fmt, catalog.formats)
    m, f = catalog.diffusion[model], catalog.formats[fmt]
    return [fit_diffusion_node(catalog, m, f, node) for node in catalog.nodes]
