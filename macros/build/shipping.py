"""What a build ships beside the locale folders, once for every locale (macros/build/build_hooks.py
calls it after each locale's build):

    site/pyodide/<version>/       Pyodide's core files, from node_modules/pyodide (npm); the version
                                  in the path lets a host cache them for good
    site/engine/fitengine/*.py    the engine's files, byte for byte
    site/engine/manifest.json     their SHA-256, and the catalog's and answers' (`data`): the widget
                                  uses none of these files unless it matches
    site/engine/catalog.json      the validated catalog, as the engine's Catalog.from_dict reads it
    site/engine/messages/<locale>.json   the engine's reason texts in each locale, by code, from the
                                  site's message catalogs (macros/messages.py): the worker passes them
    site/engine/answers/<locale>/<format>.json   build-time answers at the defaults, every model
    site/engine/answers/<locale>/<format>/<model>.json   the same, one model's

The start-up snapshot (engine/snapshot-*.bin, stdlib-*.zip) is macros/build/pyodide_snapshot.py's.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENGINE = Path(__file__).resolve().parents[1] / "fitengine"
NOT_SHIPPED = ("__main__.py",)


def engine_files() -> list[Path]:
    return sorted(p for p in ENGINE.glob("*.py") if p.name not in NOT_SHIPPED)


def _copy_if_changed(source: Path, target: Path) -> None:
    # The copy keeps the source's times, so an unchanged file is known by its size and time
    # alone: the preview's rebuilds no longer read Pyodide's 13 MB twice to compare them.
    if target.is_file():
        have, want = target.stat(), source.stat()
        if (have.st_size, have.st_mtime_ns) == (want.st_size, want.st_mtime_ns):
            return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)


def _link(source: Path, target: Path) -> None:
    """The preview's copy: a hard link where the file system allows one (no bytes copied; the
    preview's folder is emptied before each rebuild), else a copy."""
    if target.is_file():
        return _copy_if_changed(source, target)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        target.hardlink_to(source)
    except OSError:
        shutil.copy2(source, target)


def ship_pyodide(shared: Path, serving: bool) -> None:
    """Pyodide's core files under pyodide/<version>/: hard links in the preview, copies in a build."""
    from macros.build.pyodide_dist import PYODIDE, PYODIDE_FILES, pyodide_version

    ship = _link if serving else _copy_if_changed
    for name in PYODIDE_FILES:
        ship(PYODIDE / name, shared / "pyodide" / pyodide_version() / name)


