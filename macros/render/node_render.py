"""The browser's own modules, run under Node at build time (`macros/render/node_render.mjs`).

The configurator's answer (its card, table, memory bars, suggestions, chart, summary, intro) is
written by one renderer, the widget's ES modules in `overrides/assets/javascripts/configurator/`:
the build asks them, under Node (which the build already needs for npm), for the page's first
markup, so the page holds it before any script runs and without JavaScript, with the numbers
formatted as the widget formats them (Intl.NumberFormat). One Node process serves the whole
build (every locale, and every rebuild of `mkdocs serve`), one request a line; it is started as
the macros load, so that it starts while the pages are being computed, and started afresh when
one of the modules changes. Each answer is kept by its request, so a rebuild of unchanged pages
asks for none.

The interface: `render(op, payload)` sends `{"op": op, **payload}` and returns what the op
returned (`node_render.mjs` lists the ops); `widget_markup` is the configurator's op.
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

HERE = Path(__file__).resolve().parent
JAVASCRIPTS = HERE.parent.parent / "overrides" / "assets" / "javascripts" / "configurator"
SCRIPT = HERE / "node_render.mjs"
MARKUP = HERE / "markup.mjs"  # the pieces put together from the widget's modules
BUILD_WIDTH = 640  # the width the build draws the chart at (chart.js's own default): the widget redraws at its box's
WIDGET_PARTS = ("intro", "summary", "target_source", "noscript", "card", "table", "fold", "chart_question", "chart")
TIMEOUT_S = 60


def modules_read() -> tuple[tuple[str, int, int], ...]:
    """The time and size of the script and the modules Node renders with: markup rendered before
    they changed is stale."""
    return stamps([SCRIPT, MARKUP, *sorted(JAVASCRIPTS.glob("*.js"))])


class _Renderer:
    """The Node process that renders, for as long as the modules it imported are unchanged."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None
        self.modules: tuple[tuple[str, int, int], ...] = ()
        self.done: dict[str, Any] = {}
        self.errors: Any = None  # Node's stderr

    def start(self) -> None:
        """Start Node (when it is not running, or the modules changed), without waiting for it."""
        modules = modules_read()
        if modules != self.modules:
            self.stop()
            self.done.clear()
            self.modules = modules
        if self.process is not None and self.process.poll() is None:
            return
        node = shutil.which("node")
        if node is None:
            raise RuntimeError(
                "Node.js is needed to write the configurator's markup at build time (apt-get install nodejs)"
            )
        # A file, not a pipe nobody reads until it fails; open for the life of the process.
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115
        self.process = subprocess.Popen(
            [node, "--no-warnings", str(SCRIPT)],
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

    def ask(self, request: str) -> Any:
        """What Node answered to this request line (kept: asked once while the modules stay)."""
        self.start()
        if request not in self.done:
            self.done[request] = self._ask(request)
        return self.done[request]

    def _ask(self, request: str) -> Any:
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
        if answer is None or "ok" not in answer:
            if answer is None:  # no line: Node died, or hangs
                what = f"no answer within {TIMEOUT_S} s" if process.poll() is None else self._tail()
                self.stop()
            else:
                what = str(answer.get("error", answer))
            op = json.loads(request).get("op")
            raise RuntimeError(f"rendering {op!r} under Node (macros/render/node_render.mjs) failed: {what[-500:]}")
        return answer["ok"]


_renderer = _Renderer()


def start() -> None:
    """Start Node now, so that it is ready when the first page asks (nothing if Node is missing:
    the first render then says so)."""
    with contextlib.suppress(RuntimeError, OSError):
        _renderer.start()


def render(op: str, payload: dict[str, Any]) -> Any:
    """What the op `op` of node_render.mjs returns for `payload` (its keys besides `op`)."""
    request = json.dumps({"op": op, **payload}, ensure_ascii=False, allow_nan=False, sort_keys=True)
    return _renderer.ask(request)


def widget_markup(locale: str, result: dict[str, Any], ctx: dict[str, Any]) -> dict[str, str]:
    """The configurator's pieces for one answer (macros/render/markup.mjs, widgetMarkup), each HTML:
    WIDGET_PARTS. `result` is the engine's answer with its reasons' texts; `ctx` holds the
    words (`t`), the names (`formatNames`, `gpuNames`), the ids (`model`, `format`), the
    `columns`, `defaults`, `compact` and the chart's `width`."""
    parts = render("widget", {"locale": locale, "result": result, "ctx": ctx})
    if not isinstance(parts, dict) or set(parts) != set(WIDGET_PARTS):
        raise RuntimeError(f"node_render.mjs's widget answered {sorted(parts) if isinstance(parts, dict) else parts!r}")
    return parts
