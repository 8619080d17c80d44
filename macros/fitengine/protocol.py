"""What crosses between the engine, the configurator's page and its worker, declared once.

The engine reads its request keys here (`api.REQUEST_KEYS`); the browser reads the same
declaration as an ES module, `overrides/assets/javascripts/configurator/protocol.js`, which
`javascript()` writes (a test holds the committed file to it). The worker's messages are listed
by direction, each type with the fields it may carry; a sender uses no other type or field and
a receiver handles every type (tests/js/protocol.test.mjs).
"""

from __future__ import annotations

import json
from typing import Any

from .fit import MAX_CONCURRENCY, MAX_TOKENS

# The request's keys, in groups: the model, its format, the workload's whole numbers, the
# reader's target, and the choices that default when absent (runtime, KV cache, a forced layout).
MODEL_KEYS = ("model", "config", "totals")
WHOLE_KEYS = ("context", "concurrency")
TARGET_KEYS = ("min_speed", "max_ttft")
LAYOUT_KEYS = ("tensor_parallel", "pipeline_parallel", "expert_parallel", "data_parallel")
OPTION_KEYS = ("runtime", "kv_cache", *LAYOUT_KEYS)
# What the configurator's widget sends; the command line and the guides' macros may also name
# the custom model, the request's lengths, a memory share or one node.
WIDGET_KEYS = (*MODEL_KEYS, "format", *WHOLE_KEYS, *TARGET_KEYS, *OPTION_KEYS)
REQUEST_KEYS = (*WIDGET_KEYS, "name", "input", "output", "memory_utilization", "node")
# A model given by its totals (`totals`: parameters, in units, and its attention's shape).
TOTALS_FIELDS = ("total", "active", "layers", "kv_heads", "head_dim")

# What a custom model (a pasted config.json, or one carried by a link) may hold: a real
# config.json is a few kilobytes, three or four levels deep. The widget checks the same bounds
# before it sends anything to the engine's worker.
CUSTOM_CHARS = 100_000  # characters of its JSON
CUSTOM_DEPTH = 32  # levels of nested objects and lists
CUSTOM_LINK = 32_000  # characters of `custom=` in a link (web servers refuse far longer addresses)
MAX_PASTE = 1_000_000  # characters of a pasted output to check: a verbose nccl-tests log is far less
# The longest context and the most users a request may ask for (the form's max, the catalog's bounds).
LIMITS = {"context": MAX_TOKENS, "concurrency": MAX_CONCURRENCY}

# The worker's messages: type -> the fields it may carry, page to worker and worker to page.
# `init` starts the engine (the head's script puts `shared` and `locale` in the worker's address
# instead); `go` lets a worker started early ask for Pyodide, with a question to warm up on.
TO_WORKER: dict[str, tuple[str, ...]] = {
    "init": ("shared", "locale", "pyodide", "warm"),
    "go": ("warm",),
    "answer": ("id", "request", "locale"),
    "check": ("id", "kind", "text", "node", "locale"),
}
# A reply carries the engine's JSON (`reply`: {ok, result} or {ok: false, error, code, params})
# or, when the worker itself failed, ok: false with one of WORKER_ERRORS (`transient`: not kept).
REPLY_FIELDS = ("id", "reply", "ok", "error", "transient", "detail")
TO_PAGE: dict[str, tuple[str, ...]] = {
    "status": ("state", "step", "steps", "loaded", "total", "started", "detail"),
    "answer": REPLY_FIELDS,
    "check": REPLY_FIELDS,
}
STATES = ("loading", "ready", "error")
WORKER_ERRORS = {"internal": "internal", "not_ready": "engine not ready"}

