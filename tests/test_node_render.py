"""The configurator's markup in the build is the widget's: what the page holds before any script
runs is what the widget's own functions write for the same answer, without a browser.

The build asks the widget's modules under Node (macros/render/node_render.py) for the card, the table,
the suggestions and the chart. These tests read the built widget back and hold it to what the
widget does once it runs, computed apart in a Node of their own: its rows as `rowHtml` writes
them when the nodes change, in the order `sortRows` leaves them (compareRows on each row's
data-v-price-month), and its card as `answerView` and `suggestionViews` patch it.
"""

from __future__ import annotations

import json
import re
import shutil
from html import unescape
from typing import Any

import pytest

from macros.build.engine_cache import raw_answer
from macros.fitengine.api import TABLE_COLUMNS, with_reason_text
from macros.messages import engine_words
from macros.render.configurator_html import ConfiguratorHtml

from .conftest import ROOT
from .node_script import run_module

MODULES = ROOT / "overrides" / "assets" / "javascripts" / "configurator"
# What the widget does with an answer once it runs, for the same answer and words.
WIDGET = """
import { answerView, suggestionViews } from %(answer)s;
import { formatters } from %(format)s;
import { compareRows, sortValue } from %(sort)s;
import { rowData, rowHtml } from %(table)s;
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { result, locale, t, gpuNames, formatNames, columns, request } = JSON.parse(input);
const f = formatters(locale);
const kind = result.kind;
const rows = result.rows
  .map((r, i) => ({
    html: rowHtml(r, kind, i, t, f, gpuNames, columns),
    verdict: r.verdict,
    order: i,
    value: sortValue(rowData(r, kind, i, columns), "price_month"),
  }))
  .sort((a, b) => compareRows(a, b, 1, locale));
const ctx = { t, f, gpuNames, formatNames, formatName: formatNames[request.format], workload: request };
process.stdout.write(JSON.stringify({
  rows: rows.map((r) => r.html),
  view: answerView(result, ctx),
  suggestions: suggestionViews(result, ctx),
}));
"""
CASES = [
    ("fr", "llama-3.3-70b", "bf16"),  # the configurator page's own answer
    ("en", "llama-3.3-70b", "bf16"),
    ("fr", "sdxl", "fp8"),  # an image model: other columns, other bars, no target
    ("en", "deepseek-v3", "bf16"),  # nothing fits: the engine's changes as buttons
]


def widget_does(html: ConfiguratorHtml, result: dict[str, Any], fmt: str) -> dict[str, Any]:
    catalog, a = html.catalog, html.catalog.assumptions
    urls = {name: json.dumps((MODULES / f"{name}.js").as_uri()) for name in ("answer", "format", "sort", "table")}
    payload = {
        "result": result,
        "locale": html.locale,
        "t": html.t,
        "gpuNames": {g.id: g.name for g in catalog.gpus.values()},
        "formatNames": {f.id: f.name for f in catalog.formats.values()},
        "columns": [c.to_dict() for c in TABLE_COLUMNS],
        "request": {"format": fmt, "context": a.default_context, "concurrency": a.default_concurrency},
    }
    return json.loads(run_module(WIDGET % urls, payload))


