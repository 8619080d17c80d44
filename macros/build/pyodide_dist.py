"""Pyodide as npm installs it (node_modules/pyodide): the core files the site ships, and their version."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYODIDE = ROOT / "node_modules" / "pyodide"
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")


def check_installed() -> None:
    """Stop the build with the command to run when Pyodide's files are missing."""
    missing = [name for name in (*PYODIDE_FILES, "package.json") if not (PYODIDE / name).is_file()]
    if missing:
        raise SystemExit(
            f"Pyodide is not installed ({', '.join(missing)} missing in {PYODIDE}): run `npm ci` (make site does)"
        )


@cache
def pyodide_version() -> str:
    """The version npm installed; the site serves Pyodide under pyodide/<version>/."""
    check_installed()
    return json.loads((PYODIDE / "package.json").read_text())["version"]
