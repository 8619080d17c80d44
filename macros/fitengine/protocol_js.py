"""The browser's copy of the protocol (protocol.py) and of the table's columns (api.py), written
as the ES module `overrides/assets/javascripts/configurator/protocol.js`."""

from __future__ import annotations

import json
from typing import Any

from .api import TABLE_COLUMNS
from .protocol import (
    CUSTOM_CHARS,
    CUSTOM_DEPTH,
    CUSTOM_LINK,
    ERROR_FIELDS,
    LIMITS,
    MAX_PASTE,
    MODEL_KEYS,
    OPTION_KEYS,
    REQUEST_KEYS,
    STATES,
    SUGGESTION_KEYS,
    TARGET_KEYS,
    TO_PAGE,
    TO_WORKER,
    TOTALS_FIELDS,
    WHOLE_KEYS,
    WIDGET_KEYS,
    WORKER_ERRORS,
)


def declaration() -> dict[str, Any]:
    """Everything above, as the browser's module exports it (names in capitals), with the
    configurator table's columns (`api.TABLE_COLUMNS`: each one's answer field, by kind of model)."""
    return {
        "REQUEST": {
            "model": MODEL_KEYS,
            "whole": WHOLE_KEYS,
            "target": TARGET_KEYS,
            "options": OPTION_KEYS,
            "widget": WIDGET_KEYS,
            "all": REQUEST_KEYS,
            "suggestion": SUGGESTION_KEYS,
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
        # Each entry on its line, after its indent and before its comma.
        room = WIDTH - indent - 2 - 1
        return "[\n" + "\n".join(f"{pad}{_js(v, indent + 2, room)}," for v in value) + "\n" + " " * indent + "]"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def javascript() -> str:
    """The browser's copy of the declaration, as an ES module (the committed protocol.js)."""
    lines = [
        "// What crosses between the engine, the configurator's page and its worker: written by",
        "// macros/fitengine/protocol_js.py from the declaration in protocol.py; do not edit it here.",
        "// To write it again, from the project's folder:",
        "//   .venv/bin/python -c 'from macros.fitengine.protocol_js import javascript; print(javascript(), end=\"\")' \\",
        "//     > overrides/assets/javascripts/configurator/protocol.js",
    ]
    for name, value in declaration().items():
        head = f"export const {name} = "
        lines.append("")
        lines.append(head + _js(value, 0, WIDTH - len(head) - 1) + ";")
    return "\n".join(lines) + "\n"
