"""The configurator's chart, drawn at build time by the module that draws it in the browser.

`overrides/assets/javascripts/configurator/chart.js` is run under Node (which the build already
needs for npm) with the build's answer, so the page holds the chart before any script runs and
without JavaScript; the widget redraws it with the same module at the width it is shown at.
One Node process serves the whole build (every locale, and every rebuild of `mkdocs serve`),
one request a line; it is started as the macros load, so that it starts while the pages are
being computed, and started afresh when chart.js or format.js change. Each drawing is kept by
its input, so a rebuild of unchanged pages asks for none.
"""

from __future__ import annotations

import contextlib
import json
import select
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from macros.file_stamps import stamps

JAVASCRIPTS = Path(__file__).resolve().parent.parent / "overrides" / "assets" / "javascripts" / "configurator"
BUILD_WIDTH = 640  # the width the build draws at (chart.js's own default): the widget redraws at its box's
# Reads one {points, opts, locale} a line on stdin and writes one line of JSON for each, {svg}
# or {error}: the browser's module with the browser's number formatting (Intl.NumberFormat).
_SCRIPT = """
import { createInterface } from "node:readline";
import { chartSvg } from %s;
import { formatters } from %s;
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let out;
  try {
    const { points, opts, locale } = JSON.parse(line);
    out = { svg: chartSvg(points, { ...opts, f: formatters(locale) }) };
  } catch (error) {
    out = { error: String((error && error.stack) || error) };
  }
  process.stdout.write(JSON.stringify(out) + "\\n");
}
"""
MODULES = ("chart.js", "format.js")


def chart_points(rows: list[tuple[str, dict[str, Any]]], kind: str) -> list[dict[str, Any]]:
    """The points the widget reads from the table (drawChart): (name, row) in the table's order,
    the nodes that fit and have a speed and a price per unit of work."""
    speed, price = (
        ("relative_speed", "usd_per_reference_hour")
        if kind == "diffusion"
        else ("decode_tok_s_per_user", "usd_per_million_tokens_workload")
    )
    return [
        {"node": r["node"], "name": name, "x": r[speed], "y": r[price]}
        for name, r in rows
        if r["verdict"] != "none" and r.get(speed) is not None and r.get(price) is not None
    ]


def chart_highlight(summary: dict[str, Any], t: dict[str, str], diffusion: bool = False) -> dict[str, str]:
    """The card's nodes, labelled as the widget labels them (the recommended one wins); an image or
    video model's best price is per reference-card hour, not per million tokens."""
    out: dict[str, str] = {}
    for key, label in (
        ("fastest", "alt_fastest"),
        ("best_per_mtok", "alt_best_per_mtok_diffusion" if diffusion else "alt_best_per_mtok"),
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


def modules_read() -> tuple[tuple[str, int, int], ...]:
    """The time and size of the modules Node draws with: a chart drawn before they changed is stale."""
    return stamps(JAVASCRIPTS / name for name in MODULES)


class _Drawer:
    """The Node process that draws, for as long as the modules it imported are unchanged."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None
        self.modules: tuple[tuple[str, int, int], ...] = ()
        self.drawn: dict[str, str] = {}
        self.errors: Any = None  # Node's stderr

    def start(self) -> None:
        """Start Node (when it is not running, or the modules changed), without waiting for it."""
        modules = modules_read()
        if modules != self.modules:
            self.stop()
            self.drawn.clear()
            self.modules = modules
        if self.process is not None and self.process.poll() is None:
            return
        node = shutil.which("node")
        if node is None:
            raise RuntimeError(
                "Node.js is needed to draw the configurator's chart at build time (apt-get install nodejs)"
            )
        urls = [json.dumps((JAVASCRIPTS / name).as_uri()) for name in MODULES]
        # A file, not a pipe nobody reads until it fails; open for the life of the process.
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115
        self.process = subprocess.Popen(
            [
                node,
                "--input-type=module",
                "-e",
                _SCRIPT % tuple(urls),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            text=True,
            encoding="utf-8",
        )

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            for stream in (self.process.stdin, self.process.stdout, self.errors):
                if stream is not None:
                    stream.close()
            self.process = None

    def _tail(self) -> str:
        """What Node printed on stderr before it exited."""
        assert self.process is not None
        self.errors.seek(0)
        return self.errors.read().decode("utf-8", "replace").strip() or f"node exited {self.process.returncode}"

    def draw(self, request: str) -> str:
        self.start()
        if request not in self.drawn:
            self.drawn[request] = self._ask(request)
        return self.drawn[request]

    def _ask(self, request: str) -> str:
        process = self.process
        assert process is not None and process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(request + "\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], TIMEOUT_S)
            line = process.stdout.readline() if ready else ""
        except (BrokenPipeError, OSError):
            line = ""
        answer = json.loads(line) if line.startswith("{") else None
        if answer is None or "svg" not in answer or not answer["svg"].startswith("<svg"):
            if answer is None:  # no line: Node died, or hangs
                what = f"no answer within {TIMEOUT_S} s" if process.poll() is None else self._tail()
                self.stop()
            else:
                what = str(answer.get("error", answer))
            raise RuntimeError(f"drawing the configurator's chart under Node failed: {what[-500:]}")
        return answer["svg"]


TIMEOUT_S = 60
_drawer = _Drawer()


def start() -> None:
    """Start Node now, so that it is ready when the first chart is drawn (nothing if Node is missing:
    the chart's drawing then says so)."""
    with contextlib.suppress(RuntimeError, OSError):
        _drawer.start()


def _draw(request: str) -> str:
    return _drawer.draw(request)
