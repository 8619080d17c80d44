"""What every guide's macros share: the catalog seen through one locale's eyes, the engine's
answers for a page, the figures and cells most tables are made of.

Every number comes from the catalog through the engine and is formatted for the page's locale.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from macros.build.engine_cache import evaluate
from macros.fitengine import (
    Catalog,
    NodeFit,
    render,
)
from macros.fitengine.api import LAYOUT_KEYS
from macros.fitengine.reasons import REASON_DIGITS, TEMPLATES
from macros.fitengine.units import month_seconds
from macros.i18n import LABELS
from macros.messages import words
from macros.render.locale_format import Formatter
from macros.render.markup import Markup, code, markup
from macros.render.markup import text as _text

# The language the catalog's sources are written in (titles, notes, quotes).
SOURCES_LANGUAGE = "en"


def _plain(words: str) -> str:
    """A publisher's name for a thing without its parenthetical notes ("H100 (SXM, 700 W)" -> "H100")."""
    return re.sub(r"\s*\([^)]*\)?", "", words).strip()


def _with_unit(figure: str, unit: str) -> str:
    """A figure and its unit word joined by a no-break space (the figure alone when there is none)."""
    return markup("{}\u00a0{}", figure, unit) if unit else figure


def _table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table; every cell that is not Markup (macros/render/markup.py) is escaped as text."""

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(_text(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), "|" + "---|" * len(header), *(line(r) for r in rows)])


class GuideBase:
    """The catalog, seen through one locale's eyes: what every guide's macros share."""

    MACROS: tuple[str, ...] = (
        "num",
        "usd",
        "max_cards",
        "node_count",
        "model_name",
        "gpu_value",
        "node_price",
        "assumption",
        "target",
        "tok_s",
        "configurator_url",
        "configurator",
        "measure_widget",
        "fit_table",
        "users",
        "month_tokens",
        "best_price",
        "price_at",
        "speed_at",
    )

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

    def num(self, value: float, digits: int = 0) -> str:
        return self.fmt.number(value, digits)

    def usd(self, value: float) -> str:
        return self.fmt.usd(value)

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
        from macros.build.engine_cache import kept
        from macros.render.configurator_html import ConfiguratorHtml
        from macros.render.html_blocks import register
        from macros.render.node_render import modules_read

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
        """The "measure it yourself" checker (see macros/render/measure_html.py)."""
        from macros.render.html_blocks import register
        from macros.render.measure_html import measure_html

        return register(measure_html(self.catalog, self.locale, self._root()))

    def _root(self) -> str:
        path = self.page_url().strip("/")
        return "../" * (path.count("/") + 1) if path else "./"

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

    def users(self, n: int) -> str:
        """The "per user, at N users" wording every per-user figure carries."""
        return self.t["at_users_one" if n == 1 else "at_users_many"].format(n=self.fmt.number(n))

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

    def _cite(self, source: str) -> str:
        """A source as cited: kept in the language it was written in (the catalog's, English),
        marked as a citation in that language, so that a reader's screen reader reads it so."""
        lang = "" if self.locale == SOURCES_LANGUAGE else f' lang="{SOURCES_LANGUAGE}"'
        return markup("<cite{}>{}</cite>", Markup(lang), source)

    def _topology(self, topology: str, link: Any) -> str:
        """A node's topology and the link its cards' slowest pair has: bridged pairs say that the
        link between the pairs is another ("NVLink bridges in pairs; PCIe Gen5 x16 between the pairs")."""
        words = self.t[f"topology_{topology}"]
        if link is None:
            return words
        if topology == "nvlink-bridge" and not getattr(link, "all_nvlink", False):
            return self.t["topology_bridged_pairs"].format(topology=words, link=self._link_name(link))
        return f"{words} ({self._link_name(link)})"

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

    def _at(self, label: str, users: int) -> str:
        """A column's label and the load its figures are for."""
        return f"{label}, {self.users(users)}"

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

    @staticmethod
    def _short(gpu_name: str) -> str:
        return gpu_name.removeprefix("NVIDIA ").removeprefix("GeForce ")
