"""The configurator's HTML: the form, the status, the filters, and the build-time answer.

Without JavaScript this is the whole configurator: the default workload's answer, computed by
the engine at build time. What shows an answer (the card, the table with its memory bars, the
suggestions, the chart, the phone's summary, the intro) is written by the widget's own modules
(macros/render/markup.mjs and the widget's modules it imports), run under Node (macros/render/node_render.py);
this module writes the rest around them. The widget script (configurator.js) then patches that
markup with the answers of the same engine running in Pyodide.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from macros.build.engine_cache import raw_answer
from macros.build.pyodide_dist import pyodide_version
from macros.fitengine import Catalog
from macros.fitengine.api import (
    LAYOUT_KEYS,
    LIMITS,
    LINK_CLASSES,
    with_reason_text,
)
from macros.fitengine.diffusion import written_resolution
from macros.fitengine.reasons import REASON_DIGITS
from macros.fitengine.workloads import MAX_TARGET_TOK_S, MAX_TARGET_TTFT_S
from macros.i18n import WIDGET
from macros.messages import engine_words
from macros.render.locale_format import Formatter
from macros.render.node_render import BUILD_WIDTH, widget_markup

# Controls that only work with the widget's script: disabled in the build's HTML, enabled by it.
NEEDS_JS = " data-needs-js disabled"


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
        return self.fmt.number(value, REASON_DIGITS)

    def render(self, root: str, model: str, fmt: str, compact: bool = False, methodology: str = "") -> str:
        """The widget; `methodology` is the address of the page its figures are explained on."""
        self._methodology = methodology
        # The engine's answer is shared with the other locales and the build-time answers.
        raw = raw_answer(self.catalog, {"model": model, "format": fmt})
        result = with_reason_text(raw, engine_words(self.locale), self.number)
        shown = self.markup(result, model, fmt, compact)
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
            "data-default-min-speed": _raw(a.target_tok_s),
            "data-default-max-ttft": _raw(a.target_ttft_s),
            "data-default-input": str(a.default_input_tokens),
            "data-default-output": str(a.default_output_tokens),
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
        if not compact:
            # The question the fields ask, in words: the widget rewrites it as they change.
            parts.append(f'<p class="configurator__intro" data-intro>{shown["intro"]}</p>')
        # The question the chart answers, above it (the widget rewrites it with each answer).
        chart_question = (
            ""
            if compact
            else f'<p class="configurator__chart-question" data-chart-question>{shown["chart_question"]}</p>'
        )
        chart = (
            f'<figure class="configurator__chart" data-chart data-width="{BUILD_WIDTH}">{shown["chart"]}</figure>'
            if shown["chart"]
            else '<figure class="configurator__chart" data-chart hidden></figure>'
        )
        parts += [
            f'<script type="application/json" data-labels>{json.dumps(self.t, ensure_ascii=False)}</script>',
            self._form(model, fmt, "" if compact else shown["summary"], shown["target_source"]),
            f'<p class="configurator__status" data-engine-status="static" role="status">{escape(self.t["status_static"])}</p>',
            '<p class="configurator__message" data-message role="alert" hidden></p>',
            '<p class="configurator__read" data-model-read hidden></p>',
            f'<noscript><p class="configurator__noscript">{shown["noscript"]}</p></noscript>',
            shown["card"],
            self._controls(),
            shown["table"],
            # The button that shows the rows of the nodes that do not fit, with their count;
            # hidden until the script folds those rows.
            '<p class="configurator__fold"><button type="button" class="md-button" data-show-none hidden>'
            f"{shown['fold']}</button></p>",
            self.legend_html(),
            chart_question + chart,
        ]
        if not compact:
            # Tells the engine's worker (started from the head) to ask for Pyodide once this table is painted.
            boot = f"{root}assets/javascripts/configurator-boot.js"
            parts.append(f'<script src="{escape(boot)}"></script>')
        parts.append("</div>")
        return "\n".join(parts)

    def _options(self, selected: str, items: list[tuple[str, str]]) -> str:
        return "".join(
            f'<option value="{escape(v)}"{" selected" if v == selected else ""}>{escape(label)}</option>'
            for v, label in items
        )

    def markup(self, result: dict[str, Any], model: str, fmt: str, compact: bool) -> dict[str, str]:
        """The pieces that show the answer, each HTML, written by the widget's modules under Node."""
        return widget_markup(self.locale, result, self.markup_context(model, fmt, compact))

    def markup_context(self, model: str, fmt: str, compact: bool = False) -> dict[str, Any]:
        """What the widget's modules read besides the answer: the words, the names and the
        catalog's defaults (markup.mjs's `ctx`; the columns are protocol.js's)."""
        c, a = self.catalog, self.catalog.assumptions
        return {
            "t": self.t,
            "model": model,
            "format": fmt,
            "formatNames": {f.id: f.name for f in c.formats.values()},
            "gpuNames": {g.id: g.name for g in c.gpus.values()},
            "compact": compact,
            "width": BUILD_WIDTH,
            "defaults": {
                "context": a.default_context,
                "concurrency": a.default_concurrency,
                "input": a.default_input_tokens,
                "output": a.default_output_tokens,
                "min_speed": a.target_tok_s,
                "max_ttft": a.target_ttft_s,
            },
        }

    def _form(self, model: str, fmt: str, summary: str, source: str) -> str:
        """The form; `summary` (the phone's, empty in the compact widget) and `source` (the
        target's source, in words) are HTML."""
        t, c = self.t, self.catalog
        # Each language model carries its native format (the one its publisher released it in), and
        # so does each image or video model whose published precision is a catalog format:
        # choosing the model chooses that format too.
        llms = "".join(
            f'<option value="{escape(m.id)}" data-native="{escape(m.native_format)}"{" selected" if m.id == model else ""}>'
            f"{escape(m.name)}</option>"
            for m in c.llms.values()
        )
        diffusion = "".join(
            f'<option value="{escape(m.id)}"'
            + (f' data-native="{escape(m.native_format)}"' if m.native_format else "")
            + f' data-resolution="{escape(written_resolution(m.resolution))}"'
            + f"{' selected' if m.id == model else ''}>{escape(m.name)}</option>"
            for m in c.diffusion.values()
        )
        formats = self._options(fmt, [(f.id, f.name) for f in c.formats.values()])
        runtimes = self._options("", [("", t["runtime_default"]), *((r.id, r.name) for r in c.runtimes.values())])
        kv_caches = self._options("auto", [("auto", t["kv_auto"]), ("fp8", t["kv_fp8"])])
        # A layout forced by the reader, each degree a power of two up to the largest node.
        most = max(n.count for n in c.nodes)
        powers = [str(2**i) for i in range(most.bit_length()) if 2**i <= most]
        degrees = self._options("", [("", t["layout_auto"]), *((p, p) for p in powers)])
        a = c.assumptions

        def number_field(name: str, label: str, value: str, minimum: int, maximum: int) -> str:
            return (
                f'<div class="configurator__field"><label for="cfg-{name}">{escape(label)}</label>'
                f'<input id="cfg-{name}" name="{name}" type="number" inputmode="numeric" min="{minimum}" max="{maximum}" step="1" value="{value}" aria-describedby="cfg-{name}-error"{NEEDS_JS}>'
                f'<span class="configurator__error" id="cfg-{name}-error" data-error-for="{name}"></span></div>'
            )

        def select_field(name: str, label: str, options: str) -> str:
            error = "layout" if name in LAYOUT_KEYS else name
            return (
                f'<div class="configurator__field"><label for="cfg-{name}">{escape(label)}</label>'
                f'<select id="cfg-{name}" name="{name}" aria-describedby="cfg-{error}-error"{NEEDS_JS}>{options}</select>'
                + (
                    ""
                    if name in LAYOUT_KEYS
                    else f'<span class="configurator__error" id="cfg-{name}-error" data-error-for="{name}"></span>'
                )
                + "</div>"
            )

        def decimal_field(name: str, label: str, value: float, maximum: int) -> str:
            return (
                f'<div class="configurator__field"><label for="cfg-{name}">{escape(label)}</label>'
                f'<input id="cfg-{name}" name="{name}" type="number" inputmode="decimal" min="0.1" max="{maximum}" step="0.1" value="{_raw(value)}" aria-describedby="cfg-{name}-error cfg-target-source"{NEEDS_JS}>'
                f'<span class="configurator__error" id="cfg-{name}-error" data-error-for="{name}"></span></div>'
            )

        def custom_field(name: str, label: str) -> str:
            return (
                f'<div class="configurator__field"><label for="cfg-{name}">{escape(label)}</label>'
                f'<input id="cfg-{name}" name="{name}" type="text" inputmode="decimal" autocomplete="off"{NEEDS_JS}></div>'
            )

        return "\n".join(
            [
                '<form class="configurator__form" data-form>',
                summary,
                f'<div class="configurator__field"><label for="cfg-model">{escape(t["model"])}</label>'
                f'<select id="cfg-model" name="model"{NEEDS_JS}><optgroup label="{escape(t["llms"])}">{llms}</optgroup>'
                f'<optgroup label="{escape(t["diffusion"])}" data-kind="diffusion">{diffusion}</optgroup>'
                f'<option value="custom">{escape(t["custom"])}</option></select></div>',
                f'<div class="configurator__field"><label for="cfg-format">{escape(t["format"])}</label>'
                f'<select id="cfg-format" name="format"{NEEDS_JS}>{formats}</select></div>',
                number_field("context", t["context"], str(a.default_context), 1, LIMITS["context"]),
                number_field("concurrency", t["concurrency"], str(a.default_concurrency), 1, LIMITS["concurrency"]),
                decimal_field("min_speed", t["min_speed"], a.target_tok_s, MAX_TARGET_TOK_S),
                decimal_field("max_ttft", t["max_ttft"], a.target_ttft_s, MAX_TARGET_TTFT_S),
                f'<p class="configurator__hint" id="cfg-target-source" data-target-source>{source}</p>',
                # What the engine otherwise chooses itself, out of the way until asked for.
                f'<details class="configurator__layout"><summary>{escape(t["layout_legend"])}</summary>',
                select_field("runtime", t["runtime"], runtimes),
                select_field("kv_cache", t["kv_cache"], kv_caches),
                *(select_field(key, t[key], degrees) for key in LAYOUT_KEYS),
                '<span class="configurator__error" id="cfg-layout-error" data-error-for="layout"></span>',
                "</details>",
                f'<fieldset class="configurator__custom" data-custom hidden><legend>{escape(t["custom_legend"])}</legend>',
                f'<div class="configurator__field configurator__field--wide"><label for="cfg-config">{escape(t["config_json"])}</label>'
                f'<textarea id="cfg-config" name="config" rows="4" spellcheck="false" aria-describedby="cfg-config-error"{NEEDS_JS}></textarea>'
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
        gpus = self._options("", [("", t["all_gpu"]), *((g.id, g.name) for g in c.gpus.values())])
        links = self._options("", [("", t["all_link"]), *((k, t[f"link_{k}"]) for k in LINK_CLASSES)])
        return (
            '<div class="configurator__controls" data-controls hidden>'
            f'<label>{escape(t["filter_verdict"])} <select data-filter="verdict">{verdicts}</select></label>'
            f'<label>{escape(t["filter_gpu"])} <select data-filter="gpu">{gpus}</select></label>'
            f'<label>{escape(t["filter_link"])} <select data-filter="link">{links}</select></label>'
            # A confirmation shows beside its button, over the page: nothing moves.
            '<span class="configurator__share">'
            f'<button type="button" class="md-button" data-copy-link>{escape(t["copy_link"])}</button>'
            '<span class="configurator__notice" data-notice role="status"></span></span>'
            f'<button type="button" class="md-button" data-csv>{escape(t["csv"])}</button>'
            "</div>"
        )

    def legend_html(self) -> str:
        t = self.t
        items = "".join(
            f'<li><span class="legend__swatch bar__{name}"></span>{escape(t["bar_" + name])}</li>'
            for name in ("weights", "kv", "reserve", "free")
        )
        method = getattr(self, "_methodology", "")
        link = f'<li><a href="{escape(method)}">{escape(t["method"])}</a></li>' if method else ""
        return (
            f'<ul class="configurator__legend" aria-label="{escape(t["legend"])}"><li>{escape(t["legend"])}</li>'
            f"{items}{link}</ul>"
        )
