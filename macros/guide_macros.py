"""The macros authors call in docs/<locale>/*.md. Each returns Markdown: a figure or a table.

Every number comes from the catalog through the engine and is formatted for the page's locale.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cached_property
from html import escape
from itertools import pairwise
from typing import Any
from urllib.parse import urlencode

from macros.engine_cache import evaluate
from macros.fitengine import (
    GB,
    Catalog,
    DiffusionFit,
    NodeFit,
    gradient_allreduce_seconds,
    group_link,
    render,
    weight_bytes,
)
from macros.fitengine.api import LAYOUT_KEYS
from macros.fitengine.catalog import ApiPrice
from macros.fitengine.fit import MAX_CONCURRENCY
from macros.fitengine.reasons import REASON_DIGITS, TEMPLATES
from macros.fitengine.units import SECONDS_PER_HOUR, hourly, month_seconds
from macros.i18n import LABELS, unmapped
from macros.locale_format import UNITS, Formatter, resolution_text
from macros.markup import Markup, code, markup
from macros.markup import text as _text
from macros.messages import words

# The language the catalog's sources are written in (titles, notes, quotes).
SOURCES_LANGUAGE = "en"

# The training example's constants (not the engine's: the engine sizes inference).
ADAM_MIXED_BYTES_PER_PARAM = 16  # ZeRO, arXiv 1910.02054 section 3.1: 2 + 2 + 12 bytes per parameter
FSDP_TRAFFIC_VS_ALLREDUCE = 1.5  # ZeRO-3: two all-gathers and a reduce-scatter, 3 x half an all-reduce
TRAINING_FLOPS_PER_PARAM_TOKEN = 6  # forward and backward, arXiv 2001.08361 section 2.1


def _plain(words: str) -> str:
    """A publisher's name for a thing without its parenthetical notes ("H100 (SXM, 700 W)" -> "H100")."""
    return re.sub(r"\s*\([^)]*\)?", "", words).strip()


def _with_unit(figure: str, unit: str) -> str:
    """A figure and its unit word joined by a no-break space (the figure alone when there is none)."""
    return markup("{}\u00a0{}", figure, unit) if unit else figure