def ship_engine(shared: Path, data: dict[str, Any]) -> None:
    from macros.build import pyodide_dist

    target = shared / "engine"
    hashes = {}
    for path in engine_files():
        _copy_if_changed(path, target / "fitengine" / path.name)
        hashes[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
    catalog = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    (target / "catalog.json").write_bytes(catalog)
    manifest = {
        "package": "fitengine",
        "files": hashes,
        "pyodide": pyodide_dist.pyodide_version(),
        "data": {"catalog.json": hashlib.sha256(catalog).hexdigest(), **ship_messages(target)},
    }
    (target / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def ship_messages(engine: Path) -> dict[str, str]:
    """The engine's texts for every locale (engine/messages/<locale>.json), by name with their hash."""
    from macros.locales import codes
    from macros.messages import engine_words

    hashes = {}
    for locale in codes():
        text = answers_json(engine_words(locale)).encode("utf-8")
        path = engine / "messages" / f"{locale}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text)
        hashes[f"messages/{locale}.json"] = hashlib.sha256(text).hexdigest()
    return hashes


def hash_answers(shared: Path, known: dict[str, str] | None = None) -> None:
    """Add every build-time answers file to the manifest's `data`: the widget trusts only those.
    `known`: the SHA-256 of files by name, taken as they were written (write_answers'); the
    others are read and hashed here."""
    manifest_path = shared / "engine" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    known = known or {}
    for path in sorted((shared / "engine" / "answers").rglob("*.json")):
        name = path.relative_to(shared / "engine").as_posix()
        manifest["data"][name] = known.get(name) or hashlib.sha256(path.read_bytes()).hexdigest()
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def ship_answers(shared: Path, data: dict[str, Any], locale: str) -> dict[str, str]:
    """Build-time answers for every model and format, served before Pyodide is ready; the
    SHA-256 of each file written, by name (`write_answers`').

    One file per locale and format holds every model's answer: the page preloads its format's,
    and any model then answers at once. One file per locale, format and model holds that model's
    alone: what the widget fetches for a format chosen after it started, instead of every
    model's (bench/results.md has their weights).
    """
    from macros.build.build_answers import raw_answers
    from macros.messages import engine_words

    return write_answers(shared, encode_answers(raw_answers(data)), locale, engine_words(locale))


@dataclass(frozen=True)
class Encoded:
    """One raw answer as its file writes it, encoded once for every locale: the JSON before its
    rows and after them, and each row's without its closing brace, where the locale's
    `reason_text` goes (a row's last key, as `with_reason_text` puts it)."""

    raw: dict[str, Any]
    head: str
    rows: tuple[str, ...]
    tail: str

    def text(self, reasons: list[str]) -> str:
        """The answer's JSON with each row's reason sentences (`reasons`, in the rows' order)."""
        rows = ",".join(
            f'{row},"reason_text":{answers_json(reason)}}}' for row, reason in zip(self.rows, reasons, strict=True)
        )
        return f"{self.head}[{rows}]{self.tail}"


def encode_answers(answers: dict[str, dict[str, dict[str, Any]]]) -> dict[str, dict[str, Encoded]]:
    """The raw answers (model id -> format id -> raw answer, build_answers.raw_answers') encoded
    for `write_answers`: their figures are the same in every locale, so they are written out once."""
    return {model: {fmt: _encode(raw) for fmt, raw in by_format.items()} for model, by_format in answers.items()}


def _encode(raw: dict[str, Any]) -> Encoded:
    # The answer's keys in their order, as json.dumps writes a dict (compact), the rows left open.
    keys = list(raw)
    at = keys.index("rows")
    parts = [f"{answers_json(key)}:{answers_json(raw[key])}" for key in keys[:at] + keys[at + 1 :]]
    head = "{" + "".join(f"{part}," for part in parts[:at]) + '"rows":'
    tail = "".join(f",{part}" for part in parts[at:]) + "}"
    rows = tuple(answers_json(row)[:-1] for row in raw["rows"])
    return Encoded(raw, head, rows, tail)


def write_answers(
    shared: Path, answers: dict[str, dict[str, Encoded]], locale: str, words: dict[str, str]
) -> dict[str, str]:
    """The answers files of `locale` (`ship_answers`'s) from the encoded answers (`encode_answers`)
    and the locale's engine words; the SHA-256 of each file written, by its name in the manifest."""
    from macros.fitengine.api import reason_text
    from macros.fitengine.reasons import REASON_DIGITS
    from macros.render.locale_format import Formatter

    fmt = Formatter(locale)

    # The reasons repeat their figures (a node's memory, a card's capacity): locale_format
    # writes each once per locale.
    def number(value: float) -> str:
        return fmt.number(value, REASON_DIGITS)

    folder = shared / "engine" / "answers" / locale
    folder.mkdir(parents=True, exist_ok=True)
    hashes: dict[str, str] = {}

    def write(path: Path, text: str) -> None:
        data = text.encode("utf-8")
        path.write_bytes(data)
        hashes[path.relative_to(shared / "engine").as_posix()] = hashlib.sha256(data).hexdigest()

    bundles: dict[str, dict[str, str]] = {}
    for model, by_format in answers.items():
        for fmt_id, encoded in by_format.items():
            reasons = [reason_text(row, words, number) for row in encoded.raw["rows"]]
            bundles.setdefault(fmt_id, {})[model] = encoded.text(reasons)
    for fmt_id, texts in bundles.items():
        # Each answer is put together once and written in both files: the texts are the ones
        # json.dumps gives for the two bundles (a test holds them to it).
        head = f'{{"version":1,"locale":{answers_json(locale)},"format":{answers_json(fmt_id)}'
        whole = ",".join(f"{answers_json(model)}:{text}" for model, text in texts.items())
        write(folder / f"{fmt_id}.json", f'{head},"answers":{{{whole}}}}}')
        (folder / fmt_id).mkdir(exist_ok=True)
        for model, text in texts.items():
            write(folder / fmt_id / f"{model}.json", f'{head},"model":{answers_json(model)},"answer":{text}}}')
    return hashes


def answers_json(value: Any) -> str:
    """A value of an answers file as the file writes it: compact JSON, UTF-8 as is (json.dumps's
    text with these options, from one encoder: json.dumps makes one at each call)."""
    return _ENCODER.encode(value)


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def ship_no_answers(shared: Path, data: dict[str, Any], locale: str) -> None:
    """The preview's stand-in for the build-time answers: every format's file, holding no answer.

    The page asks for its format's answers as it loads; an empty bundle tells the widget to wait
    for Pyodide, where a missing file would be a 404 on every page with a configurator.
    """
    folder = shared / "engine" / "answers" / locale
    folder.mkdir(parents=True, exist_ok=True)
    for fmt in data["formats"]:
        bundle = {"version": 1, "locale": locale, "format": fmt["id"], "answers": {}}
        target = folder / f"{fmt['id']}.json"
        text = json.dumps(bundle, separators=(",", ":"))
        if not target.is_file() or target.read_text() != text:
            target.write_text(text)