# Which field of the form a refusal is about (its message goes beside it): codes, and code
# prefixes, by field, tried in this order. A custom model's refusals go beside it whatever their code.
ERROR_FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "config": {"codes": (), "prefixes": ("config_",)},
    "totals": {"codes": ("missing_totals", "totals_positive", "active_exceeds_total"), "prefixes": ()},
    "context": {"codes": ("context_too_long", "request_exceeds_context"), "prefixes": ()},
    "concurrency": {"codes": ("concurrency_range",), "prefixes": ()},
    "runtime": {"codes": ("runtime_format", "unknown_runtime"), "prefixes": ()},
    "kv_cache": {"codes": (), "prefixes": ("kv_cache",)},
    "layout": {"codes": ("parallel_range",), "prefixes": ("layout_", "expert_parallel_")},
}


def declaration() -> dict[str, Any]:
    """Everything above, as the browser's module exports it (names in capitals), with the
    configurator table's columns (`api.TABLE_COLUMNS`: each one's answer field, by kind of model)."""
    from .api import TABLE_COLUMNS  # api reads this module: imported once both are loaded

    return {
        "REQUEST": {
            "model": MODEL_KEYS,
            "whole": WHOLE_KEYS,
            "target": TARGET_KEYS,
            "options": OPTION_KEYS,
            "widget": WIDGET_KEYS,
            "all": REQUEST_KEYS,
        },
        "TOTALS_FIELDS": TOTALS_FIELDS,
        "COLUMNS": [column.to_dict() for column in TABLE_COLUMNS],
        "LIMITS": {
            **LIMITS,
            "custom_chars": CUSTOM_CHARS,
            "custom_depth": CUSTOM_DEPTH,
            "custom_link": CUSTOM_LINK,
            "paste": MAX_PASTE,
        },
        "TO_WORKER": TO_WORKER,
        "TO_PAGE": TO_PAGE,
        "STATES": STATES,
        "WORKER_ERRORS": WORKER_ERRORS,
        "ERROR_FIELDS": ERROR_FIELDS,
    }


WIDTH = 120  # the JavaScript formatter's line width (biome.json)


def _js(value: Any, indent: int, room: int) -> str:
    """A JSON-like value written as the JavaScript formatter writes it: on one line when it fits
    in `room` characters, else one entry a line."""
    if isinstance(value, dict):
        items = [f"{key if key.isidentifier() else json.dumps(key)}: " for key in value]
        flat = "{ " + ", ".join(k + _js(v, 0, WIDTH) for k, v in zip(items, value.values(), strict=True)) + " }"
        if not value:
            return "{}"
        if len(flat) <= room and "\n" not in flat:
            return flat
        pad = " " * (indent + 2)
        lines = [
            f"{pad}{k}{_js(v, indent + 2, WIDTH - indent - 2 - len(k) - 1)},"
            for k, v in zip(items, value.values(), strict=True)
        ]
        return "{\n" + "\n".join(lines) + "\n" + " " * indent + "}"
    if isinstance(value, (list, tuple)):
        flat = "[" + ", ".join(_js(v, 0, WIDTH) for v in value) + "]"
        if len(flat) <= room:
            return flat
        pad = " " * (indent + 2)
        return "[\n" + "\n".join(f"{pad}{_js(v, indent + 2, WIDTH)}," for v in value) + "\n" + " " * indent + "]"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def javascript() -> str:
    """The browser's copy of the declaration, as an ES module (the committed protocol.js)."""
    lines = [
        "// What crosses between the engine, the configurator's page and its worker: written by",
        "// macros/fitengine/protocol.py (javascript()), where it is declared; do not edit it here.",
        "// To write it again, from the project's folder:",
        "//   .venv/bin/python -c 'from macros.fitengine.protocol import javascript; print(javascript(), end=\"\")' \\",
        "//     > overrides/assets/javascripts/configurator/protocol.js",
    ]
    for name, value in declaration().items():
        head = f"export const {name} = "
        lines.append("")
        lines.append(head + _js(value, 0, WIDTH - len(head) - 1) + ";")
    return "\n".join(lines) + "\n"