def _table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table; every cell that is not Markup (macros/markup.py) is escaped as text."""

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(_text(c).replace("|", "\\|") for c in cells) + " |"

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
                "validation_misses",
                "sweep_band_table",
                "sweep_figure",
                "node_table",
                "gpu_table",
                "assumption",
                "target",
                "assumptions_table",
                "sources_table",
                "format_table",
                "moe_table",
                "diffusion_table",
                "diffusion_reports_table",
                "diffusion_weights",
                "configurator_url",
                "format_name",
                "format_quality",
                "kernel_share",
                "format_bits",
                "max_cards",
                "configurator",
                "measure_widget",
                "nv_label",
                "users",
                "runtime_value",
                "nv_label_table",
                "link_serving_table",
                "split_table",
                "training_state_gb",
                "training_table",
                "format_speed_table",
                "format_runtime_table",
                "moe_format_table",
                "cheapest_node",
                "expert_table",
                "kv_table",
                "month_tokens",
                "best_price",
                "price_at",
                "speed_at",
                "api_price",
                "api_cost",
                "api_read",
                "api_source",
                "api_breakeven",
                "api_breakeven_table",
                "image_timing_table",
                "image_implied",
                "image_cheapest_engine",
                "image_ratio",
                "image_cheapest",
                "ttft_chart",
            )
        }

    # --- figures ------------------------------------------------------------------------

    def num(self, value: float, digits: int = 0) -> str:
        return self.fmt.number(value, digits)

    def usd(self, value: float) -> str:
        return self.fmt.usd(value)

    def format_name(self, fmt_id: str) -> str:
        return _text(self.catalog.formats[fmt_id].name)

    def format_quality(self, fmt_id: str) -> str:
        entry = next(f for f in self.data["formats"] if f["id"] == fmt_id)
        return markup("{} ({})", entry["quality"][self.locale], self._cite(entry["quality_source"]))

    def format_bits(self, fmt_id: str) -> str:
        """A format's effective bits per weight (scales included)."""
        return self.fmt.sig(self.catalog.formats[fmt_id].bits_per_weight)

    def kernel_share(self, fmt_id: str) -> str:
        """The share of the runtime's best 4-bit throughput a format's kernels reach, as a percentage."""
        return self.fmt.percent(self.catalog.formats[fmt_id].kernel_share)

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
        return _text((c.llms.get(model_id) or c.diffusion[model_id]).name)

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
        return self.fmt.number(value) if isinstance(value, (int, float)) else _text(value)

    def target(self) -> str:
        """The default target each user must get, in words: the recommendation's condition."""
        a = self.catalog.assumptions
        return self.t["target_phrase"].format(
            speed=_with_unit(self.fmt.brief(a.target_tok_s), "tok/s"),
            ttft=_with_unit(self.fmt.brief(a.target_ttft_s), "s"),
        )

    def runtime_reserve(self, model_id: str, gpu_id: str, split: bool = False) -> str:
        """What the model's default runtime keeps on each card of `gpu_id` besides weights and KV cache."""
        from macros.fitengine.fit import card_reserve_bytes

        c = self.catalog
        model, gpu = c.llms[model_id], c.gpus[gpu_id]
        runtime = c.runtimes[c.formats[model.native_format].runtime]
        return self.fmt.unit(card_reserve_bytes(model.architecture, runtime, gpu, split) / 2**30, "GiB", 1)

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
        from macros.engine_cache import kept
        from macros.html_blocks import register
        from macros.node_render import modules_read

        root = self._root()
        method = root + self.page_paths.get("methodology", {}).get(self.locale, "") if self.page_paths else ""
        # Its HTML depends on the catalog, these and the chart's modules alone: a preview rebuild
        # after a guide's edit reuses it.
        key = ("configurator", self.locale, root, model, fmt, compact, method, modules_read())
        html = kept(
            self.catalog,
            key,
            lambda: ConfiguratorHtml(self.catalog, self.locale).render(root, model, fmt, compact, method),
        )
        return register(html)

    def measure_widget(self) -> str:
        """The "measure it yourself" checker (see macros/measure_html.py)."""
        from macros.html_blocks import register
        from macros.measure_html import measure_html

        return register(measure_html(self.catalog, self.locale, self._root()))

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
                    self._link_name(link),
                    self.fmt.unit(rate, "GB/s"),
                    # A busbw measured across sockets is one figure, not a direction to double.
                    "—" if link.kind == "cross-socket" else self.fmt.unit(2 * rate, "GB/s"),
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
            rows.append(
                [self._link_name(link), self.fmt.unit(link.per_direction_gbps, "GB/s"), self.fmt.unit(seconds, "s", 2)]
            )
        return _table([t["link"], t["per_direction"], t["time"]], rows)

    def compare_nodes(self, model_id: str, fmt_id: str, *node_ids: str) -> str:
        """The same job on several nodes, side by side."""
        t, c = self.t, self.catalog
        fits = self._fit(model_id, fmt_id)
        header = [self.t["figure"]] + [f"{c.node(n).count} × {c.gpus[c.node(n).gpu].name}" for n in node_ids]
        rows: list[list[str]] = [[t["interconnect"]], [t["total_vram"]], [t["bandwidth_card"]]]
        rows += [
            [t["layout"]],
            [f"{c.llms[model_id].name} {c.formats[fmt_id].name}, {t['floor']}, {self.users(1)}"],
            [f"{t['floor_allreduce']}, {self.users(1)}"],
            [f"{t['ttft']}, {self.users(1)}"],
            [t["price"]],
        ]
        for node_id in node_ids:
            node, r = c.node(node_id), fits[node_id]
            gpu = c.gpus[node.gpu]
            link = group_link(c, node, node.count)
            rows[0].append(
                f"{self._link_name(link)} · {self.fmt.unit(link.per_direction_gbps, 'GB/s')}" if link else "—"
            )
            rows[1].append(self.fmt.unit(gpu.memory_sold_gb * node.count, "GB"))
            rows[2].append(self.fmt.unit(gpu.memory_bandwidth_gbps, "GB/s"))
            rows[3].append(self._layout(r))
            rows[4].append(self._tok(r.decode_tok_s_per_user_no_comm))
            rows[5].append(self._tok(r.decode_tok_s_per_user))
            rows[6].append(self.fmt.number(r.ttft_s, 2) if r.ttft_s is not None else "—")
            rows[7].append(self.fmt.usd(node.price_month_usd) + t["per_month"])
        return _table(header, rows)

    def fit_table(self, model_id: str, fmt_id: str, context: int | None = None, concurrency: int | None = None) -> str:
        """Every node for one workload: verdict, memory, floors, prices, reason."""
        t = self.t
        users = self.users(concurrency or self.catalog.assumptions.default_concurrency)
        rows = []
        for r in self._fit_all(model_id, fmt_id, context, concurrency):
            layout = f"{r.tensor_parallel} × {r.pipeline_parallel}" if r.cards_used else "—"
            rows.append(
                [
                    code(r.node),
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
            f"{t['floor_allreduce']}, {users}",
            f"{t['total_speed']}, {users}",
            f"{t['ttft']}, {users}",
        ]
        return _table([*header, t["price_month"], f"{t['per_mtok_out']}, {users}", t["reason"]], rows)

    def node_table(self) -> str:
        t, c = self.t, self.catalog
        rows = []
        for node in c.nodes:
            gpu = c.gpus[node.gpu]
            link = group_link(c, node, node.count)
            rows.append(
                [
                    code(node.id),
                    gpu.name,
                    self.fmt.number(node.count),
                    t[f"topology_{node.topology}"] + (f" ({self._link_name(link)})" if link else ""),
                    self.fmt.unit(gpu.memory_sold_gb * node.count, "GB"),
                    self.fmt.usd(node.price_month_usd),
                    self.fmt.usd(hourly(node.price_month_usd, c.assumptions.hours_per_month), cents=True),
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
        for item in self.data["assumptions"].values():
            value = item["value"]
            shown = (
                self.fmt.number(
                    value, 2 if isinstance(value, float) and value < 1 else 1 if isinstance(value, float) else 0
                )
                if not isinstance(value, str)
                else code(value)
            )
            rows.append(
                [
                    _text(item["label"][self.locale]),
                    _with_unit(shown, self._unit_word(item["unit"], value)),
                    _text(item["explain"][self.locale]),
                    self._cite(item["source"]),
                ]
            )
        return _table([t["assumption"], t["value"], t["meaning"], t["source"]], rows)

    def runtimes_table(self) -> str:
        """Each runtime's constants with what they mean and where they come from."""
        t = self.t
        rows = []
        for runtime in self.data["runtimes"]:
            for item in runtime.values():
                if not isinstance(item, dict) or "explain" not in item:
                    continue
                value = item["value"]
                digits = 2 if isinstance(value, float) and value < 1 else 1 if isinstance(value, float) else 0
                rows.append(
                    [
                        runtime["name"],
                        _text(item["label"][self.locale]),
                        _with_unit(self.fmt.number(value, digits), self._unit_word(item["unit"], value)),
                        _text(item["explain"][self.locale]),
                        self._cite(item["source"]),
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
                published = _with_unit(self.fmt.number(float(check.published), 1), unit)
                engine = _with_unit(self.fmt.number(check.engine, 1), unit) if check.engine is not None else "—"
                ratio = self.fmt.number(check.ratio, 2) if check.ratio is not None else "—"
            rows.append(
                [
                    self._record(check.id),
                    t["val_measure_" + check.measure],
                    published,
                    engine,
                    ratio,
                    t["val_ok"] if check.ok else t["val_off"],
                    self._cite(check.source),
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

    def sweep_band_table(self) -> str:
        """The engine's error on the measured sweep's judge part, per slice: median and 90th
        percentile of engine / measured, for the time per token and the time to first token."""
        from macros.sweeps import BAND_FILE

        t = self.t
        judged = json.loads(BAND_FILE.read_text(encoding="utf-8"))["judge"]
        rows = []
        for name, figures in judged["slices"].items():
            kind, _, value = name.partition(": ")
            label = (
                t["sweep_all"] if name == "all" else t[f"sweep_{kind}"].format(value=t.get(f"sweep_v_{value}", value))
            )
            rows.append(
                [
                    label,
                    self.fmt.number(figures["tpot"]["points"]),
                    self.fmt.number(figures["tpot"]["median"], 2),
                    self.fmt.number(figures["tpot"]["p90"], 2),
                    self.fmt.number(figures["ttft"]["median"], 2),
                    self.fmt.number(figures["ttft"]["p90"], 2),
                ]
            )
        header = [t["sweep_slice"], t["sweep_points"], t["sweep_tpot_median"], t["sweep_tpot_p90"]]
        return _table([*header, t["sweep_ttft_median"], t["sweep_ttft_p90"]], rows)

    def sweep_figure(self, name: str, part: str = "judge") -> str:
        """One figure of the sweep's error band: `points`, `in_band` (a percentage), `pairs`, `kept`."""
        from macros.sweeps import BAND_FILE

        data = json.loads(BAND_FILE.read_text(encoding="utf-8"))[part]
        if name == "in_band":
            return self.fmt.number(100 * data["in_band"], 0)
        if name in ("pairs", "kept"):
            return self.fmt.number(data["tp_pairs_in_order"][name])
        return self.fmt.number(data[name])

    def validation_misses(self) -> str:
        """The measurements the engine misses (outside a floor's bounds), each with its cause."""
        from macros.validation import check_all

        t = self.t
        rows = [
            [self._record(k.id), self.fmt.number(k.ratio, 2) if k.ratio is not None else "—", k.miss[self.locale]]
            for k in check_all(self.catalog)
            if k.miss
        ]
        return _table([t["val_record"], t["val_ratio"], t["val_miss"]], rows)

    def validation_unmapped(self) -> str:
        """The published measurements the engine cannot be held against, and why."""
        from macros.validation import check_all

        t = self.t
        rows = [
            [
                self._record(k.id),
                unmapped(self.locale, k.id, k.unmapped or ""),
                self._record(k.superseded_by) if k.superseded_by else "—",
                self._cite(k.source),
            ]
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
                            _text(gpu["name"]),
                            t["figure_" + field],
                            _with_unit(
                                self.fmt.sig(figure["value"]),
                                UNITS.get(self.locale, {}).get(figure["unit"], figure["unit"]),
                            ),
                            self._cite(figure["source"]),
                        ]
                    )
        return _table([t["gpu"], t["figure"], t["value"], t["source"]], rows)

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

    def moe_table(self, *model_ids: str, fmt_id: str | None = None, users: int = 1) -> str:
        """MoE models, each in `fmt_id` or in the format it is published in: total parameters pick
        the machine, active ones (the output head included, read at every token) the speed; the
        cheapest node that serves `users` users within the target."""
        t, c = self.t, self.catalog
        rows = []
        for model_id in model_ids:
            model = c.llms[model_id]
            fmt = c.formats[fmt_id or model.native_format]
            p = model.params
            fits = self._fit_all(model_id, fmt.id, concurrency=users)
            rows.append(
                [
                    model.name,
                    self.fmt.number(p.total / 1e9, 1) + t["billion"],
                    self.fmt.number(p.active / 1e9, 1) + t["billion"],
                    fmt.name,
                    self.fmt.unit(weight_bytes(p, fmt) / GB, "GB"),
                    self._cheapest(fits, single=False),
                ]
            )
        header = [
            t["model"],
            t["total_params"],
            t["active_params"],
            t["format"],
            t["weights"],
            self._at(t["cheapest_any"], users),
        ]
        return _table(header, rows)

    def diffusion_table(self, fmt_id: str = "bf16") -> str:
        """Each image or video model: the cheapest node that holds it, and the cheapest per unit of work."""
        t, c = self.t, self.catalog
        rows = []
        for model_id, model in c.diffusion.items():
            fits = [r for r in evaluate(c, {"model": model_id, "format": fmt_id}).fits if r.verdict == "single"]
            need = min((r.need_gb for r in fits if not r.offload_text_encoders), default=None)
            cheapest = min(fits, key=lambda r: r.price_month_usd, default=None)
            best = min(fits, key=lambda r: r.usd_per_reference_hour or 0, default=None)
            entry = next(d for d in self.data["diffusion"] if d["id"] == model_id)
            rows.append(
                [
                    model.name,
                    self._resolution(entry.get("resolution", "")),
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
                    raw["card"],
                    run,
                    t["rep_ran" if report.outcome == "ran" else "rep_oom"],
                    t["rep_floor" if check.lower_bound else "rep_need"].format(**figures),
                    t["val_ok"] if check.agrees else t["val_off"],
                    self._cite(report.url),
                ]
            )
        header = [t["rep_card"], t["rep_run"], t["rep_outcome"], t["rep_engine"], t["rep_agrees"], t["source"]]
        return _table(header, rows)

    # --- serving tables (the guides' theses, shown) --------------------------------------

    def users(self, n: int) -> str:
        """The "per user, at N users" wording every per-user figure carries."""
        return self.t["at_users_one" if n == 1 else "at_users_many"].format(n=self.fmt.number(n))

    def runtime_value(self, runtime_id: str, field: str) -> str:
        """A runtime setting as a percentage (memory_utilization) or a plain number."""
        value = getattr(self.catalog.runtimes[runtime_id], field)
        if field == "memory_utilization":
            return self.fmt.unit(value * 100, "%")
        return self.fmt.number(value)

    def nv_label_table(self) -> str:
        """What `nvidia-smi topo -m` should show between the cards of each NVLink node."""
        from macros.fitengine.health import expected_nvlinks

        t, c = self.t, self.catalog
        rows = []
        for node in c.nodes:
            gpu, topology = c.gpus[node.gpu], c.topologies[node.topology]
            if gpu.nvlink is None or topology.nvlink == "none" or node.count < 2:
                continue
            if topology.nvlink == "sxm":
                label = code(f"NV{expected_nvlinks(c, node)}")
                where = t["nv_every_pair"]
            else:
                rate = c.links[f"nvlink-{gpu.nvlink.generation}"].per_direction_gbps
                group = min(node.nvlink_group, node.count)
                # A bridge shares the card's links among its partners, as a 4-GPU board does.
                label = code(f"NV{round(gpu.nvlink.per_direction_gbps / rate) // max(group - 1, 1)}")
                where = (
                    (t["nv_bridged_pair"] if group == 2 else t["nv_bridged_all"].format(n=self.fmt.number(group)))
                    if group >= node.count
                    else t["nv_bridged_groups"].format(n=self.fmt.number(group))
                )
            link = group_link(c, node, node.count)
            rows.append(
                [
                    code(node.id),
                    t[f"topology_{node.topology}"],
                    label,
                    where,
                    self.fmt.unit(link.per_direction_gbps, "GB/s") if link else "—",
                ]
            )
        header = [t["node"], t["topology"], t["nv_label"], t["nv_where"], t["nv_group_rate"]]
        return _table(header, rows)

    def link_serving_table(self, model_id: str, fmt_id: str, users: int, *node_ids: str) -> str:
        """The same model split over all the cards of each node: one user, then `users` users."""
        t, c = self.t, self.catalog
        rows = []
        for node_id in node_ids:
            node = c.node(node_id)
            layout = (node.count, 1, 1)
            one, many = self._one_and_many(model_id, fmt_id, node, users, layout)
            link = group_link(c, node, node.count)
            rows.append(
                [
                    code(node_id),
                    f"{self._link_name(link)} · {self.fmt.unit(link.per_direction_gbps, 'GB/s')}" if link else "—",
                    self._tok(one.decode_tok_s_per_user_no_comm),
                    self._tok(one.decode_tok_s_per_user),
                    self._seconds(one.ttft_s),
                    self._tok(many.decode_tok_s_per_user),
                    self._tok(many.decode_tok_s_total),
                    self._seconds(many.ttft_s),
                    self._per_mtok(many.usd_per_million_output_tokens),
                ]
            )
        at1, atn = self.users(1), self.users(users)
        header = [
            t["node"],
            t["interconnect"],
            f"{t['floor']}, {at1}",
            f"{t['floor_allreduce']}, {at1}",
            f"{t['ttft']}, {at1}",
            f"{t['floor_allreduce']}, {atn}",
            f"{t['total_speed']}, {atn}",
            f"{t['ttft']}, {atn}",
            f"{t['per_mtok_out']}, {atn}",
        ]
        return _table(header, rows)

    def split_table(self, model_id: str, fmt_id: str, node_id: str, users: int) -> str:
        """One node, the model split over 1, 2, 4… cards: what splitting buys and what it costs."""
        t, c = self.t, self.catalog
        node = c.node(node_id)
        rows = []
        tp = 1
        while tp <= node.count:
            layout = (tp, 1, 1)
            one, many = self._one_and_many(model_id, fmt_id, node, users, layout)
            if one.verdict != "none":
                rows.append(
                    [
                        self.fmt.number(tp),
                        self.fmt.number(one.replicas),
                        self._tok(one.decode_tok_s_per_user),
                        self._seconds(one.ttft_s),
                        self._tok(many.decode_tok_s_per_user),
                        self._tok(many.decode_tok_s_total),
                        self._per_mtok(many.usd_per_million_output_tokens),
                    ]
                )
            tp *= 2
        at1, atn = self.users(1), self.users(users)
        header = [
            t["tp_degree"],
            t["replicas"],
            f"{t['floor_allreduce']}, {at1}",
            f"{t['ttft']}, {at1}",
            f"{t['floor_allreduce']}, {atn}",
            f"{t['total_speed']}, {atn}",
            f"{t['per_mtok_out']}, {atn}",
        ]
        return _table(header, rows)

    def training_state_gb(self, model_id: str, cards: int = 1) -> str:
        """Weights, gradients and Adam state in mixed precision, shared over `cards` (ZeRO-3)."""
        params = self.catalog.llms[model_id].params_total
        return self.fmt.unit(params * ADAM_MIXED_BYTES_PER_PARAM / cards / GB, "GB")

    def training_table(self, model_id: str, tokens_per_step: int, *node_ids: str) -> str:
        """A fully sharded (FSDP / ZeRO-3) step: its traffic on each link beside its compute at peak."""
        t, c = self.t, self.catalog
        model = c.llms[model_id]
        rows = []
        for node_id in node_ids:
            node = c.node(node_id)
            gpu = c.gpus[node.gpu]
            link = group_link(c, node, node.count)
            comm = FSDP_TRAFFIC_VS_ALLREDUCE * gradient_allreduce_seconds(
                model.params_total, c.assumptions.gradient_bytes, node.count, link
            )
            compute = (
                TRAINING_FLOPS_PER_PARAM_TOKEN
                * model.params_total
                * tokens_per_step
                / (node.count * gpu.bf16_tflops * 1e12)
            )
            rows.append(
                [
                    code(node_id),
                    f"{self._link_name(link)} · {self.fmt.unit(link.per_direction_gbps, 'GB/s')}" if link else "—",
                    self.fmt.unit(model.params_total * ADAM_MIXED_BYTES_PER_PARAM / node.count / GB, "GB"),
                    self.fmt.unit(comm, "s", 2),
                    self.fmt.unit(compute, "s", 2),
                    self.fmt.unit(100 * comm / compute, "%"),
                ]
            )
        header = [t["node"], t["link"], t["train_state"], t["train_comm"], t["train_compute"], t["train_ratio"]]
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

    def moe_format_table(self, model_id: str, *fmt_ids: str, users: int = 1) -> str:
        """An MoE model in each format: the cheapest node that serves `users` users within the
        target, its layout, speed and price."""
        t, c = self.t, self.catalog
        model = c.llms[model_id]
        rows = []
        for fmt_id in fmt_ids:
            fmt = c.formats[fmt_id]
            fits = self._fit_all(model_id, fmt_id, concurrency=users)
            best = self._cheapest_fit(fits)
            if best is None:
                # No node serves them all within the target: the one that serves the most within
                # it (the cheapest of those), with its layout, speed and best price, so the row
                # says how far the format falls short rather than nothing.
                best = self._most_within(fits)
                where = (
                    markup(
                        "{}",
                        t["none_within_most"].format(most=self.users(best.max_users_at_target), node=best.node),
                    )
                    if best
                    else t["none_fits"]
                )
            else:
                where = markup("{} · {}{}", code(best.node), self.fmt.usd(best.price_month_usd), t["per_month"])
            rows.append(
                [
                    fmt.name,
                    self.fmt.unit(weight_bytes(model.params, fmt) / GB, "GB"),
                    where,
                    self._layout(best) if best else "—",
                    self._tok(best.decode_tok_s_per_user) if best else "—",
                    self._best(best) if best else "—",
                ]
            )
        header = [
            t["format"],
            t["weights"],
            self._at(t["cheapest_any"], users),
            t["layout"],
            f"{t['floor_allreduce']}, {self.users(users)}",
            t["best_per_mtok"],
        ]
        return _table(header, rows)

    def cheapest_node(self, model_id: str, fmt_id: str, users: int = 1) -> str:
        """The cheapest node that serves `users` users of the model in the format within the target, with its monthly price."""
        return self._cheapest(self._fit_all(model_id, fmt_id, concurrency=users), single=False)

    def expert_table(self, model_id: str, fmt_id: str, users: int, *node_ids: str) -> str:
        """Tensor parallelism alone against experts spread whole over the cards (expert parallelism),
        beside tensor parallelism and beside data-parallel attention (one rank per card)."""
        t, c = self.t, self.catalog
        rows = []
        for node_id in node_ids:
            node = c.node(node_id)
            link = group_link(c, node, node.count)
            n = node.count
            for layout in ((n, 1, 1, 1), (n, 1, n, 1), (1, 1, n, n)):
                one, many = self._one_and_many(model_id, fmt_id, node, users, layout)
                rows.append(
                    [
                        code(node_id),
                        self._link_name(link) if link else "—",
                        self._layout(one),
                        self._tok(one.decode_tok_s_per_user),
                        self._ms(one.allreduce_ms_per_token),
                        self._tok(many.decode_tok_s_per_user),
                        self._tok(many.decode_tok_s_total),
                        self._seconds(many.ttft_s),
                    ]
                )
        at1, atn = self.users(1), self.users(users)
        header = [
            t["node"],
            t["link"],
            t["layout"],
            f"{t['floor_allreduce']}, {at1}",
            t["comm_per_token"],
            f"{t['floor_allreduce']}, {atn}",
            f"{t['total_speed']}, {atn}",
            f"{t['ttft']}, {atn}",
        ]
        return _table(header, rows)

    def kv_table(self, node_id: str, context: int, fmt_id: str, *model_ids: str) -> str:
        """KV cache per token, and how many users of `context` tokens the node then holds."""
        from macros.fitengine import kv_bytes_per_token

        t, c = self.t, self.catalog
        rows = []
        for model_id in model_ids:
            model = c.llms[model_id]
            fits = self._fit_all(model_id, fmt_id, context)
            r = next(x for x in fits if x.node == node_id)
            kind = t["attn_mla"] if model.architecture.mla is not None else t["attn_gqa"]
            kib = kv_bytes_per_token(model.architecture, c.assumptions.kv_bytes) / 1024
            rows.append(
                [
                    model.name,
                    kind,
                    self.fmt.unit(kib, "KiB", 1),
                    self.fmt.unit(r.weights_gb, "GB") if r.verdict != "none" else "—",
                    self.fmt.number(r.max_concurrency) if r.verdict != "none" else t["none"],
                ]
            )
        header = [t["model"], t["attention"], t["kv_per_token"], t["weights_card"], t["max_users"]]
        return _table(header, rows)

    def month_tokens(self, model_id: str, fmt_id: str, node_id: str) -> str:
        """Millions of output tokens a month the node produces at its cheapest concurrency."""
        r = self._fit(model_id, fmt_id)[node_id]
        c = self.catalog
        best = self._one(model_id, fmt_id, node_id, r.best_concurrency)
        total = (best.decode_tok_s_total or 0) * month_seconds(c.assumptions.hours_per_month) / 1e6
        return self.fmt.number(total)

    def best_price(self, model_id: str, fmt_id: str, node_id: str) -> str:
        """The node's lowest price per million output tokens, and the users it takes to reach it."""
        return self._best(self._fit(model_id, fmt_id)[node_id])

    def price_at(self, model_id: str, fmt_id: str, node_id: str, users: int) -> str:
        """Price per million output tokens at `users` users."""
        r = self._one(model_id, fmt_id, node_id, users)
        return self._per_mtok(r.usd_per_million_output_tokens)

    def speed_at(self, model_id: str, fmt_id: str, node_id: str, users: int, total: bool = False) -> str:
        """Per-user (or the node's total) tok/s at `users` users."""
        r = self._one(model_id, fmt_id, node_id, users)
        return self._tok(r.decode_tok_s_total if total else r.decode_tok_s_per_user)

    # --- charts ---------------------------------------------------------------------------

    def ttft_chart(
        self,
        model_id: str,
        fmt_id: str,
        *node_ids: str,
        prompts: tuple[int, ...] = (1024, 2048, 4096, 8192, 16384, 32768, 65536),
    ) -> str:
        """Time to first token against prompt length, one user, the model split over each node's
        cards: a line per node (dashed on PCIe), with a description and the values as a table."""
        from macros.charts import Series, line_chart
        from macros.html_blocks import register

        t, c = self.t, self.catalog
        output = c.assumptions.default_output_tokens
        series, values = [], {}
        for node_id in node_ids:
            node = c.node(node_id)
            link = group_link(c, node, node.count)
            points = []
            for prompt in prompts:
                request = {
                    "model": model_id,
                    "format": fmt_id,
                    "context": prompt + output,
                    "concurrency": 1,
                    "input": prompt,
                    "output": output,
                    "tensor_parallel": node.count,
                    "node": node_id,
                }
                r = evaluate(c, request).fits[0]
                if r.ttft_s is None:
                    raise ValueError(f"{model_id} in {fmt_id} does not fit {node_id} with a {prompt}-token prompt")
                points.append((float(prompt), r.ttft_s))
            values[node_id] = points
            dashed = link is None or c.links[link.link_id].kind != "nvlink"
            # One color per card generation, so that a pair differing only by its link shares it.
            groups = list(dict.fromkeys(c.gpus[c.node(n).gpu].architecture for n in node_ids))
            series.append(Series(node_id, tuple(points), dashed, groups.index(c.gpus[node.gpu].architecture)))
        seconds = lambda v: self.fmt.unit(v, "s", 2 if v < 10 else 1)  # noqa: E731
        spans = ", ".join(
            t["chart_ttft_span"].format(a=seconds(p[0][1]), b=seconds(p[-1][1]), node=n) for n, p in values.items()
        )
        title = t["chart_ttft_title"].format(
            model=c.llms[model_id].name, format=c.formats[fmt_id].name, users=self.users(1)
        )
        svg = line_chart(
            series,
            chart_id=f"chart-ttft-{model_id}-{fmt_id}".replace(".", "-"),
            title=title,
            description=t["chart_ttft_desc"].format(
                low=self.fmt.number(prompts[0]), high=self.fmt.number(prompts[-1]), spans=spans
            ),
            x_label=t["chart_ttft_x"],
            y_label=t["chart_ttft_y"],
            x_tick=lambda v: self.fmt.number(v),
            y_tick=lambda v: self.fmt.number(v, 0 if v >= 1 else 1),
            x_ticks=[float(p) for p in prompts],
        )
        head = "".join(f"<th><code>{escape(n)}</code></th>" for n in values)
        rows = "".join(
            f"<tr><td>{self.fmt.number(prompt)}</td>"
            + "".join(f"<td>{seconds(values[n][i][1])}</td>" for n in values)
            + "</tr>"
            for i, prompt in enumerate(prompts)
        )
        table = f"<table><thead><tr><th>{t['prompt_tokens']}</th>{head}</tr></thead><tbody>{rows}</tbody></table>"
        return register(
            # On a phone the chart keeps a legible width and scrolls sideways in its own box.
            f'<figure class="chart-figure"><div class="chart-figure__scroll" tabindex="0" role="region"'
            f' aria-label="{escape(title)}">{svg}</div>'
            f"<figcaption>{escape(title)}. {t['chart_link_key']}</figcaption></figure>"
            f"<details><summary>{t['chart_values']}</summary>{table}</details>"
        )

    # --- published image times (catalog/image_timings.yaml) -----------------------------

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
                    f"{self.fmt.number(measured, 2)} ×",
                    f"{self.fmt.number(datasheet, 2)} ×",
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

    # --- per-token APIs (catalog/api_prices.yaml) --------------------------------------

    def api_price(self, price_id: str, part: str = "output") -> str:
        """What the API charges per million `input` or `output` tokens, as the provider wrote it."""
        price = self._api(price_id)
        rates = {"input": price.input_usd_per_mtok, "output": price.output_usd_per_mtok}
        if part not in rates:
            raise ValueError(f"api_price part {part!r}: expected 'input' or 'output'")
        return self.fmt.usd(rates[part], cents=True)

    def api_cost(self, price_id: str) -> str:
        """The API's bill per million output tokens, the prompts of the engine's default request included."""
        return self.fmt.usd(self._api_per_output_mtok(price_id), cents=True)

    def api_read(self, price_id: str) -> str:
        """The day the price was read, written the locale's way (2 décembre 2026, December 2, 2026)."""
        import datetime

        from babel.dates import format_date

        return format_date(datetime.date.fromisoformat(self._api(price_id).read), "long", locale=self.locale)

    def api_source(self, price_id: str) -> str:
        """The page the price was read on, cited as text."""
        return self._cite(self._api(price_id).url)

    def api_breakeven(self, price_id: str, fmt_id: str, node_id: str, part: str = "tokens") -> str:
        """One figure of the break-even: `tokens` (millions a month), `rate` (tok/s) or `users`."""
        tokens, rate, users, peak, at = self._breakeven(price_id, fmt_id, node_id)
        if part == "tokens":
            return self.fmt.number(tokens)
        if part == "rate":
            return self._tok(rate)
        return self._be_users(users, peak, at)

    def _be_users(self, users: int, peak: float, at: NodeFit | None) -> str:
        """The users a break-even takes, or why the node never reaches it within the target."""
        if not users or at is None:
            return self.t["be_never"].format(rate=self._tok(peak))
        if not at.meets_target:
            return self.t["be_never_target"].format(users=self.users(users), speed=self._tok(at.decode_tok_s_per_user))
        return self.fmt.number(users)

    def api_breakeven_table(self, price_id: str, fmt_id: str, *node_ids: str) -> str:
        """Where each node starts costing less than the API: tokens a month, the rate, the users it takes."""
        t, c = self.t, self.catalog
        rows = []
        for node_id in node_ids:
            tokens, rate, users, peak, at = self._breakeven(price_id, fmt_id, node_id)
            rows.append(
                [
                    code(node_id),
                    f"{self.fmt.usd(c.node(node_id).price_month_usd)}{t['per_month']}",
                    self.fmt.number(tokens),
                    self._tok(rate),
                    self._be_users(users, peak, at),
                ]
            )
        return _table([t["node"], t["price_month"], t["be_tokens"], t["be_rate"], t["be_users"]], rows)

    def _api(self, price_id: str) -> ApiPrice:
        return self.catalog.api_prices[price_id]

    def _api_per_output_mtok(self, price_id: str) -> float:
        """Input and output price folded into one per million output tokens, at the default request's lengths."""
        a = self.catalog.assumptions
        return self._api(price_id).per_output_mtok(a.default_input_tokens, a.default_output_tokens)

    def _breakeven(self, price_id: str, fmt_id: str, node_id: str) -> tuple[float, float, int, float, NodeFit | None]:
        """Millions of output tokens a month above which the node costs less than the API for the
        same workload (its prompts billed at the API's input rate), the average tok/s that is, the
        fewest users at once whose node total reaches it (0: none does), the node's highest total,
        and the node's answer at those users (None when none reaches it)."""
        c = self.catalog
        model_id = self._api(price_id).model
        node = c.node(node_id)
        tokens = node.price_month_usd / self._api_per_output_mtok(price_id)
        rate = tokens * 1e6 / month_seconds(c.assumptions.hours_per_month)
        fit = self._fit(model_id, fmt_id)[node_id]
        if fit.verdict == "none":
            raise ValueError(f"{model_id} in {fmt_id} does not fit {node_id}: it has no break-even with an API")
        users, total = self._fewest_users(model_id, fmt_id, node_id, MAX_CONCURRENCY, rate)
        return tokens, rate, users, total, self._one(model_id, fmt_id, node_id, users) if users else None

    def _fewest_users(self, model_id: str, fmt_id: str, node_id: str, most: int, rate: float) -> tuple[int, float]:
        """The fewest users (1 to `most`) whose node total reaches `rate` and that total; or 0
        and the highest total when none does.

        Asking each count in turn took hundreds of engine calls a table; this halves ranges on
        two properties of the engine's fit (macros/fitengine/fit.py), checked as it reads:
        - as users grow, the layout chosen moves from the one that serves few users fastest to
          ones with more replicas, and does not come back: the same layout (and replicas) at
          both ends of a range means the same layout throughout;
        - on one layout, one more user adds one to a single replica's batch b, whose total is
          output / (output x step(b) / b + prefill); a decode step's time per sequence,
          step(b) / b, does not grow with b (memory read, compute, collectives and fixed cost
          are each a constant plus a part at most proportional to b), so the total does not fall.
        When a total read is below one of fewer users on the same layout, it asks every count.
        """
        fits: dict[int, NodeFit] = {}

        def one(users: int) -> NodeFit:
            if users not in fits:
                fits[users] = self._one(model_id, fmt_id, node_id, users)
            return fits[users]

        def total(users: int) -> float:
            return one(users).decode_tok_s_total or 0.0

        def layout(users: int) -> tuple[Any, ...]:
            r = one(users)
            return (r.verdict, r.tensor_parallel, r.pipeline_parallel, r.expert_parallel, r.replicas)

        def first(low: int, high: int) -> int | None:
            """The fewest users in [low, high] whose total reaches the rate."""
            if layout(low) != layout(high):
                middle = (low + high) // 2
                return first(low, middle) or first(middle + 1, high)
            if total(high) < rate:
                return None
            while low < high:  # one layout: the totals do not fall, halve the range
                middle = (low + high) // 2
                if total(middle) >= rate:
                    high = middle
                else:
                    low = middle + 1
            return low

        if most < 1:
            return 0, 0.0
        found = first(1, most)
        by_layout: dict[tuple[Any, ...], list[float]] = {}
        for users in sorted(fits):
            by_layout.setdefault(layout(users), []).append(total(users))
        if any(later < earlier for read in by_layout.values() for earlier, later in pairwise(read)):
            # Not what the engine was shown to do: read every count, as without the search.
            found = next((u for u in range(1, most + 1) if total(u) >= rate), None)
            if found is None:
                return 0, max(total(u) for u in range(1, most + 1))
        if found is None:
            # Each layout's highest total is at the end of its range, and every range's end was read.
            return 0, max(total(u) for u in fits)
        return found, total(found)

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
        """Every node's fit for a catalog workload, computed once per page build (several tables share it)."""
        key = (model_id, fmt_id, context, concurrency)
        if key not in self._fits:
            request = {"model": model_id, "format": fmt_id, "context": context, "concurrency": concurrency}
            self._fits[key] = list(evaluate(self.catalog, request).fits)
        return self._fits[key]

    def _one(
        self, model_id: str, fmt_id: str, node_id: str, users: int, layout: tuple[int, ...] | None = None
    ) -> NodeFit:
        """One node's answer for `users` users (a forced layout: tensor, pipeline, expert[, data])."""
        request: dict[str, Any] = {"model": model_id, "format": fmt_id, "concurrency": users, "node": node_id}
        if layout is not None:
            request |= dict(zip(LAYOUT_KEYS, layout, strict=False))
        return evaluate(self.catalog, request).fits[0]

    def _unit_word(self, unit: str, value: Any) -> str:
        """A catalog unit in the page's language, singular for one (none for ratios, counts, ids)."""
        if unit in ("ratio", "count", "gpu"):
            return ""
        word = self.t.get(f"unit_{unit}_many") or self.t.get(f"unit_{unit}", unit)
        return self.t.get(f"unit_{unit}_one", word) if value == 1 else word

    @cached_property
    def _records(self) -> dict[str, dict[str, Any]]:
        """The published measurements by id (records.yaml, read once for the page's tables)."""
        from macros.validation import records

        return {r["id"]: r for r in records()}

    def _record(self, record_id: str) -> str:
        """A published measurement named by its setup in words (model, cards, runtime), not by its id:
        the catalog's names where the record maps to it, the publisher's words (without their
        parenthetical notes) otherwise; the id stays in `data-record`, to find it in records.yaml."""
        record = self._records[record_id]
        model = _plain(str(record.get("published_model") or "")).split("/")[-1]
        fmt = self.catalog.formats.get(record.get("format", ""))
        gpu_id = record.get("gpu")
        gpu = self.catalog.gpus[gpu_id].name if gpu_id in self.catalog.gpus else _plain(record["published_gpu"])
        count = record.get("count") or record["published_count"]
        runtime = self.catalog.runtimes.get(record.get("runtime", ""))
        parts = [model, fmt.name if fmt else "", f"{count}\u00a0×\u00a0{gpu}", runtime.name if runtime else ""]
        return markup('<span data-record="{}">{}</span>', record_id, " · ".join(p for p in parts if p))

    def _cite(self, source: str) -> str:
        """A source as cited: kept in the language it was written in (the catalog's, English),
        marked as a citation in that language, so that a reader's screen reader reads it so."""
        lang = "" if self.locale == SOURCES_LANGUAGE else f' lang="{SOURCES_LANGUAGE}"'
        return markup("<cite{}>{}</cite>", Markup(lang), source)

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

    @staticmethod
    def _short(gpu_name: str) -> str:
        return gpu_name.removeprefix("NVIDIA ").removeprefix("GeForce ")

    def _link_name(self, link: Any) -> str:
        """A link's name in the page's language (the catalog names them in English)."""
        link_id = getattr(link, "link_id", None) or getattr(link, "id", "")
        return self.t.get(f"link_{link_id}", link.name)

    def _seconds(self, value: float | None) -> str:
        return "—" if value is None else self.fmt.number(value, 2)

    def _ms(self, value: float | None) -> str:
        return "—" if value is None else self.fmt.unit(value, "ms", 1)

    def _per_mtok(self, value: float | None) -> str:
        return "—" if value is None else self.fmt.usd(value, cents=True)

    def _layout(self, r: NodeFit | None) -> str:
        if r is None or not r.cards_used:
            return "—"
        text = self.t["layout_text_one" if r.cards_used == 1 else "layout_text"].format(
            cards=self.fmt.number(r.cards_used),
            tp=self.fmt.number(r.tensor_parallel),
            pp=self.fmt.number(r.pipeline_parallel),
        )
        if r.data_parallel > 1:
            text += self.t["layout_dp"].format(dp=self.fmt.number(r.data_parallel))
        if r.expert_parallel > 1:
            text += self.t["layout_ep"].format(ep=self.fmt.number(r.expert_parallel))
        return text

    def _best(self, r: NodeFit) -> str:
        if r.best_usd_per_million_output_tokens is None:
            return "—"
        return self.t["best_at"].format(
            price=self.fmt.usd(r.best_usd_per_million_output_tokens, cents=True),
            users=self.fmt.number(r.best_concurrency),
        )

    def _resolution(self, text: str) -> str:
        """A catalog resolution as a page writes it (locale_format.resolution_text)."""
        return resolution_text(text)

    def _at(self, label: str, users: int) -> str:
        """A column's label and the load its figures are for."""
        return f"{label}, {self.users(users)}"

    def _most_within(self, fits: list[NodeFit]) -> NodeFit | None:
        """The node that serves the most users within the target (the cheapest of those), or None."""
        held = [r for r in fits if r.verdict != "none" and r.max_users_at_target > 0]
        return min(held, key=lambda r: (-r.max_users_at_target, r.price_month_usd)) if held else None

    def _cheapest_fit(self, fits: list[NodeFit]) -> NodeFit | None:
        """The cheapest node within the target (never one the engine's own figures say misses it)."""
        candidates = [r for r in fits if r.verdict != "none" and r.meets_target]
        return min(candidates, key=lambda r: r.price_month_usd) if candidates else None

    def _one_and_many(
        self, model_id: str, fmt_id: str, node: Any, users: int, layout: tuple[int, ...]
    ) -> tuple[NodeFit, NodeFit]:
        """A node's answer with a forced layout for one user, then for `users` users."""
        return (
            self._one(model_id, fmt_id, node.id, 1, layout),
            self._one(model_id, fmt_id, node.id, users, layout),
        )

    def _tok(self, value: float | None) -> str:
        return "—" if value is None else _with_unit(self.fmt.number(value), "tok/s")

    def _reason(self, r: NodeFit) -> str:
        return " ".join(
            render(x, words(TEMPLATES, self.locale), lambda v: self.fmt.number(v, REASON_DIGITS))
            for x in (r.reason, *r.notes)
        )

    def _cheapest(self, fits: list[NodeFit], single: bool) -> str:
        """The cheapest node within the target, on one card (`single`) or at all."""
        candidates = [
            r for r in fits if r.meets_target and (r.verdict == "single" or (not single and r.verdict == "split"))
        ]
        if not candidates:
            return self.t["none_fits"]
        best = min(candidates, key=lambda r: r.price_month_usd)
        return markup("{} · {}{}", code(best.node), self.fmt.usd(best.price_month_usd), self.t["per_month"])

    def _diffusion_node(self, r: DiffusionFit | None, per_work: bool = False) -> str:
        if r is None:
            return self.t["none_fits"]
        suffix = self.t["with_offload"] if r.offload_text_encoders else ""
        if per_work:
            return markup("{} · {}{}", code(r.node), self.fmt.usd(r.usd_per_reference_hour or 0, cents=True), suffix)
        return markup("{} · {}{}{}", code(r.node), self.fmt.usd(r.price_month_usd), self.t["per_month"], suffix)
