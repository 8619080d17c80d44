"""The configurator's chart in the built page: what the browser's module draws from the page itself.

The test reads the built page as the widget's script would (the table's rows and their data,
the card's nodes, the words), runs chart.js under Node on them, and holds the build's SVG to it.
"""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

from macros.render.node_render import BUILD_WIDTH

from .conftest import ROOT
from .node_script import run_module
from .test_site import LOCALES, page_file

MODULES = ROOT / "overrides" / "assets" / "javascripts" / "configurator"
DRAW = """
import { chartSvg } from %s;
import { formatters } from %s;
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { points, width, locale, t, diffusion, highlight } = JSON.parse(input);
process.stdout.write(chartSvg(points, { width, t, f: formatters(locale), diffusion, highlight }));
"""


def attributes(tag: str) -> dict[str, str]:
    return {k: unescape(v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', tag)}


def drawn_by_the_module(html: str, locale: str) -> str:
    """What the widget's drawChart draws from this page at the build's width."""
    t = json.loads(re.search(r"<script type=\"application/json\" data-labels>(.*?)</script>", html, re.S).group(1))
    table = re.search(r'<table class="configurator__table" data-kind="(\w+)".*?</table>', html, re.S)
    points = []
    for tag, name in re.findall(
        r'(<tr data-node[^>]*>)<th scope="row"[^>]*><span class="node__name"[^>]*>([^<]*)</span>', table.group(0)
    ):
        row = attributes(tag)
        if row["data-verdict"] != "none" and row["data-tok-s"] != "" and row["data-v-per-mtok"] != "":
            points.append(
                {
                    "node": row["data-node"],
                    "name": unescape(name),
                    "x": float(row["data-tok-s"]),
                    "y": float(row["data-v-per-mtok"]),
                }
            )
    assert points, "no fitting row read from the page's table"
    card = attributes(re.search(r"<section [^>]*data-answer[^>]*>", html).group(0))
    highlight = {}
    for key, label in (
        ("data-fastest", "alt_fastest"),
        ("data-best-per-mtok", "alt_best_per_mtok_diffusion" if table.group(1) == "diffusion" else "alt_best_per_mtok"),
        ("data-node", "chart_recommended"),
    ):
        if card.get(key):
            highlight[card[key]] = t[label]
    request = {
        "points": points,
        "width": BUILD_WIDTH,
        "locale": locale,
        "t": t,
        "diffusion": table.group(1) == "diffusion",
        "highlight": highlight,
    }
    urls = tuple(json.dumps((MODULES / name).as_uri()) for name in ("chart.js", "format.js"))
    return run_module(DRAW % urls, request)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_builds_chart_is_what_the_browsers_module_draws_for_the_same_answer(site, locale, catalog):
    html = page_file(site, locale, "configurator").read_text(encoding="utf-8")
    figure = re.search(r"<figure class=\"configurator__chart\" data-chart[^>]*>(.*?)</figure>", html, re.S)
    assert figure and figure.group(1).startswith("<svg"), "no chart in the built page"
    assert "hidden" not in figure.group(0).split(">")[0]
    drawn = drawn_by_the_module(html, locale)
    assert figure.group(1) == drawn
    # Labelled, one point per fitting node, the recommended one marked and named.
    card = attributes(re.search(r"<section [^>]*data-answer[^>]*>", html).group(0))
    fits = re.findall(r'<tr data-node="[^"]*" data-verdict="(?:single|split)"', html)
    assert drawn.count("<circle ") == len(fits) > 0
    name = catalog.gpus[catalog.node(card["data-node"]).gpu].name
    marked = re.search(rf'<circle [^>]*class="point point--marked" data-node="{re.escape(card["data-node"])}"', drawn)
    assert marked and name in drawn
    t = json.loads(re.search(r"<script type=\"application/json\" data-labels>(.*?)</script>", html, re.S).group(1))
    assert f"({t['chart_recommended']})</text>" in drawn and t["chart_x"] in drawn and t["chart_y"] in drawn
