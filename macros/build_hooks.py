"""MkDocs hooks (listed under `hooks:` in mkdocs.yml): ship the engine and Pyodide with the site.

After each locale's build this writes, once for all locales, beside the locale folders:

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
    site/engine/snapshot-*.bin, stdlib-*.zip     Pyodide's heap with the engine imported, and the
                                  standard library it still reads (macros/pyodide_snapshot.py)

Under `mkdocs serve` the preview serves one locale at its root, so they go inside it instead,
and the build-time answers are skipped (the preview's widget waits for Pyodide).
Under `mkdocs serve` it also forgets the imported `macros` package when its files changed, so
the preview picks up edits to the macros and the engine. What the hooks remember between builds
is on one object, `STATE`.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "macros" / "fitengine"
NOT_SHIPPED = ("__main__.py",)
JINJA_CACHE = ROOT / ".cache" / "jinja"  # the command line reads files; the browser never needs it


@dataclass
class BuildState:
    """What the hooks remember from one build to the next in the same process.

    MkDocs loads this file once per process (its hook loader is cached by path), so this object
    outlives the configs `mkdocs serve` reloads on every edit, and the `macros` package, which is
    forgotten when its files change; that is why the state lives here and nowhere in `macros`.
    """

    command: str = "build"  # what `mkdocs` was asked: build, gh-deploy or serve
    macros_read: tuple[tuple[str, int, int], ...] | None = None  # the sources `macros` was imported from
    # The theme's static files, (path, folder), by what they depend on (see add_theme_files).
    theme_files: dict[tuple[Any, ...], list[tuple[str, str]]] = field(default_factory=dict)

    @property
    def serving(self) -> bool:
        return self.command == "serve"


STATE = BuildState()


def on_startup(command: str, dirty: bool) -> None:
    STATE.command = command


def _source_fingerprint() -> tuple[tuple[str, int, int], ...]:
    files = sorted((ROOT / "macros").rglob("*.py"))
    return tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files)


def forget_changed_macros(state: BuildState, fingerprint: tuple[tuple[str, int, int], ...]) -> bool:
    """Under `mkdocs serve`, forget the imported `macros` package when its files changed.

    mkdocs-macros imports the package once per process; without this an edit to the macros or
    the engine would not show until the preview restarts. Unchanged code stays imported, so the
    catalog read and the engine's imports are not redone on every edit of a guide. This is the
    project's one purge of `sys.modules`. Returns whether the package was forgotten.
    """
    changed = state.macros_read is not None and state.macros_read != fingerprint
    if changed:
        for name in [m for m in sys.modules if m == "macros" or m.startswith("macros.")]:
            del sys.modules[name]
    state.macros_read = fingerprint
    return changed


@event_priority(100)  # before mkdocs-macros imports the package
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Set the site's address and alternates; under `mkdocs serve`, pick up edited macros."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    if STATE.serving:
        forget_changed_macros(STATE, _source_fingerprint())
    from macros.node_render import start
    from macros.site_meta import configure

    configure(config, serving=STATE.serving)
    # The one MkDocs method the site replaces, with one that calls it (add_theme_files).
    Files.add_files_from_theme = add_theme_files  # type: ignore[method-assign]
    start()  # Node, which writes the configurator's markup, starts while the pages are computed
    return config


def on_env(env: Environment, config: MkDocsConfig, files: Files) -> Environment:
    """Keep the theme's compiled templates on disk between builds.

    Compiling Material's templates was a third of a preview rebuild. Jinja keys its bytecode
    cache by the template's source, so an edited override is compiled afresh.
    """
    from jinja2 import FileSystemBytecodeCache

    JINJA_CACHE.mkdir(parents=True, exist_ok=True)
    env.bytecode_cache = FileSystemBytecodeCache(str(JINJA_CACHE))
    return env


# MkDocs' own, even if this file runs again in a process where it already replaced it (each
# add_theme_files carries the method it calls).
_add_files_from_theme = getattr(Files.add_files_from_theme, "mkdocs_own", Files.add_files_from_theme)


def add_theme_files(files: Files, env: Environment, config: MkDocsConfig) -> None:
    """MkDocs' `Files.add_files_from_theme`, its listing kept for the life of the process.

    MkDocs walks the theme's folders and filters every name on each build: some 14,500 names,
    nearly all of them Material's icons, which it leaves out; that was a tenth of a preview
    rebuild, and a locale's build in `make site` listed them again. The installed themes'
    folders do not change while a process runs; `overrides/` (the theme's `custom_dir`) may,
    so the names it holds are part of the key. The files are made afresh on each build, and,
    as MkDocs does, a theme file never replaces one of the pages' folder.
    """
    theme = config.theme
    key = (tuple(theme.dirs), tuple(sorted(theme.static_templates)), _names_under(theme.custom_dir))
    listed = STATE.theme_files.get(key)
    if listed is None:
        scratch = Files([])
        _add_files_from_theme(scratch, env, config)
        listed = STATE.theme_files[key] = [(f.src_uri, str(f.src_dir)) for f in scratch]
    for path, folder in listed:
        if files.get_file_from_path(path) is None:
            files.append(File(path, folder, config.site_dir, config.use_directory_urls))


add_theme_files.mkdocs_own = _add_files_from_theme  # type: ignore[attr-defined]


def _names_under(folder: str | None) -> tuple[str, ...]:
    if not folder:
        return ()
    return tuple(sorted(str(path) for path in Path(folder).rglob("*") if path.is_file()))


def shared_dir(site_dir: str) -> Path:
    """Where the files shared by every locale go."""
    site = Path(site_dir)
    return site if STATE.serving else site.parent


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


def ship_pyodide(shared: Path) -> None:
    from macros.pyodide_dist import PYODIDE, PYODIDE_FILES, pyodide_version

    ship = _link if STATE.serving else _copy_if_changed
    for name in PYODIDE_FILES:
        ship(PYODIDE / name, shared / "pyodide" / pyodide_version() / name)


def ship_engine(shared: Path, data: dict[str, Any]) -> None:
    from macros import pyodide_dist

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


def hash_answers(shared: Path) -> None:
    """Add every build-time answers file to the manifest's `data`: the widget trusts only those."""
    manifest_path = shared / "engine" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for path in sorted((shared / "engine" / "answers").rglob("*.json")):
        name = path.relative_to(shared / "engine").as_posix()
        manifest["data"][name] = hashlib.sha256(path.read_bytes()).hexdigest()
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def ship_answers(shared: Path, data: dict[str, Any], locale: str) -> None:
    """Build-time answers for every model and format, served before Pyodide is ready.

    One file per locale and format holds every model's answer (about 25 kB compressed): the
    page preloads its format's, and any model then answers at once. One file per locale, format
    and model holds that model's alone (about 4 kB compressed): what the widget fetches for a
    format chosen after it started, instead of every model's.
    """
    from macros.build_answers import raw_answers
    from macros.fitengine.api import with_reason_text
    from macros.fitengine.reasons import REASON_DIGITS
    from macros.locale_format import Formatter
    from macros.messages import engine_words

    fmt = Formatter(locale)
    words = engine_words(locale)

    # The reasons repeat their figures (a node's memory, a card's capacity): locale_format
    # writes each once per locale.
    def number(value: float) -> str:
        return fmt.number(value, REASON_DIGITS)

    folder = shared / "engine" / "answers" / locale
    folder.mkdir(parents=True, exist_ok=True)
    bundles: dict[str, dict[str, Any]] = {}
    for model, by_format in raw_answers(data).items():
        for fmt_id, raw in by_format.items():
            rendered = with_reason_text(raw, words, number)
            bundles.setdefault(fmt_id, {})[model] = rendered
    for fmt_id, answers in bundles.items():
        # Each answer is serialized once and written in both files: the texts are the ones
        # json.dumps gives for the two bundles (a test holds them to it).
        texts = {model: answers_json(answer) for model, answer in answers.items()}
        head = f'{{"version":1,"locale":{answers_json(locale)},"format":{answers_json(fmt_id)}'
        whole = ",".join(f"{answers_json(model)}:{text}" for model, text in texts.items())
        (folder / f"{fmt_id}.json").write_text(f'{head},"answers":{{{whole}}}}}', encoding="utf-8")
        (folder / fmt_id).mkdir(exist_ok=True)
        for model, text in texts.items():
            one = f'{head},"model":{answers_json(model)},"answer":{text}}}'
            (folder / fmt_id / f"{model}.json").write_text(one, encoding="utf-8")


def answers_json(value: Any) -> str:
    """A value of an answers file as the file writes it: compact JSON, UTF-8 as is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


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


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Stop the build on a page without a key or without its counterpart in every locale (macros/page_keys.py)."""
    from macros.page_keys import check_page

    check_page(page, config)
    return markdown


def on_template_context(context: dict[str, Any], template_name: str, config: MkDocsConfig) -> dict[str, Any]:
    """Give the locale's 404 page absolute links under the site's path (SITE_BASE, default `/`).

    A host serves it at whatever address was not found, so relative links cannot work; MkDocs
    makes them absolute from the root of the host, where the locale's assets are not.
    """
    if template_name != "404.html":
        return context
    from mkdocs.utils import normalize_url

    from macros.site_root import site_base

    # The preview serves one locale at the root of 127.0.0.1, whatever SITE_BASE says.
    base_url = "/" if STATE.serving else f"{site_base()}{config['theme']['language']}"
    context["base_url"] = base_url
    context["extra_css"] = [normalize_url(str(path), None, base_url) for path in config["extra_css"]]
    context["extra_javascript"] = [normalize_url(str(script), None, base_url) for script in config["extra_javascript"]]
    return context


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    """Put the widgets' HTML back where their macros left placeholders (macros/html_blocks.py).

    Done on the finished page, after the search index has read the page's text.
    """
    from macros.html_blocks import restore

    return restore(output)


def on_post_build(config: MkDocsConfig) -> None:
    from macros.catalog_loader import read_for_build
    from macros.search_fr import ship_french_search

    data = read_for_build()
    ship_french_search(config)
    shared = shared_dir(config["site_dir"])
    ship_pyodide(shared)
    ship_engine(shared, data)
    if not STATE.serving:
        from macros.pyodide_snapshot import enabled, ship_snapshot

        if enabled():
            ship_snapshot(shared)
        ship_answers(shared, data, config["theme"]["language"])
        hash_answers(shared)
    else:
        # The preview skips the build-time answers (its widget waits for Pyodide instead) and the
        # start-up snapshot (it starts Pyodide plainly), so that an edit shows in about a second.
        ship_no_answers(shared, data, config["theme"]["language"])
