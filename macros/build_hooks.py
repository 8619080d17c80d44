"""MkDocs hooks (listed under `hooks:` in mkdocs.yml): ship the engine and Pyodide with the site.

After each locale's build this writes, once for all locales, beside the locale folders:

    site/pyodide/                 Pyodide's core files, from node_modules/pyodide (npm)
    site/engine/fitengine/*.py    the engine's files, byte for byte
    site/engine/manifest.json     their SHA-256, which the widget checks before importing them
    site/engine/catalog.json      the validated catalog, as the engine's Catalog.from_dict reads it
    site/engine/answers/<locale>/<model>.json   build-time answers for every format at the defaults

Under `mkdocs serve` the preview serves one locale at its root, so they go inside it instead.
Under `mkdocs serve` it also forgets the imported `macros` package after each build, so the
preview picks up edits to the macros and the engine.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "macros" / "fitengine"
PYODIDE = ROOT / "node_modules" / "pyodide"
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
NOT_SHIPPED = ("__main__.py",)  # the command line reads files; the browser never needs it

_command = "build"


def on_startup(command: str, dirty: bool) -> None:
    global _command
    _command = command


def shared_dir(site_dir: str) -> Path:
    """Where the files shared by every locale go."""
    site = Path(site_dir)
    return site if _command == "serve" else site.parent


def engine_files() -> list[Path]:
    return sorted(p for p in ENGINE.glob("*.py") if p.name not in NOT_SHIPPED)


def _copy_if_changed(source: Path, target: Path) -> None:
    if (
        target.is_file()
        and target.stat().st_size == source.stat().st_size
        and target.read_bytes() == source.read_bytes()
    ):
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def ship_pyodide(shared: Path) -> None:
    missing = [name for name in PYODIDE_FILES if not (PYODIDE / name).is_file()]
    if missing:
        raise SystemExit(
            f"Pyodide is not installed ({', '.join(missing)} missing in {PYODIDE}): run `npm ci` (make site does)"
        )
    version = json.loads((PYODIDE / "package.json").read_text())["version"]
    for name in PYODIDE_FILES:
        _copy_if_changed(PYODIDE / name, shared / "pyodide" / name)
    (shared / "pyodide" / "VERSION").write_text(version + "\n")


def ship_engine(shared: Path, data: dict[str, Any]) -> None:
    target = shared / "engine"
    hashes = {}
    for path in engine_files():
        _copy_if_changed(path, target / "fitengine" / path.name)
        hashes[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
    manifest = {"package": "fitengine", "files": hashes}
    (target / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    (target / "catalog.json").write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def ship_answers(shared: Path, data: dict[str, Any], locale: str) -> None:
    """Every catalog model in every format at the default context: served before Pyodide is ready."""
    from macros.fitengine import Catalog, EngineError, answer
    from macros.locale_format import Formatter

    catalog = Catalog.from_dict(data)
    fmt = Formatter(locale)
    folder = shared / "engine" / "answers" / locale
    folder.mkdir(parents=True, exist_ok=True)
    for model in [*catalog.llms, *catalog.diffusion]:
        by_format = {}
        for fmt_id in catalog.formats:
            try:
                by_format[fmt_id] = answer(
                    catalog, {"model": model, "format": fmt_id}, locale, lambda v: fmt.number(v, 1)
                )
            except EngineError:
                continue
        (folder / f"{model}.json").write_text(json.dumps(by_format, ensure_ascii=False, separators=(",", ":")))


def on_post_build(config: Any) -> None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from macros.catalog_loader import CATALOG_DIR, CatalogError, read_catalog

    data, problems = read_catalog(os.environ.get("GUIDE_CATALOG") or CATALOG_DIR)
    if problems:
        raise CatalogError(problems)
    shared = shared_dir(config["site_dir"])
    ship_pyodide(shared)
    ship_engine(shared, data)
    ship_answers(shared, data, config["theme"]["language"])
    if _command == "serve":
        # mkdocs-macros imports the package once; forget it so the next rebuild sees edits.
        for name in [m for m in sys.modules if m == "macros" or m.startswith("macros.")]:
            del sys.modules[name]