def the_answer(html: ConfiguratorHtml, model: str, fmt: str) -> dict[str, Any]:
    """The answer the build shows, its reasons in the page's words."""
    raw = raw_answer(html.catalog, {"model": model, "format": fmt})
    return with_reason_text(raw, engine_words(html.locale), html.number)


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is needed to render the configurator")
@pytest.mark.parametrize("locale,model,fmt", CASES)
def test_the_builds_table_and_card_are_what_the_widget_writes_for_the_same_answer(catalog, locale, model, fmt):
    html = ConfiguratorHtml(catalog, locale)
    page = html.render("../", model, fmt)
    result = the_answer(html, model, fmt)
    widget = widget_does(html, result, fmt)

    # The table: each row as the widget writes it, in its order; the build's "Why?" buttons wait
    # for the script (disabled), the widget's are live.
    built = re.findall(r"<tr data-node=.*?</tr>", page)
    assert len(built) == len(catalog.nodes) == len(widget["rows"])
    assert [r.replace(" data-needs-js disabled ", " data-needs-js ") for r in built] == widget["rows"]

    # The card: every slot holds the text the widget patches it with (empty hides its line).
    card = re.search(r"<section [^>]*data-answer.*?</section>", page, re.S).group(0)
    slots = dict(re.findall(r'data-slot="(\w+)">([^<]*)<', card))
    view = widget["view"]
    for name, text in slots.items():
        assert unescape(text) == view.get(name, ""), name
    assert {"question", "title", "none_text"} <= set(slots)
    for name, hidden in re.findall(r'<div data-figure="(\w+)"( hidden)?>', card):
        assert bool(hidden) == (not view.get(name)), name
    recommended = result["summary"]["recommended"] or ""
    assert f'data-node="{recommended}"' in card.split(">")[0]
    # The suggestions: one button each, with the field values it sets and its words.
    buttons = re.findall(r"<button [^>]*data-suggestion[^>]*>[^<]*</button>", card)
    assert len(buttons) == len(widget["suggestions"]) == len(result.get("suggestions") or [])
    for button, want in zip(buttons, widget["suggestions"], strict=True):
        attrs = dict(re.findall(r'data-([\w-]+)="([^"]*)"', button))
        for key in ("format", "context", "concurrency", "min_speed", "max_ttft", "node"):
            assert unescape(attrs[key.replace("_", "-")]) == want[key], key
        assert unescape(button.split(">")[1].split("<")[0]) == want["text"]
        assert " disabled " in button  # the script enables it


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is needed to render the configurator")
def test_french_figures_keep_french_typography(catalog):
    # CLDR's French: digits grouped by a narrow no-break space, a decimal comma, the currency
    # after the figure and a no-break space; a figure and its unit never part.
    html = ConfiguratorHtml(catalog, "fr")
    page = html.render("../", "llama-3.3-70b", "bf16")
    result = the_answer(html, "llama-3.3-70b", "bf16")
    best = next(r for r in result["rows"] if r["node"] == result["summary"]["recommended"])
    price = round(best["price_month_usd"])
    assert price >= 1000  # else no grouping shows
    french = f"{price:,}".replace(",", "\u202f") + "\u00a0$US"
    row = re.search(rf'<tr data-node="{re.escape(best["node"])}".*?</tr>', page).group(0)
    assert f">{french}</td>" in row
    assert re.search(r"\d,\d\u00a0Go</span>", row)  # the memory bar's text: GB in French
    card = re.search(r"<section [^>]*data-answer.*?</section>", page, re.S).group(0)
    assert f'data-slot="price">{french}' in card
    # No figure anywhere in the widget parted from its currency or unit, nor grouped otherwise.
    assert not re.search(r"\d ?(\$US|Go|tok/s|ms)\b", page)
    assert not re.search(r"\d[ ,]\d{3}\u00a0\$US", page)


# --- the Node process (macros/render/node_render.py) ------------------------------------------------


def _request(catalog, locale: str) -> str:
    html = ConfiguratorHtml(catalog, locale)
    ctx = html.markup_context("llama-3.1-8b", "bf16")
    result = the_answer(html, "llama-3.1-8b", "bf16")
    return json.dumps({"op": "widget", "locale": locale, "result": result, "ctx": ctx})


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is needed to render the configurator")
def test_one_node_process_renders_every_widget_and_restarts_when_a_module_changes(catalog, tmp_path, monkeypatch):
    from macros.render import node_render

    # A copy of the modules and of the script, laid out as in the project.
    shutil.copytree(MODULES, tmp_path / "overrides" / "assets" / "javascripts" / "configurator")
    (tmp_path / "macros" / "render").mkdir(parents=True)
    shutil.copy(node_render.SCRIPT, tmp_path / "macros" / "render" / "node_render.mjs")
    shutil.copy(node_render.MARKUP, tmp_path / "macros" / "render" / "markup.mjs")
    monkeypatch.setattr(node_render, "JAVASCRIPTS", tmp_path / "overrides" / "assets" / "javascripts" / "configurator")
    monkeypatch.setattr(node_render, "SCRIPT", tmp_path / "macros" / "render" / "node_render.mjs")
    monkeypatch.setattr(node_render, "MARKUP", tmp_path / "macros" / "render" / "markup.mjs")
    renderer = node_render._Renderer()
    try:
        fr = renderer.ask(_request(catalog, "fr"))
        process = renderer.process
        en = renderer.ask(_request(catalog, "en"))
        assert renderer.process is process  # the second widget asked the same Node
        assert fr["card"] != en["card"] and "$US" in fr["table"] and "$US" not in en["table"]
        # An edited module (as under `mkdocs serve`) is read by a new Node, and nothing rendered is kept.
        table = node_render.JAVASCRIPTS / "table.js"
        table.write_text(table.read_text().replace('`<table class="configurator__table"', '`<table data-edited=""', 1))
        again = renderer.ask(_request(catalog, "fr"))
        assert renderer.process is not process and process.poll() is not None
        assert 'data-edited=""' in again["table"] and again["card"] == fr["card"]
    finally:
        renderer.stop()


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is needed to render the configurator")
def test_a_failed_render_says_what_node_said_and_the_process_goes_on(catalog):
    from macros.render import node_render

    renderer = node_render._Renderer()
    try:
        with pytest.raises(RuntimeError, match=r"rendering 'widget' under Node .* failed: TypeError"):
            renderer.ask(json.dumps({"op": "widget", "locale": "fr", "result": {"rows": 5}, "ctx": {}}))
        with pytest.raises(RuntimeError, match=r"rendering 'draw' .* \"draw\" is none of widget"):
            renderer.ask(json.dumps({"op": "draw"}))
        assert renderer.ask(_request(catalog, "fr"))["table"].startswith('<div class="configurator__scroll"')
    finally:
        renderer.stop()
