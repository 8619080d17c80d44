"""The quantization guide (docs/<locale>/guides/quantification.md, quantization.md): formats,
their bits, kernels and runtimes, one model in every format.
"""

from __future__ import annotations

from macros.fitengine import (
    GB,
    NodeFit,
    weight_bytes,
)
from macros.guides.base import GuideBase, _table
from macros.render.markup import markup
from macros.render.markup import text as _text


class QuantizationGuide(GuideBase):
    """The quantization guide's figures and tables: each format's bits, kernels, runtime, speed."""

    MACROS = (
        "format_name",
        "format_quality",
        "format_bits",
        "kernel_share",
        "format_table",
        "format_speed_table",
        "format_runtime_table",
    )

    def format_name(self, fmt_id: str) -> str:
        return _text(self.catalog.formats[fmt_id].name)

    def format_quality(self, fmt_id: str) -> str:
        entry = next(f for f in self.data["formats"] if f["id"] == fmt_id)
        # The source named in the page's language (the sources it names keep their own titles).
        return markup("{} ({})", entry["quality"][self.locale], entry["quality_source"][self.locale])

    def format_bits(self, fmt_id: str) -> str:
        """A format's effective bits per weight (scales included)."""
        return self.fmt.sig(self.catalog.formats[fmt_id].bits_per_weight)

    def kernel_share(self, fmt_id: str) -> str:
        """The share of the runtime's best 4-bit throughput a format's kernels reach, as a percentage."""
        return self.fmt.percent(self.catalog.formats[fmt_id].kernel_share)

    def format_table(self, model_id: str, users: int = 1) -> str:
        """One model in every format: bits per weight, weights, and the cheapest node that serves
        `users` users within the target, on one card and at all."""
        t, c = self.t, self.catalog
        model = c.llms[model_id]
        rows = []
        for fmt in c.formats.values():
            fits = self._fit_all(model_id, fmt.id, concurrency=users)
            rows.append(
                [
                    fmt.name,
                    self.fmt.number(fmt.bits_per_weight, 2),
                    self.fmt.unit(weight_bytes(model.params, fmt) / GB, "GB", 1),
                    self._cheapest(fits, single=True),
                    self._cheapest(fits, single=False),
                ]
            )
        header = [
            t["format"],
            t["bits"],
            t["weights"],
            self._at(t["cheapest_single"], users),
            self._at(t["cheapest_any"], users),
        ]
        return _table(header, rows)

    def format_speed_table(self, model_id: str, node_id: str, users: int) -> str:
        """One model in every format on one node: what each format does to memory, speed and price."""
        t, c = self.t, self.catalog
        model = c.llms[model_id]
        node = c.node(node_id)
        rows = []
        for fmt in c.formats.values():
            one = self._one(model_id, fmt.id, node.id, 1)
            many = self._one(model_id, fmt.id, node.id, users)
            kernel = self._compute(fmt.id, one)
            rows.append(
                [
                    fmt.name,
                    c.runtimes[fmt.runtime].name,
                    self.fmt.unit(weight_bytes(model.params, fmt) / GB, "GB", 1),
                    self._layout(one),
                    kernel if one.verdict != "none" else "—",
                    self._tok(one.decode_tok_s_per_user),
                    self._tok(many.decode_tok_s_total),
                    self._per_mtok(one.best_usd_per_million_output_tokens),
                    self.fmt.number(one.max_concurrency) if one.verdict != "none" else "—",
                ]
            )
        header = [
            t["format"],
            t["runtime"],
            t["weights"],
            t["layout"],
            t["kernel"],
            f"{t['floor_allreduce']}, {self.users(1)}",
            f"{t['total_speed']}, {self.users(users)}",
            t["best_per_mtok"],
            t["max_users"],
        ]
        return _table(header, rows)

    def format_runtime_table(self) -> str:
        """Which runtime serves each format, and on which cards it has its own kernels."""
        t, c = self.t, self.catalog
        by_arch: dict[str, list[str]] = {}
        for gpu in c.gpus.values():
            by_arch.setdefault(gpu.architecture, []).append(gpu.name)

        def cards(archs: tuple[str, ...]) -> str:
            groups = [
                f"{t['arch_' + arch]} ({', '.join(self._short(n) for n in by_arch[arch])})"
                for arch in archs
                if arch in by_arch
            ]
            return " ; ".join(groups).replace(" ;", "\u202f;" if self.locale == "fr" else ";") if groups else "—"

        rows = []
        for fmt in c.formats.values():
            rows.append(
                [
                    fmt.name,
                    c.runtimes[fmt.runtime].name,
                    cards(fmt.native),
                    cards(fmt.weight_only),
                    "—" if not fmt.weight_only else t["val_ok"] if fmt.weight_only_moe else t["val_off"],
                ]
            )
        header = [t["format"], t["runtime"], t["native_on"], t["weight_only_on"], t["moe_weight_only"]]
        return _table(header, rows)

    def _compute(self, fmt_id: str, r: NodeFit) -> str:
        """The precision a format computes in on the row's card (int formats: 16-bit, weights dequantized)."""
        t = self.t
        if r.verdict == "none":
            return "—"
        if fmt_id == "bf16":
            return t["compute_16"]
        if fmt_id == "fp8" and not r.weight_only:
            return t["compute_fp8"]
        if fmt_id in ("mxfp4", "nvfp4") and not r.weight_only:
            return t["compute_fp4"]
        return t["compute_dequant"] + (t["compute_generic"] if r.weight_only else "")
