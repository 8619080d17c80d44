"""The configurator's HTML: form, status, filters, and the build-time answer as a table.

Without JavaScript this is the whole configurator: the default workload's answer, computed by
the engine at build time. The widget script (overrides/assets/javascripts/configurator.js)
redraws the same table from the same engine running in Pyodide; `row_html` here and `rowHtml`
there must produce the same markup.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from macros.fitengine import Catalog, answer
from macros.fitengine.api import CUSTOM_CHARS, CUSTOM_DEPTH, CUSTOM_LINK
from macros.i18n import WIDGET
from macros.locale_format import Formatter
from macros.pyodide_dist import pyodide_version

COLUMNS = (
    "node",
    "gpu",
    "verdict",
    "memory",
    "per_user",
    "total",
    "ttft",
    "price_month",
    "per_mtok",
    "best_per_mtok",
    "max_users",
    "reason",
)
NUMERIC = {"per_user", "total", "ttft", "price_month", "per_mtok", "best_per_mtok", "max_users"}


def _raw(value: Any) -> str:
    """A raw number as JavaScript's String() writes it (358, not 358.0), for data attributes."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


class ConfiguratorHtml:
    def __init__(self, catalog: Catalog, locale: str) -> None:
        self.catalog = catalog
        self.locale = locale
        self.fmt = Formatter(locale)
        self.t = WIDGET[locale]

    def number(self, value: float) -> str:
        return self.fmt.number(value, 1)

    def render(self, root: str, model: str, fmt: str, compact: bool = False) -> str:
        result = answer(self.catalog, {"model": model, "format": fmt}, self.locale, self.number)
        a = self.catalog.assumptions
        attrs = {
            "class": "configurator" + (" configurator--compact" if compact else ""),
            "data-configurator": "",
            "data-search-exclude": "",
            "data-locale": self.locale,
            "data-root": root,
            "data-pyodide": pyodide_version(),
            "data-default-model": model,
            "data-default-format": fmt,
            "data-default-context": str(a.default_context),
            "data-default-concurrency": str(a.default_concurrency),
            "data-custom-chars": str(CUSTOM_CHARS),
            "data-custom-depth": str(CUSTOM_DEPTH),
            "data-custom-link": str(CUSTOM_LINK),
        }
        if compact:
            attrs["data-compact"] = ""
        opening = "<div " + " ".join(f'{k}="{escape(v)}"' if v else k for k, v in attrs.items()) + ">"
        parts = [opening]
        if not compact:
            # The build's answers for the default format: fetched while the page parses, so a
            # model chosen while Pyodide loads answers at once (the compact widget waits for a touch).
            answers = f"{root}../engine/answers/{self.locale}/{fmt}.json"
            parts.append(f'<link rel="preload" as="fetch" crossorigin="anonymous" href="{escape(answers)}">')
            # The manifest holding the answers' hash: they are used only once it vouches for them.
            manifest = f"{root}../engine/manifest.json"
            parts.append(f'<link rel="preload" as="fetch" crossorigin="anonymous" href="{escape(manifest)}">')
        parts += [
            f'<script type="application/json" data-labels>{json.dumps(self.t, ensure_ascii=False)}</script>',
            self._form(model, fmt),
            f'<p class="configurator__status" data-engine-status="static" role="status">{escape(self.t["status_static"])}</p>',
            '<p class="configurator__message" data-message role="alert" hidden></p>',
            '<p class="configurator__read" data-model-read hidden></p>',
            f'<p class="configurator__summary" data-summary>{self.summary_html(result)}</p>',
            self._controls(),
            self.table_html(result),
            '<figure class="configurator__chart" data-chart hidden></figure>',
        ]
        if not compact:
            # Starts the engine once this table is painted, before the rest of the page loads.
            boot = f"{root}assets/javascripts/configurator-boot.js"
            parts.append(f'<script type="module" async src="{escape(boot)}"></script>')
        parts.append("</div>")
        return "\n".join(parts)

    def _options(self, selected: str, items: list[tuple[str, str]]) -> str:
        return "".join(
            f'<option value="{escape(v)}"{" selected" if v == selected else ""}>{escape(label)}</option>'
            for v, label in items
        )

    def _form(self, model: str, fmt: str) -> str:
        t, c = self.t, self.catalog
        llms = self._options(model, [(m.id, m.name) for m in c.llms.values()])
        diffusion = self._options(model, [(m.id, m.name) for m in c.diffusion.values()])
        formats = self._options(fmt, [(f.id, f.name) for f in c.formats.values()])
        runtimes = self._options("", [("", t["runtime_default"]), *((r.id, r.name) for r in c.runtimes.values())])
        kv_caches = self._options("auto", [("auto", t["kv_auto"]), ("fp8", t["kv_fp8"])])
        a = c.assumptions

        def number_field(name: str, label: str, value: str, minimum: int, maximum: int) -> str:
            return (
                f'<div class="configurator__field"><label for="cfg-{name}">{escape(label)}</label>'
                f'<input id="cfg-{name}" name="{name}" type="number" inputmode="numeric" min="{minimum}" max="{maximum}" step="1" value="{value}" aria-describedby="cfg-{name}-error">'
                f'<span class="configurator__error" id="cfg-{name}-error" data-error-for="{name}"></span></div>'
            )

        def custom_field(name: str, label: str) -> str:
            return (
                f'<div class="configurator__field"><label for="cfg-{name}">{escape(label)}</label>'
                f'<input id="cfg-{name}" name="{name}" type="text" inputmode="decimal" autocomplete="off"></div>'
            )

        return "\n".join(
            [
                '<form class="configurator__form" data-form>',
                f'<div class="configurator__field"><label for="cfg-model">{escape(t["model"])}</label>'
                f'<select id="cfg-model" name="model"><optgroup label="{escape(t["llms"])}">{llms}</optgroup>'
                f'<optgroup label="{escape(t["diffusion"])}">{diffusion}</optgroup>'
                f'<option value="custom">{escape(t["custom"])}</option></select></div>',
                f'<div class="configurator__field"><label for="cfg-format">{escape(t["format"])}</label>'
                f'<select id="cfg-format" name="format">{formats}</select></div>',
                number_field("context", t["context"], str(a.default_context), 1, 10_000_000),
                number_field("concurrency", t["concurrency"], str(a.default_concurrency), 1, 4096),
                f'<div class="configurator__field"><label for="cfg-runtime">{escape(t["runtime"])}</label>'
                f'<select id="cfg-runtime" name="runtime">{runtimes}</select></div>',
                f'<div class="configurator__field"><label for="cfg-kv_cache">{escape(t["kv_cache"])}</label>'
                f'<select id="cfg-kv_cache" name="kv_cache">{kv_caches}</select></div>',
                f'<fieldset class="configurator__custom" data-custom hidden><legend>{escape(t["custom_legend"])}</legend>',
                f'<div class="configurator__field configurator__field--wide"><label for="cfg-config">{escape(t["config_json"])}</label>'
                f'<textarea id="cfg-config" name="config" rows="4" spellcheck="false" aria-describedby="cfg-config-error"></textarea>'
                f'<span class="configurator__error" id="cfg-config-error" data-error-for="config"></span></div>',
                f'<p class="configurator__or">{escape(t["or_totals"])}</p>',
                custom_field("total", t["total"]),
                custom_field("active", t["active"]),
                custom_field("layers", t["layers"]),
                custom_field("kv_heads", t["kv_heads"]),
                custom_field("head_dim", t["head_dim"]),
                '<span class="configurator__error" data-error-for="totals"></span>',
                "</fieldset>",
                "</form>",
            ]
        )

    def _controls(self) -> str:
        t, c = self.t, self.catalog
        verdicts = self._options(
            "", [("", t["all"]), ("single", t["single"]), ("split", t["split"]), ("none", t["none"])]
        )
        gpus = self._options("", [("", t["all"]), *((g.id, g.name) for g in c.gpus.values())])
        links = self._options(
            "", [("", t["all"]), *((k, t[f"link_{k}"]) for k in ("one-card", "pcie", "nvlink-bridge", "nvlink"))]
        )
        return (
            '<div class="configurator__controls" data-controls hidden>'
            f'<label>{escape(t["filter_verdict"])} <select data-filter="verdict">{verdicts}</select></label>'
            f'<label>{escape(t["filter_gpu"])} <select data-filter="gpu">{gpus}</select></label>'
            f'<label>{escape(t["filter_link"])} <select data-filter="link">{links}</select></label>'
            f'<button type="button" class="md-button" data-copy-link>{escape(t["copy_link"])}</button>'
            f'<button type="button" class="md-button" data-csv>{escape(t["csv"])}</button>'
            "</div>"
        )

    def summary_html(self, result: dict[str, Any]) -> str:
        t = self.t
        s = result["summary"]
        rows = {r["node"]: r for r in result["rows"]}

        def node(node_id: str | None) -> str:
            if node_id is None:
                return escape(t["no_node"])
            return f"<code>{escape(node_id)}</code> ({escape(self.fmt.usd(rows[node_id]['price_month_usd']))}{escape(t['per_month'])})"

        return (
            f"{escape(t['summary_single'])} {node(s['cheapest_single'])}. "
            f"{escape(t['summary_any'])} {node(s['cheapest_any'])}."
        )

    def table_html(self, result: dict[str, Any]) -> str:
        t = self.t
        kind = result["kind"]
        heads = []
        for col in COLUMNS:
            label = (
                t[f"col_{col}_diffusion"] if kind == "diffusion" and f"col_{col}_diffusion" in t else t[f"col_{col}"]
            )
            cls = ' class="num"' if col in NUMERIC else ""
            heads.append(
                f'<th scope="col"{cls} data-col="{col}"><button type="button" data-sort="{col}">{escape(label)}</button></th>'
            )
        body = "\n".join(self.row_html(r, kind) for r in result["rows"])
        caption = escape(t["caption"].format(model=result["model_name"]))
        return (
            f'<div class="configurator__scroll" tabindex="0" role="region" aria-label="{caption}">'
            f'<table class="configurator__table" data-kind="{kind}"><caption>{caption}</caption>'
            f"<thead><tr>{''.join(heads)}</tr></thead><tbody>\n{body}\n</tbody></table></div>"
        )

    def row_html(self, r: dict[str, Any], kind: str) -> str:
        t, f = self.t, self.fmt
        gpu = self.catalog.gpus[r["gpu"]]
        if kind == "diffusion":
            speed = r["relative_speed"]
            numbers = [
                "" if speed is None else f"×{f.number(speed, 2)}",
                "" if r["usd_per_reference_hour"] is None else f.usd(r["usd_per_reference_hour"], cents=True),
                "",
                f.usd(r["price_month_usd"]),
                "",
                "",
                "",
            ]
            cards = 1 if r["verdict"] != "none" else 0
            verdict = t[r["verdict"]]
            raw_tok = r["relative_speed"]
        else:
            fits = r["verdict"] != "none"
            best = r["best_usd_per_million_output_tokens"]
            numbers = [
                f.number(r["decode_tok_s_per_user"], 1) if fits else "",
                f.number(r["decode_tok_s_total"], 1) if fits else "",
                f.number(r["ttft_s"], 2) if fits else "",
                f.usd(r["price_month_usd"]),
                f.usd(r["usd_per_million_output_tokens"], cents=True) if fits else "",
                t["best_at"].format(price=f.usd(best, cents=True), users=f.number(r["best_concurrency"], 0))
                if best is not None
                else "",
                f.number(r["max_concurrency"], 0) if fits else "",
            ]
            cards = r["cards_used"]
            verdict = t[r["verdict"]]
            if r["verdict"] == "split":
                verdict += " · " + t["layout"].format(cards=cards, tp=r["tensor_parallel"], pp=r["pipeline_parallel"])
            raw_tok = r["decode_tok_s_per_user"]
        cells = [
            f"<td><code>{escape(r['node'])}</code></td>",
            f"<td>{escape(gpu.name)}</td>",
            f"<td>{escape(verdict)}</td>",
            f"<td>{self.bar_html(r, kind)}</td>",
            *(f'<td class="num">{escape(text)}</td>' for text in numbers),
            f"<td>{escape(r['reason_text'])}</td>",
        ]
        attrs = (
            f'data-node="{escape(r["node"])}" data-verdict="{r["verdict"]}" data-cards="{cards}" '
            f'data-tok-s="{_raw(raw_tok)}" data-price-month="{_raw(r["price_month_usd"])}" '
            f'data-gpu="{escape(r["gpu"])}" data-link="{r["link_class"]}" data-shown="{r["verdict"]}"'
        )
        return f"<tr {attrs}>{''.join(cells)}</tr>"

    def bar_html(self, r: dict[str, Any], kind: str) -> str:
        t, f = self.t, self.fmt
        capacity = r["capacity_gb"]
        if kind == "diffusion":
            parts = [("weights", r["need_gb"])]
        else:
            parts = [("weights", r["weights_gb"]), ("kv", r["kv_gb"]), ("reserve", r["reserve_gb"])]
        used = sum(v for _, v in parts)
        scale = max(capacity, used)
        parts.append(("free", max(capacity - used, 0.0)))
        rects, x = [], 0.0
        for name, value in parts:
            width = 100 * value / scale
            # Empty parts too, so that the widget's update only moves the rectangles.
            rects.append(f'<rect class="bar__{name}" x="{x:.2f}" width="{width:.2f}" height="10"></rect>')
            x += width
        label = " · ".join(f"{t['bar_' + name]} {f.number(value, 1)} GB" for name, value in parts)
        text = f"{f.number(used, 1)} / {f.number(capacity, 1)} GB"
        return (
            f'<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="{escape(label)}">'
            f"<title>{escape(label)}</title>{''.join(rects)}</svg>"
            f'<span class="bar__text">{escape(text)}</span>'
        )
