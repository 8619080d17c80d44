"""The image and video guide (docs/<locale>/guides/image-et-video.md, image-and-video.md): diffusion
pipelines, their memory reports, and the published times per image (catalog/image_timings.yaml).
"""

from __future__ import annotations

from typing import Any

from macros.build.engine_cache import evaluate
from macros.fitengine import (
    GB,
    DiffusionFit,
)
from macros.fitengine.diffusion import written_resolution
from macros.fitengine.units import SECONDS_PER_HOUR, hourly
from macros.guides.base import GuideBase, _table
from macros.render.markup import code, markup
from macros.render.markup import text as _text


class ImageVideoGuide(GuideBase):
    """The image and video guide's tables and figures: pipelines, memory reports, published times."""

    MACROS = (
        "diffusion_table",
        "diffusion_weights",
        "diffusion_reports_table",
        "image_timing_table",
        "image_implied",
        "image_cheapest_engine",
        "image_ratio",
        "image_cheapest",
    )

    def diffusion_table(self, fmt_id: str = "bf16") -> str:
        """Each image or video model: the cheapest node that holds it, and the cheapest per unit of work."""
        t, c = self.t, self.catalog
        rows = []
        for model_id, model in c.diffusion.items():
            fits = [r for r in evaluate(c, {"model": model_id, "format": fmt_id}).fits if r.verdict == "single"]
            need = min((r.need_gb for r in fits if not r.offload_text_encoders), default=None)
            cheapest = min(fits, key=lambda r: r.price_month_usd, default=None)
            best = min(fits, key=lambda r: r.usd_per_reference_hour or 0, default=None)
            rows.append(
                [
                    model.name,
                    self._resolution(model.resolution),
                    self.fmt.unit(need, "GB", 1) if need else "—",
                    self._diffusion_node(cheapest),
                    self._diffusion_node(best, per_work=True),
                ]
            )
        return _table([t["model"], t["resolution"], t["pipeline"], t["cheapest_card"], t["cheapest_work"]], rows)

    def diffusion_weights(self, model_id: str, bits: int) -> str:
        """An image or video model's weights with its denoiser and text encoders at `bits` bits
        (the autoencoder at the precision its pipeline keeps it in)."""
        from macros.fitengine.diffusion import component_bits

        model = self.catalog.diffusion[model_id]
        total = sum(c.params * component_bits(c, bits) / 8 for c in model.components if c.role != "text_encoder")
        return self.fmt.unit(total / GB, "GB", 1)

    def diffusion_reports_table(self, model_id: str) -> str:
        """Public runs and out-of-memory reports of an image or video model, beside what the
        engine counts for the same run (fitengine.diffusion.report_check)."""
        from macros.fitengine.diffusion import report_check

        t, c = self.t, self.catalog
        model = c.diffusion[model_id]
        entry = next(d for d in self.data["diffusion"] if d["id"] == model_id)
        rows = []
        # The run's resolution is the report's words (the typed report keeps whether it is the reference).
        for report, raw in zip(model.reports, entry.get("memory_reports", ()), strict=True):
            check = report_check(c, model, report)
            run = markup(
                "{}, {}, {}",
                self._resolution(raw["resolution"]),
                t["rep_dit"].format(bits=self.fmt.number(report.transformer_bits)),
                t["rep_text_card" if report.text_encoders_on_card else "rep_text_cpu"],
            )
            figures = {
                "need": self.fmt.unit(check.need_gb, "GB", 1),
                "capacity": self.fmt.unit(check.capacity_gb, "GB", 1),
            }
            rows.append(
                [
                    report.card,
                    run,
                    t["rep_ran" if report.outcome == "ran" else "rep_oom"],
                    t["rep_floor" if check.lower_bound else "rep_need"].format(**figures),
                    t["val_ok"] if check.agrees else t["val_off"],
                    self._cite(report.url),
                ]
            )
        header = [t["rep_card"], t["rep_run"], t["rep_outcome"], t["rep_engine"], t["rep_agrees"], t["source"]]
        return _table(header, rows)

    def image_timing_table(self, *timing_ids: str) -> str:
        """Published times per image on several cards, each card's measured speed against the
        first's, beside the ratio of their datasheet throughput that the engine prices work by."""
        t, c = self.t, self.catalog
        first = self._timing(timing_ids[0])
        ref_name = self._short(c.gpus[first["gpu"]].name)
        rows = []
        for timing_id in timing_ids:
            timing = self._timing(timing_id)
            measure = markup(
                "{}, {}, {}, {}",
                timing["published_model"],
                self._resolution(timing["resolution"]),
                t["img_steps"].format(steps=self.fmt.number(timing["steps"])),
                c.formats[timing["format"]].name,
            )
            measured, datasheet = self._image_ratios(timing_ids[0], timing_id)
            rows.append(
                [
                    self._short(c.gpus[timing["gpu"]].name),
                    measure,
                    self.fmt.unit(timing["seconds"]["value"], "s", 1),
                    f"×{self.fmt.number(measured, 2)}",  # a factor as the configurator writes it (×1,17)
                    f"×{self.fmt.number(datasheet, 2)}",
                    self.fmt.usd(
                        self._card_hour(timing["gpu"]) * timing["seconds"]["value"] / SECONDS_PER_HOUR * 1000,
                        cents=True,
                    ),
                    self.fmt.unit(self._implied_tflops(timing), "TFLOPS", 0),
                    self.fmt.unit(self._dense_tflops(timing), "TFLOPS", 0),
                    self._cite(timing["url"]),
                ]
            )
        header = [t["gpu"], t["img_measure"], t["img_time"], t["img_ratio"].format(ref=ref_name), t["img_engine"]]
        return _table([*header, t["img_thousand"], t["img_implied"], t["img_peak"], t["source"]], rows)

    def _implied_tflops(self, timing: dict[str, Any]) -> float:
        """The dense throughput a published time implies at the least: the denoiser's matrix
        products alone, 2 x its parameters x the tokens of a step, over every step."""
        model = self.catalog.diffusion[timing["model"]]
        params = sum(c.params for c in model.components if c.role == "transformer")
        return 2 * params * timing["tokens"]["value"] * timing["steps"] / timing["seconds"]["value"] / 1e12

    def _dense_tflops(self, timing: dict[str, Any]) -> float:
        from macros.fitengine.diffusion import dense_tflops

        return dense_tflops(self.catalog.gpus[timing["gpu"]], self.catalog.formats[timing["format"]])

    def image_implied(self, timing_id: str, peak: bool = False) -> str:
        """The throughput a published time implies at the least (or the card's datasheet figure), in TFLOPS."""
        timing = self._timing(timing_id)
        return self.fmt.unit(self._dense_tflops(timing) if peak else self._implied_tflops(timing), "TFLOPS", 0)

    def image_cheapest_engine(self, *timing_ids: str) -> str:
        """The card whose image costs least by the engine's count: the cheapest card-hour over its
        dense throughput (what fitengine.diffusion prices image work by)."""
        c = self.catalog
        best = min(
            (self._timing(x) for x in timing_ids), key=lambda x: self._card_hour(x["gpu"]) / self._dense_tflops(x)
        )
        return _text(self._short(c.gpus[best["gpu"]].name))

    def _card_hour(self, gpu_id: str) -> float:
        """The lowest price of one hour of one card of `gpu_id` among the nodes."""
        c = self.catalog
        return hourly(
            min(n.price_month_usd / n.count for n in c.nodes if n.gpu == gpu_id), c.assumptions.hours_per_month
        )

    def image_ratio(self, reference_id: str, timing_id: str, datasheet: bool = False) -> str:
        """How much faster the second card is than the first: measured, or from the datasheets."""
        measured, sheet = self._image_ratios(reference_id, timing_id)
        return self.fmt.number(sheet if datasheet else measured, 1)

    def image_cheapest(self, *timing_ids: str) -> str:
        """The card whose images cost least at their published times and the cheapest card-hour."""
        c = self.catalog
        best = min(
            (self._timing(x) for x in timing_ids), key=lambda x: self._card_hour(x["gpu"]) * x["seconds"]["value"]
        )
        return _text(self._short(c.gpus[best["gpu"]].name))

    def _timing(self, timing_id: str) -> dict[str, Any]:
        return next(x for x in self.data["image_timings"] if x["id"] == timing_id)

    def _image_ratios(self, reference_id: str, timing_id: str) -> tuple[float, float]:
        """The second card's speed over the first's: from the published times (same steps and
        resolution required), and from the dense throughput the engine uses (diffusion.dense_tflops)."""
        from macros.fitengine.diffusion import dense_tflops

        c = self.catalog
        ref, timing = self._timing(reference_id), self._timing(timing_id)
        if (ref["steps"], ref["resolution"], ref["format"]) != (
            timing["steps"],
            timing["resolution"],
            timing["format"],
        ):
            raise ValueError(f"{reference_id} and {timing_id} measure different work: their times do not compare")
        fmt = c.formats[timing["format"]]
        measured = ref["seconds"]["value"] / timing["seconds"]["value"]
        sheet = dense_tflops(c.gpus[timing["gpu"]], fmt) / dense_tflops(c.gpus[ref["gpu"]], fmt)
        return measured, sheet

    def _resolution(self, text: str) -> str:
        """A catalog resolution as a page writes it (fitengine.diffusion.written_resolution)."""
        return written_resolution(text)

    def _diffusion_node(self, r: DiffusionFit | None, per_work: bool = False) -> str:
        if r is None:
            return self.t["none_fits"]
        suffix = self.t["with_offload"] if r.offload_text_encoders else ""
        if per_work:
            return markup("{} · {}{}", code(r.node), self.fmt.usd(r.usd_per_reference_hour or 0, cents=True), suffix)
        return markup("{} · {}{}{}", code(r.node), self.fmt.usd(r.price_month_usd), self.t["per_month"], suffix)
