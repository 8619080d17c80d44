"""The macros authors call in docs/<locale>/*.md. Each returns Markdown: a figure or a table.

Every number comes from the catalog through the engine and is formatted for the page's locale.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from macros.fitengine import (
    GB,
    Catalog,
    DiffusionFit,
    NodeFit,
    fit_all,
    fit_diffusion,
    gradient_allreduce_seconds,
    group_link,
    render,
    weight_bytes,
    workload,
)
from macros.i18n import LABELS
from macros.locale_format import Formatter


def _table(header: list[str], rows: list[list[str]]) -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), "|" + "---|" * len(header), *(line(r) for r in rows)])


class GuideMacros:
    """The catalog, seen through one locale's eyes."""

    def __init__(
        self,
        catalog: Catalog,
        data: dict[str, Any],
        locale: str,
        page_url: Callable[[], str] = lambda: "",
        page_paths: dict[str, dict[str, str]] | None = None,
    ) -> None:
        self.catalog = catalog
        self.page_url = page_url  # the page being rendered, for links relative to it
        self.page_paths = page_paths or {}  # mkdocs.yml extra.page_paths: page key -> locale -> URL path
        self.data = data  # the validated YAML, for the sources and explanations tables show
        self.locale = locale
        self.fmt = Formatter(locale)
        self.t = LABELS[locale]
        self._fits: dict[tuple[str, str, int | None, int | None], list[NodeFit]] = {}

    def registrations(self) -> dict[str, Callable[..., str]]:
        """Macro name -> function, for `define_env`."""
        return {
            name: getattr(self, name)
            for name in (
                "num",
                "usd",
                "gpu_value",
                "node_price",
                "node_count",
                "model_name",
                "link_rate",
                "link_ratio",
                "allreduces_per_token",
                "allreduce_message_kib",
                "gradient_gb",
                "link_table",
                "gradient_table",
                "compare_nodes",
                "fit_table",
                "tok_s",
                "runtime_reserve",
                "runtimes_table",
                "validation_table",
                "validation_unmapped",
                "node_table",
                "gpu_table",
                "assumption",
                "assumptions_table",
                "sources_table",
                "format_table",
                "moe_table",
                "diffusion_table",
                "configurator_url",
                "format_name",
                "format_quality",
                "max_cards",
                "configurator",
                "measure_widget",
                "nv_label",
            )
        }

    # --- figures ------------------------------------------------------------------------

    def num(self, value: float, digits: int = 0) -> str:
        return self.fmt.number(value, digits)

    def usd(self, value: float) -> str:
        return self.fmt.usd(value)

    def format_name(self, fmt_id: str) -> str:
        return self.catalog.formats[fmt_id].name

    def format_quality(self, fmt_id: str) -> str:
        entry = next(f for f in self.data["formats"] if f["id"] == fmt_id)
        return f"{entry['quality'][self.locale]} ({entry['quality_source']})"

    def nv_label(self, node_id: str) -> str:
        """What `nvidia-smi topo -m` shows between two cards of an NVLink node, e.g. NV18."""
        from macros.fitengine.health import expected_nvlinks

        return f"NV{expected_nvlinks(self.catalog, self.catalog.node(node_id))}"

    def max_cards(self) -> str:
        return self.fmt.number(max(n.count for n in self.catalog.nodes))

    def node_count(self) -> str:
        return self.fmt.number(len(self.catalog.nodes))

    def model_name(self, model_id: str) -> str:
        c = self.catalog
        return (c.llms.get(model_id) or c.diffusion[model_id]).name

    def gpu_value(self, gpu_id: str, field: str) -> str:
        """A GPU figure with its unit: memory_bandwidth, memory_sold, bf16, fp8, nvlink."""
        gpu = self.catalog.gpus[gpu_id]
        values = {
            "memory_bandwidth": (gpu.memory_bandwidth_gbps, "GB/s"),
            "memory_sold": (gpu.memory_sold_gb, "GB"),
            "bf16": (gpu.bf16_tflops, "TFLOPS"),
            "fp8": (gpu.fp8_tflops or 0, "TFLOPS"),
            "nvlink": (gpu.nvlink.per_direction_gbps if gpu.nvlink else 0, "GB/s"),
        }
        value, unit = values[field]
        return self.fmt.unit(value, unit)

    def node_price(self, node_id: str) -> str:
        return self.fmt.usd(self.catalog.node(node_id).price_month_usd)

    def link_rate(self, link_id: str, both: bool = False) -> str:
        """A link's per-direction rate (both=True: the two directions added, as vendors quote it)."""
        rate = self._link_rate(link_id)
        return self.fmt.unit(rate * (2 if both else 1), "GB/s")

    def link_ratio(self, fast: str, slow: str) -> str:
        return self.fmt.number(self._link_rate(fast) / self._link_rate(slow), 0)

    def allreduces_per_token(self, model_id: str) -> str:
        arch = self.catalog.llms[model_id].architecture
        return self.fmt.number(arch.layers * self.catalog.assumptions.allreduces_per_layer)

    def allreduce_message_kib(self, model_id: str) -> str:
        arch = self.catalog.llms[model_id].architecture
        return self.fmt.number(arch.hidden * self.catalog.assumptions.activation_bytes / 1024)

    def gradient_gb(self, model_id: str) -> str:
        model = self.catalog.llms[model_id]
        return self.fmt.number(model.params_total * self.catalog.assumptions.gradient_bytes / GB)

    def assumption(self, key: str) -> str:
        a = self.catalog.assumptions
        value = getattr(a, key)
        if isinstance(value, float) and value < 1:
            return self.fmt.number(value, 2)
        return self.fmt.number(value) if isinstance(value, (int, float)) else str(value)

    def runtime_reserve(self, model_id: str, gpu_id: str, split: bool = False) -> str:
        """What the model's default runtime keeps on each card of `gpu_id` besides weights and KV cache."""
        from macros.fitengine.memory import runtime_reserve_bytes
        from macros.fitengine.serving import batched_tokens

        c = self.catalog
        model, gpu = c.llms[model_id], c.gpus[gpu_id]
        runtime = c.runtimes[c.formats[model.native_format].runtime]
        fixed = runtime.fixed_per_card_split_bytes if split else runtime.fixed_per_card_bytes
        value = runtime_reserve_bytes(
            model.architecture,
            batched_tokens(runtime, gpu),
            runtime.activation_per_vocab_token,
            runtime.activation_per_hidden_token,
            fixed,
        )
        return self.fmt.unit(value / 2**30, "GiB", 1)

    def tok_s(self, model_id: str, fmt_id: str, node_id: str, with_allreduce: bool = False) -> str:
        r = self._fit(model_id, fmt_id)[node_id]
        value = r.decode_tok_s_per_user if with_allreduce else r.decode_tok_s_per_user_no_comm
        return "—" if value is None else self.fmt.number(value)

    def configurator_url(self, model: str, fmt: str, base: str = "../") -> str:
        """A link to the configurator pre-filled with a workload, relative to a guide's source file."""
        page = self.page_paths["configurator"][self.locale].rstrip("/") + ".md"
        return f"{base}{page}?{urlencode({'model': model, 'format': fmt})}"

    def configurator(self, model: str = "llama-3.3-70b", fmt: str = "bf16", compact: bool = False) -> str:
        """The configurator widget, with the build-time answer for `model` in `fmt` (see configurator_html)."""
        from macros.configurator_html import ConfiguratorHtml
        from macros.html_blocks import register

        method = self._root() + self.page_paths.get("methodology", {}).get(self.locale, "") if self.page_paths else ""
        return register(ConfiguratorHtml(self.catalog, self.locale).render(self._root(), model, fmt, compact, method))

    def measure_widget(self, node: str = "8x-h100-sxm") -> str:
        """The "measure it yourself" checker (see macros/measure_html.py)."""
        from macros.html_blocks import register
        from macros.measure_html import measure_html

        return register(measure_html(self.catalog, self.locale, self._root(), node))

    def _root(self) -> str:
        path = self.page_url().strip("/")
        return "../" * (path.count("/") + 1) if path else "./"

    # --- tables -------------------------------------------------------------------------

    def link_table(self) -> str:
        """The links readers meet, per direction and both directions added."""
        t, c = self.t, self.catalog
        rows = []
        for link_id in ("nvlink-4", "nvlink-5", "nvlink-3", "pcie-gen5-x16", "pcie-gen4-x16", "cross-socket"):
            link = c.links[link_id]
            rate = self._link_rate(link_id)
            rows.append(
                [
                    link.name,
                    self.fmt.unit(rate, "GB/s"),
                    self.fmt.unit(2 * rate, "GB/s"),
                    self.fmt.unit(link.latency_s * 1e6, "µs"),
                ]
            )
        return _table([t["link"], t["per_direction"], t["both_directions"], t["latency"]], rows)

    def gradient_table(self, model_id: str, cards: int = 4) -> str:
        """One data-parallel gradient all-reduce of the model in BF16, per link, on `cards` cards."""
        t, c = self.t, self.catalog
        model = c.llms[model_id]
        rows = []
        for node_id in ("4x-a100-pcie-80gb", "4x-h100-pcie", "4x-a100-sxm4-80gb", "4x-h100-sxm"):
            node = c.node(node_id)
            link = group_link(c, node, cards)
            seconds = gradient_allreduce_seconds(model.params_total, c.assumptions.gradient_bytes, cards, link)
            rows.append([link.name, self.fmt.unit(link.per_direction_gbps, "GB/s"), self.fmt.unit(seconds, "s", 2)])
        return _table([t["link"], t["per_direction"], t["time"]], rows)

    def compare_nodes(self, model_id: str, fmt_id: str, *node_ids: str) -> str:
        """The same job on several nodes, side by side."""
        t, c = self.t, self.catalog
        fits = self._fit(model_id, fmt_id)
        header = [""] + [f"{c.node(n).count} × {c.gpus[c.node(n).gpu].name}" for n in node_ids]
        rows: list[list[str]] = [[t["interconnect"]], [t["total_vram"]], [t["bandwidth_card"]]]
        rows += [
            [f"{c.llms[model_id].name} {c.formats[fmt_id].name}, {t['floor']}"],
            [t["floor_allreduce"]],
            [t["ttft"]],
            [t["price"]],
        ]
        for node_id in node_ids:
            node, r = c.node(node_id), fits[node_id]
            gpu = c.gpus[node.gpu]
            link = group_link(c, node, node.count)
            rows[0].append(f"{link.name} · {self.fmt.unit(link.per_direction_gbps, 'GB/s')}" if link else "—")
            rows[1].append(self.fmt.unit(gpu.memory_sold_gb * node.count, "GB"))
            rows[2].append(self.fmt.unit(gpu.memory_bandwidth_gbps, "GB/s"))
            rows[3].append(self._tok(r.decode_tok_s_per_user_no_comm))
            rows[4].append(self._tok(r.decode_tok_s_per_user))
            rows[5].append(self.fmt.number(r.ttft_s, 2) if r.ttft_s is not None else "—")
            rows[6].append(self.fmt.usd(node.price_month_usd) + t["per_month"])
        return _table(header, rows)

    def fit_table(self, model_id: str, fmt_id: str, context: int | None = None, concurrency: int | None = None) -> str:
        """Every node for one workload: verdict, memory, floors, prices, reason."""
        t = self.t
        rows = []
        for r in self._fit_all(model_id, fmt_id, context, concurrency):
            layout = f"{r.tensor_parallel} × {r.pipeline_parallel}" if r.cards_used else "—"
            rows.append(
                [
                    f"`{r.node}`",
                    t[r.verdict],
                    self.fmt.number(r.cards_used) if r.cards_used else "—",
                    layout,
                    self.fmt.unit(r.need_gb, "GB", 1),
                    self._tok(r.decode_tok_s_per_user),
                    self._tok(r.decode_tok_s_total),
                    self.fmt.number(r.ttft_s, 2) if r.ttft_s is not None else "—",
                    self.fmt.usd(r.price_month_usd),
                    self.fmt.usd(r.usd_per_million_output_tokens, cents=True)
                    if r.usd_per_million_output_tokens is not None
                    else "—",
                    self._reason(r),
                ]
            )
        header = [
            t["node"],
            t["verdict"],
            t["cards"],
            t["tb"],
            t["need"],
            t["floor_allreduce"],
            t["total_speed"],
            t["ttft"],
        ]
        return _table([*header, t["price_month"], t["per_mtok_out"], t["reason"]], rows)

    def node_table(self) -> str:
        t, c = self.t, self.catalog
        rows = []
        for node in c.nodes:
            gpu = c.gpus[node.gpu]
            link = group_link(c, node, node.count)
            rows.append(
                [
                    f"`{node.id}`",
                    gpu.name,
                    self.fmt.number(node.count),
                    t[f"topology_{node.topology}"] + (f" ({link.name})" if link else ""),
                    self.fmt.unit(gpu.memory_sold_gb * node.count, "GB"),
                    self.fmt.usd(node.price_month_usd),
                    self.fmt.usd(node.price_month_usd / c.assumptions.hours_per_month, cents=True),
                ]
            )
        header = [t["node"], t["gpu"], t["count"], t["topology"], t["total_vram"], t["price_month"], t["price_hour"]]
        return _table(header, rows)

    def gpu_table(self) -> str:
        t, c = self.t, self.catalog
        rows = []
        for gpu in c.gpus.values():
            nv = (
                f"NVLink {gpu.nvlink.generation} · {self.fmt.unit(gpu.nvlink.per_direction_gbps, 'GB/s')}"
                if gpu.nvlink
                else "—"
            )
            rows.append(
                [
                    gpu.name,
                    self.fmt.unit(gpu.memory_sold_gb, "GB"),
                    self.fmt.unit(gpu.memory_bandwidth_gbps, "GB/s"),
                    f"PCIe Gen{gpu.pcie_generation} ×16",
                    nv,
                    self.fmt.unit(gpu.bf16_tflops, "TFLOPS"),
                    self.fmt.unit(gpu.fp8_tflops, "TFLOPS") if gpu.fp8_tflops else "—",
                ]
            )
        return _table([t["gpu"], t["memory"], t["bandwidth"], t["pcie"], t["nvlink"], t["bf16"], t["fp8"]], rows)

    def assumptions_table(self) -> str:
        """The engine's constants with what they mean and where they come from."""
        t = self.t
        rows = []
        for key, item in self.data["assumptions"].items():
            value = item["value"]
            shown = (
                self.fmt.number(
                    value, 2 if isinstance(value, float) and value < 1 else 1 if isinstance(value, float) else 0
                )
                if not isinstance(value, str)
                else f"`{value}`"
            )
            rows.append([f"`{key}`", f"{shown} {item['unit']}", item["explain"][self.locale], item["source"]])
        return _table([t["assumption"], t["value"], t["meaning"], t["source"]], rows)

    def runtimes_table(self) -> str:
        """Each runtime's constants with what they mean and where they come from."""
        t = self.t
        rows = []
        for runtime in self.data["runtimes"]:
            for key, item in runtime.items():
                if not isinstance(item, dict) or "explain" not in item:
                    continue
                value = item["value"]
                digits = 2 if isinstance(value, float) and value < 1 else 1 if isinstance(value, float) else 0
                rows.append(
                    [
                        runtime["name"],
                        f"`{key}`",
                        f"{self.fmt.number(value, digits)} {item['unit']}",
                        item["explain"][self.locale],
                        item["source"],
                    ]
                )
        return _table([t["runtime"], t["assumption"], t["value"], t["meaning"], t["source"]], rows)

    def validation_table(self) -> str:
        """The engine's figure beside each published measurement it maps, with the ratio."""
        from macros.validation import check_all

        t, c = self.t, self.catalog
        rows = []
        for check in check_all(c):
            if check.unmapped:
                continue
            record = check.engine_row or {}
            if check.measure in ("fits", "oom"):
                published = t["val_" + check.measure]
                engine = t[record.get("verdict", "none")] if record else "—"
                ratio = "—"
            else:
                unit = t["val_unit_" + ("ttft" if check.measure == "ttft_ms" else "speed")]
                published = f"{self.fmt.number(float(check.published), 1)} {unit}"
                engine = f"{self.fmt.number(check.engine, 1)} {unit}" if check.engine is not None else "—"
                ratio = self.fmt.number(check.ratio, 2) if check.ratio is not None else "—"
            rows.append(
                [
                    f"`{check.id}`",
                    t["val_measure_" + check.measure],
                    published,
                    engine,
                    ratio,
                    t["val_ok"] if check.ok else t["val_off"],
                    check.source,
                ]
            )
        header = [
            t["val_record"],
            t["val_measure"],
            t["val_published"],
            t["val_engine"],
            t["val_ratio"],
            t["val_bounds"],
        ]
        return _table([*header, t["source"]], rows)

    def validation_unmapped(self) -> str:
        """The published measurements the engine cannot be held against, and why."""
        from macros.validation import check_all

        t = self.t
        rows = [
            [f"`{k.id}`", k.unmapped or "", f"`{k.superseded_by}`" if k.superseded_by else "—", k.source]
            for k in check_all(self.catalog)
            if k.unmapped
        ]
        return _table([t["val_record"], t["val_why"], t["val_superseded"], t["source"]], rows)

    def sources_table(self) -> str:
        """Every GPU figure's source, for the catalog page."""
        t = self.t
        rows = []
        for gpu in self.data["gpus"]:
            for field in ("memory_usable", "memory_bandwidth", "bf16_dense", "fp8_dense"):
                figure = gpu.get(field)
                if figure:
                    rows.append(
                        [
                            gpu["name"],
                            f"`{field}`",
                            f"{self.fmt.sig(figure['value'])} {figure['unit']}",
                            figure["source"],
                        ]
                    )
        return _table([t["gpu"], t["value"], "", t["source"]], rows)

    def format_table(self, model_id: str) -> str:
        """One model in every format: bits per weight, weights, cheapest node on one card and at all."""
        t, c = self.t, self.catalog
        model = c.llms[model_id]
        rows = []
        for fmt in c.formats.values():
            fits = self._fit_all(model_id, fmt.id)
            rows.append(
                [
                    fmt.name,
                    self.fmt.number(fmt.bits_per_weight, 2),
                    self.fmt.unit(weight_bytes(model.params, fmt) / GB, "GB", 1),
                    self._cheapest(fits, single=True),
                    self._cheapest(fits, single=False),
                ]
            )
        return _table([t["format"], t["bits"], t["weights"], t["cheapest_single"], t["cheapest_any"]], rows)

    def moe_table(self, *model_ids: str, fmt_id: str = "fp8") -> str:
        """MoE models: total parameters pick the machine, active ones the speed."""
        t, c = self.t, self.catalog
        fmt = c.formats[fmt_id]
        rows = []
        for model_id in model_ids:
            model = c.llms[model_id]
            p = model.params
            fits = self._fit_all(model_id, fmt_id)
            rows.append(
                [
                    model.name,
                    self.fmt.number(p.total / 1e9, 1) + " B",
                    self.fmt.number(p.active / 1e9, 1) + " B",
                    self.fmt.unit(weight_bytes(p, fmt) / GB, "GB"),
                    self._cheapest(fits, single=False),
                ]
            )
        header = [t["model"], t["total_params"], t["active_params"], f"{t['weights']} ({fmt.name})", t["cheapest_any"]]
        return _table(header, rows)

    def diffusion_table(self, fmt_id: str = "bf16") -> str:
        """Each image or video model: the cheapest node that holds it, and the cheapest per unit of work."""
        t, c = self.t, self.catalog
        rows = []
        for model_id, model in c.diffusion.items():
            fits = [r for r in fit_diffusion(c, model_id, fmt_id) if r.verdict == "single"]
            need = min((r.need_gb for r in fits if not r.offload_text_encoders), default=None)
            cheapest = min(fits, key=lambda r: r.price_month_usd, default=None)
            best = min(fits, key=lambda r: r.usd_per_reference_hour or 0, default=None)
            rows.append(
                [
                    model.name,
                    self.fmt.unit(need, "GB", 1) if need else "—",
                    self._diffusion_node(cheapest),
                    self._diffusion_node(best, per_work=True),
                ]
            )
        return _table([t["model"], t["pipeline"], t["cheapest_card"], t["cheapest_work"]], rows)

    # --- helpers ------------------------------------------------------------------------

    def _link_rate(self, link_id: str) -> float:
        """Per-direction rate of a link as one card sees it (NVLink: the whole card, all links)."""
        link = self.catalog.links[link_id]
        if link.kind != "nvlink":
            return link.per_direction_gbps
        return link.per_direction_gbps * link.max_links

    def _fit(self, model_id: str, fmt_id: str) -> dict[str, NodeFit]:
        return {r.node: r for r in self._fit_all(model_id, fmt_id)}

    def _fit_all(
        self, model_id: str, fmt_id: str, context: int | None = None, concurrency: int | None = None
    ) -> list[NodeFit]:
        """fit_all for a catalog workload, computed once per page build (several tables share it)."""
        key = (model_id, fmt_id, context, concurrency)
        if key not in self._fits:
            self._fits[key] = fit_all(self.catalog, workload(self.catalog, model_id, fmt_id, context, concurrency))
        return self._fits[key]

    def _tok(self, value: float | None) -> str:
        return "—" if value is None else f"{self.fmt.number(value)} tok/s"

    def _reason(self, r: NodeFit) -> str:
        return " ".join(render(x, self.locale, lambda v: self.fmt.number(v, 1)) for x in (r.reason, *r.notes))

    def _cheapest(self, fits: list[NodeFit], single: bool) -> str:
        candidates = [r for r in fits if r.verdict == "single" or (not single and r.verdict == "split")]
        if not candidates:
            return self.t["none_fits"]
        best = min(candidates, key=lambda r: r.price_month_usd)
        return f"`{best.node}` · {self.fmt.usd(best.price_month_usd)}{self.t['per_month']}"

    def _diffusion_node(self, r: DiffusionFit | None, per_work: bool = False) -> str:
        if r is None:
            return self.t["none_fits"]
        suffix = self.t["with_offload"] if r.offload_text_encoders else ""
        if per_work:
            return f"`{r.node}` · {self.fmt.usd(r.usd_per_reference_hour or 0, cents=True)}{suffix}"
        return f"`{r.node}` · {self.fmt.usd(r.price_month_usd)}{self.t['per_month']}{suffix}"
