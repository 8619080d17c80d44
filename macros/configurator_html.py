"""The configurator's HTML: form, status, filters, and the build-time answer as a table.

Without JavaScript this is the whole configurator: the default workload's answer, computed by
the engine at build time. The widget script (overrides/assets/javascripts/configurator.js)
patches this markup with the answers of the same engine running in Pyodide: the card's slots
and the rows' cells (`rowHtml` in configurator/table.js writes a whole row only when the nodes change).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from macros.build.engine_cache import raw_answer
from macros.build.pyodide_dist import pyodide_version
from macros.chart_svg import BUILD_WIDTH, chart_highlight, chart_points, chart_svg
from macros.fitengine import Catalog
from macros.fitengine.api import (
    CUSTOM_CHARS,
    CUSTOM_DEPTH,
    CUSTOM_LINK,
    LAYOUT_KEYS,
    LIMITS,
    LINK_CLASSES,
    TABLE_COLUMNS,
    Column,
    with_reason_text,
)
from macros.fitengine.reasons import REASON_DIGITS
from macros.fitengine.workloads import MAX_TARGET_TOK_S, MAX_TARGET_TTFT_S
from macros.i18n import WIDGET
from macros.messages import engine_words
from macros.render.locale_format import Formatter, resolution_text

# Controls that only work with the widget's script: disabled in the build's HTML, enabled by it.
NEEDS_JS = " data-needs-js disabled"
# The table's columns and what each sorts on are the engine's (fitengine.api.TABLE_COLUMNS);
# the page hands the same list to the widget in `data-columns`.
COLUMN_IDS = tuple(c.id for c in TABLE_COLUMNS)


def is_figure(col: Column) -> bool:
    """A right-aligned figure: every number column but the memory bar."""
    return col.sort == "number" and col.id != "memory"


def sorted_rows(rows: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """(catalog order, row): the nodes that fit first, each group by monthly price (the widget's default sort)."""
    return sorted(enumerate(rows), key=lambda p: (p[1]["verdict"] == "none", p[1]["price_month_usd"], p[0]))


def sort_value(row: dict[str, Any], column: Column, kind: str) -> Any:
    """The raw value a row carries for a number column (None: none for this kind of model)."""
    key = column.key_diffusion if kind == "diffusion" else column.key
    return row.get(key) if key else None


def shown_look(verdict: str) -> str:
    """What a row's look follows (its data-shown): whether it fits, not how. The widget changes
    the attribute only when that changes, and each change restyles the row's every cell."""
    return "none" if verdict == "none" else "fits"


def target_look(r: dict[str, Any]) -> str:
    """A row's place against the target (its data-target): recommended, met, missed, or empty
    (no fit, or an image model, which has no target)."""
    if r.get("recommended") and "meets_target" in r:
        return "recommended"
    if r["verdict"] == "none" or "meets_target" not in r:
        return ""
    return "met" if r["meets_target"] else "missed"


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
        self._model = model
        self._fmt = fmt
        self._methodology = methodology
        # The engine's answer is shared with the other locales and the build-time answers.
        raw = raw_answer(self.catalog, {"model": model, "format": fmt})
        result = with_reason_text(raw, engine_words(self.locale), self.number)
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
            "data-custom-chars": str(CUSTOM_CHARS),
            "data-custom-depth": str(CUSTOM_DEPTH),
            "data-custom-link": str(CUSTOM_LINK),
            "data-columns": json.dumps([c.to_dict() for c in TABLE_COLUMNS], separators=(",", ":")),
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
            parts.append(f'<p class="configurator__intro" data-intro>{escape(self.intro_text(result, fmt))}</p>')
        parts += [
            f'<script type="application/json" data-labels>{json.dumps(self.t, ensure_ascii=False)}</script>',
            self._form(model, fmt, None if compact else result),
            f'<p class="configurator__status" data-engine-status="static" role="status">{escape(self.t["status_static"])}</p>',
            '<p class="configurator__message" data-message role="alert" hidden></p>',
            '<p class="configurator__read" data-model-read hidden></p>',
            self.noscript_html(result, fmt),
            self.answer_html(result, fmt),
            self._controls(),
            self.table_html(result),
            self.fold_html(result),
            self.legend_html(),
            self.chart_html(result, compact),
        ]
        if not compact:
            # Tells the engine's worker (started from the head) to ask for Pyodide once this table is painted.
            boot = f"{root}assets/javascripts/configurator-boot.js"
            parts.append(f'<script src="{escape(boot)}"></script>')
        parts.append("</div>")
        return "\n".join(parts)

    def fold_html(self, result: dict[str, Any]) -> str:
        """The button that shows the rows of the nodes that do not fit, with their count (as
        applyFilters in configurator.js writes it); hidden until the script folds those rows."""
        folded = sum(1 for r in result["rows"] if r["verdict"] == "none")
        label = self.t["show_none"].format(n=self.fmt.number(folded, 0))
        return (
            '<p class="configurator__fold"><button type="button" class="md-button" data-show-none hidden>'
            f"{escape(label)}</button></p>"
        )

    def noscript_html(self, result: dict[str, Any], fmt: str) -> str:
        """Without JavaScript: which workload the build's answer is for, and what needs a script
        (a static page cannot read its address, so a link's other values go unanswered)."""
        a = self.catalog.assumptions
        if result["kind"] == "diffusion":
            text = self.t["noscript_diffusion"].format(
                model=result["model_name"],
                format=self.catalog.formats[fmt].name,
                resolution=resolution_text(result.get("resolution", "")),
            )
            return f'<noscript><p class="configurator__noscript">{escape(text)}</p></noscript>'
        workload = result.get("workload") or {"context": a.default_context, "concurrency": a.default_concurrency}
        text = self.t["noscript"].format(
            model=result["model_name"],
            format=self.catalog.formats[fmt].name,
            context=self.fmt.number(workload["context"], 0),
            users=self.users(workload["concurrency"]),
        )
        return f'<noscript><p class="configurator__noscript">{escape(text)}</p></noscript>'

    def _options(self, selected: str, items: list[tuple[str, str]]) -> str:
        return "".join(
            f'<option value="{escape(v)}"{" selected" if v == selected else ""}>{escape(label)}</option>'
            for v, label in items
        )

    def _form(self, model: str, fmt: str, result: dict[str, Any] | None = None) -> str:
        t, c, f = self.t, self.catalog, self.fmt
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
            + f' data-resolution="{escape(resolution_text(m.resolution))}"'
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

        source = t["target_source"].format(
            tpot=f"{f.brief(1000 / a.target_tok_s)}\u00a0ms",
            speed=t["tok_s"].format(value=f.brief(a.target_tok_s)),
            ttft=t["seconds"].format(value=f.brief(a.target_ttft_s)),
        )

        def custom_field(name: str, label: str) -> str:
            return (
                f'<div class="configurator__field"><label for="cfg-{name}">{escape(label)}</label>'
                f'<input id="cfg-{name}" name="{name}" type="text" inputmode="decimal" autocomplete="off"{NEEDS_JS}></div>'
            )

        return "\n".join(
            [
                '<form class="configurator__form" data-form>',
                self.summary_html(result, fmt) if result is not None else "",
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
                f'<p class="configurator__hint" id="cfg-target-source" data-target-source>{escape(source)}</p>',
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

    def node_name(self, r: dict[str, Any]) -> str:
        return self.t["node_name"].format(count=r["count"], gpu=self.catalog.gpus[r["gpu"]].name)

    def users(self, n: int) -> str:
        return self.t["users_one" if n == 1 else "users_many"].format(n=self.fmt.number(n, 0))

    def intro_text(self, result: dict[str, Any], fmt: str) -> str:
        """The question an answer is for, in a sentence (introText in configurator/question.js)."""
        t, f, a = self.t, self.fmt, self.catalog.assumptions
        name = self.catalog.formats[fmt].name
        if result["kind"] == "diffusion":
            resolution = resolution_text(result.get("resolution", ""))
            return t["intro_diffusion"].format(model=result["model_name"], format=name, resolution=resolution)
        w = result.get("workload") or {}
        return t["intro"].format(
            model=result["model_name"],
            format=name,
            context=f.number(w.get("context", a.default_context), 0),
            users=self.users(w.get("concurrency", a.default_concurrency)),
            input=f.number(w.get("input", a.default_input_tokens), 0),
            output=f.number(w.get("output", a.default_output_tokens), 0),
            speed=t["tok_s"].format(value=f.brief(w.get("min_speed", a.target_tok_s))),
            ttft=t["seconds"].format(value=f.brief(w.get("max_ttft", a.target_ttft_s))),
        )

    def summary_html(self, result: dict[str, Any], fmt: str) -> str:
        """The compact summary a phone keeps in view over the form (summaryView in
        configurator/summary.js): the card's node, price, speed, first token and the target.
        Hidden from screen readers, which hear each answer from the card's live region."""
        t, f = self.t, self.fmt
        view = self.answer_view(result, fmt)
        diffusion = result["kind"] == "diffusion"
        w = result.get("workload") or {}
        concurrency = w.get("concurrency", self.catalog.assumptions.default_concurrency)
        rows = {r["node"]: r for r in result["rows"]}
        closest = rows.get(result["summary"].get("closest") or "")
        if view.get("node"):
            ttft = "" if diffusion else t["summary_ttft"].format(ttft=view["ttft"])
            figures = " · ".join(x for x in (view["price"], view["per_user"], ttft) if x)
            node, look = view["node"], "met"
            target = "" if diffusion else t["summary_met"].format(users=self.users(concurrency))
        elif closest is not None and not diffusion:
            node, look = self.node_name(closest), "missed"
            figures = " · ".join(
                (
                    f.usd(closest["price_month_usd"]) + t["per_month"],
                    t["tok_s"].format(value=f.number(closest["decode_tok_s_per_user"], 1)),
                    t["summary_ttft"].format(ttft=t["seconds"].format(value=f.number(closest["ttft_s"], 2))),
                )
            )
            target = t["summary_missed"].format(users=self.users(concurrency))
        else:
            node, look, figures, target = t["summary_none"], "none", "", ""
        return (
            f'<div class="configurator__summary" data-summary aria-hidden="true" data-look="{look}" '
            f'data-node="{escape(result["summary"]["recommended"] or "")}" data-model="{escape(self._model)}" '
            f'data-context="{w.get("context", "")}" data-concurrency="{concurrency}">'
            f"<strong data-summary-node>{escape(node)}</strong> "
            f"<span data-summary-figures>{escape(figures)}</span> "
            f'<span class="summary__target" data-summary-target>{escape(target)}</span></div>'
        )

    def answer_view(self, result: dict[str, Any], fmt: str) -> dict[str, str]:
        """The result card's texts, by slot (empty: the slot's line is hidden). Mirrors answerView in
        overrides/assets/javascripts/configurator/answer.js."""
        t, f = self.t, self.fmt
        rows = {r["node"]: r for r in result["rows"]}
        s = result["summary"]
        diffusion = result["kind"] == "diffusion"
        workload = result.get("workload") or {
            "context": self.catalog.assumptions.default_context,
            "concurrency": self.catalog.assumptions.default_concurrency,
        }
        fmt_name = self.catalog.formats[fmt].name
        if diffusion:
            question = t["answer_question_diffusion"].format(
                model=result["model_name"], format=fmt_name, resolution=resolution_text(result.get("resolution", ""))
            )
        else:
            question = t["answer_question"].format(
                model=result["model_name"],
                format=fmt_name,
                context=f.number(workload["context"], 0),
                users=self.users(workload["concurrency"]),
            )
        if not diffusion and workload.get("min_speed") is not None:
            question += " · " + self.target_text(workload)
        view = {
            "question": question,
            "title": t["answer_title_diffusion" if diffusion else "answer_title"],
            "per_user_label": t["fig_per_user_diffusion" if diffusion else "fig_per_user"],
            "per_mtok_label": t["fig_per_mtok_diffusion" if diffusion else "fig_per_mtok"],
            "alt_best_per_mtok_label": t["alt_best_per_mtok_diffusion" if diffusion else "alt_best_per_mtok"],
        }
        best = rows.get(s["recommended"]) if s["recommended"] else None

        def speed(r: dict[str, Any]) -> str:
            if diffusion:
                return "" if r["relative_speed"] is None else f"×{f.number(r['relative_speed'], 2)}"
            return t["tok_s"].format(value=f.number(r["decode_tok_s_per_user"], 1))

        def per_unit(r: dict[str, Any]) -> str:
            value = r["usd_per_reference_hour"] if diffusion else r["usd_per_million_tokens_workload"]
            return "" if value is None else f.usd(value, cents=True)

        if best is None:
            closest = rows.get(s.get("closest") or "")
            if closest is not None and not diffusion:
                view["none_text"] = t["nothing_meets"].format(
                    users=self.users(workload["concurrency"]),
                    node=self.node_name(closest),
                    speed=speed(closest),
                    ttft=t["seconds"].format(value=f.number(closest["ttft_s"], 2)),
                )
            else:
                view["none_text"] = t["nothing_fits" if result.get("suggestions") else "nothing_at_all"].format(
                    model=result["model_name"], format=fmt_name
                )
            return view
        view.update(
            {
                "node": self.node_name(best),
                "node_id": best["node"],
                "price": f.usd(best["price_month_usd"]) + t["per_month"],
                "per_user": speed(best),
                "ttft": "" if diffusion else t["seconds"].format(value=f.number(best["ttft_s"], 2)),
                "per_mtok": per_unit(best),
                "per_mtok_out": ""
                if diffusion or best["usd_per_million_output_tokens"] is None
                else f.usd(best["usd_per_million_output_tokens"], cents=True),
                "within": "" if diffusion else t["within_text"].format(users=self.users(best["max_users_at_target"])),
                "band": "" if diffusion else self.band_text(best),
            }
        )
        for key in ("best_per_mtok", "fastest"):
            alt = rows.get(s[key]) if s[key] else None
            if alt is None or alt["node"] == best["node"]:
                view["alt_" + key] = ""
                continue
            view["alt_" + key] = t["alt_text_diffusion" if diffusion else "alt_text"].format(
                node=self.node_name(alt),
                price=f.usd(alt["price_month_usd"]),
                extra=f.usd(alt["price_month_usd"] - best["price_month_usd"]),
                per_mtok=per_unit(alt),
                per_user=speed(alt),
            )
        return view

    def target_text(self, workload: dict[str, Any]) -> str:
        """The target a workload sets, in the card's words."""
        t, f = self.t, self.fmt
        return t["answer_target"].format(
            speed=t["tok_s"].format(value=f.brief(workload["min_speed"])),
            ttft=t["seconds"].format(value=f.brief(workload["max_ttft"])),
        )

    def band_text(self, r: dict[str, Any]) -> str:
        """How far measured points were from a row's figures (empty without a band)."""
        if not r.get("speed_band") or not r.get("ttft_band"):
            return ""
        f = self.fmt
        (speed_lo, speed_hi), (ttft_lo, ttft_hi) = r["speed_band"], r["ttft_band"]
        text = self.t["band_text"].format(
            speed_lo=f.number(speed_lo, 2),
            speed_hi=f.number(speed_hi, 2),
            ttft_lo=f.number(ttft_lo, 2),
            ttft_hi=f.number(ttft_hi, 2),
        )
        return text if r["band_covered"] else text + self.t["band_outside"]

    def answer_html(self, result: dict[str, Any], fmt_id: str) -> str:
        """The result card: the build writes it whole; the widget patches its slots."""
        t = self.t
        view = self.answer_view(result, fmt_id)
        workload = result.get("workload") or {
            "context": self.catalog.assumptions.default_context,
            "concurrency": self.catalog.assumptions.default_concurrency,
        }
        node = result["summary"]["recommended"] or ""

        def slot(name: str, tag: str = "span", cls: str = "") -> str:
            text = view.get(name, "")
            c = f' class="{cls}"' if cls else ""
            return f'<{tag}{c} data-slot="{name}">{escape(text)}</{tag}>'

        def figure(name: str, label: str) -> str:
            hidden = "" if view.get(name) else " hidden"
            # Only the labels that change with the kind of model are slots.
            dt = f' data-slot="{name}_label"' if f"{name}_label" in view else ""
            return f'<div data-figure="{name}"{hidden}><dt{dt}>{escape(label)}</dt>{slot(name, "dd")}</div>'

        def alt(key: str) -> str:
            hidden = "" if view.get("alt_" + key) else " hidden"
            # The badge changes with the kind of model where the view has a label for it.
            label = view.get(f"alt_{key}_label", t["alt_" + key])
            badge = f' data-slot="alt_{key}_label"' if f"alt_{key}_label" in view else ""
            return (
                f'<li data-alt="{key}"{hidden}><span class="answer__badge"{badge}>{escape(label)}</span> '
                f"{slot('alt_' + key)}</li>"
            )

        found_hidden = "" if node else " hidden"
        none_hidden = " hidden" if node else ""
        attrs = (
            f'class="configurator__answer" data-answer data-state="answer" data-model="{escape(self._model)}" '
            f'data-format="{escape(fmt_id)}" data-context="{workload["context"]}" '
            f'data-concurrency="{workload["concurrency"]}" data-min-speed="{_raw(workload.get("min_speed"))}" '
            f'data-max-ttft="{_raw(workload.get("max_ttft"))}" data-node="{escape(node)}" aria-busy="false"'
            f' data-fastest="{escape(result["summary"]["fastest"] or "")}"'
            f' data-best-per-mtok="{escape(result["summary"]["best_per_mtok"] or "")}"'
        )
        return (
            f"<section {attrs}>"
            f'<progress class="answer__progress" data-progress max="1" value="0" aria-label="{escape(t["status_loading"])}" hidden></progress>'
            f"{slot('question', 'p', 'answer__question')}"
            '<p class="answer__pending" data-slot="pending"></p>'
            f'<div class="answer__found" data-slot-group="found"{found_hidden}>'
            f"{slot('title', 'p', 'answer__title')}"
            f'<p class="answer__node">{slot("node", "strong")} {slot("node_id", "code")}</p>'
            '<dl class="answer__figures">'
            f"{figure('price', t['fig_price'])}{figure('per_user', view['per_user_label'])}"
            f"{figure('ttft', t['fig_ttft'])}{figure('per_mtok', view['per_mtok_label'])}"
            f"{figure('per_mtok_out', t['fig_per_mtok_out'])}{figure('within', t['fig_within'])}"
            f"{figure('band', t['fig_band'])}"
            "</dl>"
            f'<ul class="answer__alts">{alt("best_per_mtok")}{alt("fastest")}</ul>'
            "</div>"
            f'<div class="answer__none" data-slot-group="none"{none_hidden}>{slot("none_text", "p")}'
            f'<div class="answer__suggestions" data-suggestions>{self.suggestions_html(result)}</div></div>'
            '<p class="md-visually-hidden" data-announce aria-live="polite"></p>'
            "</section>"
        )

    def suggestions_html(self, result: dict[str, Any]) -> str:
        t, f = self.t, self.fmt
        out = []
        for sug in result.get("suggestions") or []:
            node = self.catalog.node(sug["node"])
            name = t["node_name"].format(count=node.count, gpu=self.catalog.gpus[node.gpu].name)
            price = f.usd(sug["price_month_usd"])
            if sug.get("concurrency"):
                text = t["suggest_users"].format(users=self.users(sug["concurrency"]), node=name, price=price)
            elif sug.get("min_speed") or sug.get("max_ttft"):
                workload = result.get("workload") or {}
                looser = {
                    "min_speed": sug.get("min_speed") or workload.get("min_speed"),
                    "max_ttft": sug.get("max_ttft") or workload.get("max_ttft"),
                }
                text = t["suggest_target"].format(
                    speed=t["tok_s"].format(value=f.brief(looser["min_speed"])),
                    ttft=t["seconds"].format(value=f.brief(looser["max_ttft"])),
                    node=name,
                    price=price,
                )
            elif sug["context"] is None:
                text = t["suggest_format"].format(
                    format=self.catalog.formats[sug.get("format") or ""].name, node=name, price=price
                )
            else:
                text = t["suggest_context"].format(context=f.number(sug["context"], 0), node=name, price=price)
            values = " ".join(
                f'data-{key.replace("_", "-")}="{escape(_raw(sug.get(key)))}"'
                for key in ("format", "context", "concurrency", "min_speed", "max_ttft")
            )
            out.append(
                f'<button type="button" class="md-button" data-suggestion{NEEDS_JS} {values} '
                f'data-node="{escape(sug["node"])}">{escape(text)}</button>'
            )
        return "".join(out)

    def chart_html(self, result: dict[str, Any], compact: bool = False) -> str:
        """The chart of the build's answer, drawn by the browser's own module (macros/chart_svg.py);
        the compact widget has none."""
        rows = [(self.node_name(r), r) for _, r in sorted_rows(result["rows"])]
        points = [] if compact else chart_points(rows, result["kind"])
        # The question the chart answers, above it (the widget rewrites it with each answer).
        question = "" if compact else self.answer_view(result, self._fmt)["question"]
        caption = (
            "" if compact else f'<p class="configurator__chart-question" data-chart-question>{escape(question)}</p>'
        )
        if not points:
            return caption + '<figure class="configurator__chart" data-chart hidden></figure>'
        highlight = chart_highlight(result["summary"], self.t, result["kind"] == "diffusion")
        svg = chart_svg(points, self.locale, self.t, result["kind"] == "diffusion", highlight)
        return f'{caption}<figure class="configurator__chart" data-chart data-width="{BUILD_WIDTH}">{svg}</figure>'

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

    def table_html(self, result: dict[str, Any]) -> str:
        t = self.t
        kind = result["kind"]
        heads = []
        for column in TABLE_COLUMNS:
            col = column.id
            label = self.column_label(col, kind)
            cls = ' class="num"' if is_figure(column) else ""
            sort = ' aria-sort="ascending"' if col == "price_month" else ""
            help_text = self.column_help(col, kind)
            title = f' title="{escape(help_text)}"' if help_text else ""
            heads.append(
                f'<th scope="col"{cls} data-col="{col}"{sort}{title}><button type="button" data-sort="{col}" '
                f'aria-label="{escape(t["sort_by"].format(column=label))}" data-needs-js disabled>'
                f"{escape(label)}</button></th>"
            )
        body = "\n".join(self.row_html(r, kind, i) for i, r in sorted_rows(result["rows"]))
        caption = escape(t["caption"].format(model=result["model_name"]))
        return (
            f'<div class="configurator__scroll" tabindex="0" role="region" aria-label="{caption}">'
            f'<table class="configurator__table" data-kind="{kind}" aria-busy="false"><caption>{caption}</caption>'
            f"<thead><tr>{''.join(heads)}</tr></thead><tbody>\n{body}\n</tbody></table></div>"
        )

    def column_help(self, col: str, kind: str) -> str:
        """A column's help (its header's title) for a kind of model; none where an image model's
        column has no help of its own. Mirrors columnHelp in configurator/table.js."""
        t = self.t
        if kind == "diffusion":
            return t.get(f"col_help_{col}_diffusion", "")
        return t.get(f"col_help_{col}", "")

    def column_label(self, col: str, kind: str) -> str:
        t = self.t
        return t[f"col_{col}_diffusion"] if kind == "diffusion" and f"col_{col}_diffusion" in t else t[f"col_{col}"]

    def row_html(self, r: dict[str, Any], kind: str, order: int = 0) -> str:
        t, f = self.t, self.fmt
        if kind == "diffusion":
            speed = r["relative_speed"]
            numbers = {
                "price_month": f.usd(r["price_month_usd"]),
                "per_mtok": ""
                if r["usd_per_reference_hour"] is None
                else f.usd(r["usd_per_reference_hour"], cents=True),
                "per_user": "" if speed is None else f"×{f.number(speed, 2)}",
                "ttft": "" if r["verdict"] == "none" else f.number(r["count"], 0),
                "total": ""
                if r["verdict"] == "none"
                else t["text_encoders_cpu" if r["offload_text_encoders"] else "text_encoders_card"],
                "best_per_mtok": "",
                "max_users": "",
            }
            cards = 1 if r["verdict"] != "none" else 0
            verdict = t[r["verdict"]]
            raw_tok = r["relative_speed"]
        else:
            fits = r["verdict"] != "none"
            best = r["best_usd_per_million_output_tokens"]
            numbers = {
                "price_month": f.usd(r["price_month_usd"]),
                "per_mtok": f.usd(r["usd_per_million_tokens_workload"], cents=True) if fits else "",
                "per_user": f.number(r["decode_tok_s_per_user"], 1) if fits else "",
                "ttft": f.number(r["ttft_s"], 2) if fits else "",
                "total": f.number(r["decode_tok_s_total"], 1) if fits else "",
                "best_per_mtok": t["best_at"].format(
                    price=f.usd(best, cents=True), users=self.users(r["best_concurrency"])
                )
                if best is not None
                else "",
                "max_users": f.number(r["max_users_at_target"], 0) if fits else "",
            }
            cards = r["cards_used"]
            verdict = t[r["verdict"]]
            if r["verdict"] == "split":
                if r.get("data_parallel", 1) > 1:  # data-parallel attention: ranks x their tensor parallel
                    verdict += " · " + t["layout_ranks"].format(
                        cards=cards, dp=r["data_parallel"], tp=r["tensor_parallel"]
                    )
                else:
                    verdict += " · " + t["layout"].format(
                        cards=cards, tp=r["tensor_parallel"], pp=r["pipeline_parallel"]
                    )
            if r.get("recommended"):
                verdict += " · " + t["mark_recommended"]
            elif fits and not r["meets_target"]:
                verdict += " · " + t["mark_missed"]
            raw_tok = r["decode_tok_s_per_user"]
        name = self.node_name(r)
        why = f"cfg-why-{r['node']}"
        cells = {
            "node": f'<th scope="row"><span class="node__name" data-text>{escape(name)}</span> '
            f"<code>{escape(r['node'])}</code></th>",
            # The reason unfolds under the verdict: the button's aria-expanded shows or hides it
            # (in CSS, once the widget runs; without JavaScript every reason shows).
            "verdict": f'<td><span class="verdict__text" data-text>{escape(verdict)}</span> '
            f'<button type="button" class="verdict__why" data-why data-needs-js disabled aria-expanded="false" '
            f'aria-controls="{escape(why)}" aria-label="{escape(t["why_label"].format(node=name))}">{escape(t["why"])}</button>'
            f'<span class="verdict__reason" id="{escape(why)}">{escape(r["reason_text"])}</span></td>',
            # data-label: the column's name, which each cell shows when the row is a card (phones).
            "memory": f'<td data-label="{escape(self.column_label("memory", kind))}">{self.bar_html(r, kind)}</td>',
            **{
                col: f'<td class="num" data-label="{escape(self.column_label(col, kind))}">{escape(text)}</td>'
                for col, text in numbers.items()
            },
        }
        sort_values = " ".join(
            f'data-v-{c.id.replace("_", "-")}="{_raw(sort_value(r, c, kind))}"'
            for c in TABLE_COLUMNS
            if c.sort == "number"
        )
        attrs = (
            f'data-node="{escape(r["node"])}" data-verdict="{r["verdict"]}" data-cards="{cards}" '
            f'data-tok-s="{_raw(raw_tok)}" data-price-month="{_raw(r["price_month_usd"])}" '
            f'data-gpu="{escape(r["gpu"])}" data-link="{r["link_class"]}" data-target="{target_look(r)}" '
            f'data-shown="{shown_look(r["verdict"])}" '
            f'data-order="{order}" {sort_values}'
        )
        return f"<tr {attrs}>{''.join(cells[col] for col in COLUMN_IDS)}</tr>"

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
        gb = t["unit_gb"]  # 10^9 bytes, in the locale's word
        label = " · ".join(f"{t['bar_' + name]} {f.number(value, 1)}\u00a0{gb}" for name, value in parts)
        text = f"{f.number(used, 1)} / {f.number(capacity, 1)}\u00a0{gb}"  # a figure and its unit never part
        return (
            f'<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="{escape(label)}">'
            f"<title>{escape(label)}</title>{''.join(rects)}</svg>"
            f'<span class="bar__text">{escape(text)}</span>'
        )
