"""The configurator's chart, drawn at build time by the module that draws it in the browser.

`overrides/assets/javascripts/configurator/chart.js` is run under Node (which the build already
needs for npm) with the build's answer, so the page holds the chart before any script runs and
without JavaScript; the widget redraws it with the same module at the width it is shown at.
One Node process per configurator page (the compact copies in guides have no chart), cached by
its input, so a rebuild of unchanged pages starts none.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

JAVASCRIPTS = Path(__file__).resolve().parent.parent / "overrides" / "assets" / "javascripts" / "configurator"
BUILD_WIDTH = 640  # the width the build draws at (chart.js's own default): the widget redraws at its box's
# Reads {points, opts, locale} on stdin, writes the SVG: the browser's module with the browser's
# number formatting (Intl.NumberFormat), nothing else.
_SCRIPT = """
import { chartSvg } from %s;
import { formatters } from %s;
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { points, opts, locale } = JSON.parse(input);
process.stdout.write(chartSvg(points, { ...opts, f: formatters(locale) }));
"""


def chart_points(rows: list[tuple[str, dict[str, Any]]], kind: str) -> list[dict[str, Any]]:
    """The points the widget reads from the table (drawChart): (name, row) in the table's order,
    the nodes that fit and have a speed and a price per unit of work."""
    speed, price = (
        ("relative_speed", "usd_per_reference_hour")
        if kind == "diffusion"
        else ("decode_tok_s_per_user", "usd_per_million_output_tokens")
    )
    return [
        {"node": r["node"], "name": name, "x": r[speed], "y": r[price]}
        for name, r in rows
        if r["verdict"] != "none" and r.get(speed) is not None and r.get(price) is not None
    ]


def chart_highlight(summary: dict[str, Any], t: dict[str, str]) -> dict[str, str]:
    """The card's nodes, labelled as the widget labels them (the recommended one wins)."""
    out: dict[str, str] = {}
    for key, label in (
        ("fastest", "alt_fastest"),
        ("best_per_mtok", "alt_best_per_mtok"),
        ("recommended", "chart_recommended"),
    ):
        if summary.get(key):
            out[summary[key]] = t[label]
    return out


def chart_svg(
    points: list[dict[str, Any]], locale: str, t: dict[str, str], diffusion: bool, highlight: dict[str, str]
) -> str:
    """The SVG chart.js draws for these points at BUILD_WIDTH, in `locale`."""
    words = {k: v for k, v in t.items() if k.startswith("chart_")}
    opts = {"width": BUILD_WIDTH, "t": words, "diffusion": diffusion, "highlight": highlight}
    return _draw(json.dumps({"points": points, "opts": opts, "locale": locale}, ensure_ascii=False, allow_nan=False))


@cache
def _draw(request: str) -> str:
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("Node.js is needed to draw the configurator's chart at build time (apt-get install nodejs)")
    urls = [json.dumps((JAVASCRIPTS / name).as_uri()) for name in ("chart.js", "format.js")]
    done = subprocess.run(
        [node, "--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", "--input-type=module", "-e", _SCRIPT % tuple(urls)],
        input=request,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        timeout=60,
    )
    if done.returncode != 0 or not done.stdout.startswith("<svg"):
        raise RuntimeError(f"drawing the configurator's chart under Node failed: {done.stderr.strip()[-500:]}")
    return done.stdout
