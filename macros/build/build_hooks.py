"""MkDocs hooks (listed under `hooks:` in mkdocs.yml): ship the engine and Pyodide with the site.

After each locale's build this writes, once for all locales, beside the locale folders, the
engine, its manifest, the catalog, the engine's words, the build-time answers
(macros/build/shipping.py) and Pyodide's start-up snapshot (macros/build/pyodide_snapshot.py).
`make site` writes the answers in processes beside the build instead, while the pages are
rendered (macros/build/answers_beside.py), and the hooks leave them to those.

Under `mkdocs serve` the preview serves one locale at its root, so they go inside it instead,
and the build-time answers and the snapshot are skipped (the preview's widget waits for Pyodide).
Under `mkdocs serve` it also forgets the imported `macros` package when its files changed, so
the preview picks up edits to the macros and the engine.

The hooks keep no state: what they need of a build is read from its MkDocs config each time
(`HooksConfig.read`). MkDocs loads this file once per process and the preview loads the config
again on every edit; what would have to outlive a config is read again instead: whether the
`macros` package is stale is a comparison of its sources with the ones it was imported from
(`macros.IMPORTED_FROM`, recorded by the package itself), and the theme's listing of static
files is kept on disk under `.cache/theme-files/`, keyed on what it depends on.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache"  # the command line reads files; the browser never needs it


@dataclass(frozen=True)
class HooksConfig:
    """What the hooks read of one build, typed, from its MkDocs config and the environment."""

    locale: str  # theme.language: the locale this config builds
    site_dir: Path
    serving: bool  # built by `mkdocs serve`: one locale, served at the preview's root
    snapshot: bool  # ship Pyodide's start-up snapshot (SITE_SNAPSHOT=off: no; never in the preview)
    answers_beside: bool = False  # processes beside the build write the answers (macros/build/answers_beside.py)
    cache: Path = CACHE  # what builds keep between processes (the theme's listing, Jinja's bytecode)

    @classmethod
    def read(cls, config: MkDocsConfig) -> HooksConfig:
        from macros.build.answers_beside import written_beside
        from macros.build.pyodide_snapshot import enabled

        serving = previewing(config)
        locale = config["theme"]["language"]
        return cls(
            locale=locale,
            site_dir=Path(config["site_dir"]),
            serving=serving,
            snapshot=enabled() and not serving,
            answers_beside=written_beside(locale) and not serving,
            cache=CACHE,
        )

    @property
    def shared(self) -> Path:
        """Where the files shared by every locale go: beside the locale folders, or in the preview's."""
        return self.site_dir if self.serving else self.site_dir.parent

    @property
    def jinja_cache(self) -> Path:
        return self.cache / "jinja"


def previewing(config: MkDocsConfig) -> bool:
    """Whether `mkdocs serve` builds this config: its builder sets site_url to the preview's own
    address (dev_addr) before each build, where a build's site_url is the site's (set by
    macros/build/site_meta.py, from extra.site_url or SITE_URL, never a local http address)."""
    url = urlsplit(config.site_url or "")
    host, port = config.dev_addr
    return url.scheme == "http" and url.hostname == host.strip("[]") and url.port == port


def forget_changed_macros() -> bool:
    """Under `mkdocs serve`, forget the imported `macros` package when its files changed.

    mkdocs-macros imports the package once per process; without this an edit to the macros or
    the engine would not show until the preview restarts. Unchanged code stays imported, so the
    catalog read and the engine's imports are not redone on every edit of a guide. The package
    records the sources it was imported from (`macros.IMPORTED_FROM`); a source changed, added
    or removed since then makes it stale. This is the project's one purge of `sys.modules`.
    Returns whether the package was forgotten.
    """
    package = sys.modules.get("macros")
    if package is None or package.sources() == package.IMPORTED_FROM:
        return False
    for name in [m for m in sys.modules if m == "macros" or m.startswith("macros.")]:
        del sys.modules[name]
    return True


@event_priority(100)  # before mkdocs-macros imports the package
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Set the site's address and alternates; under `mkdocs serve`, pick up edited macros."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    serving = previewing(config)
    if serving:
        forget_changed_macros()
    from macros.build.site_meta import configure
    from macros.render.node_render import start

    configure(config, serving=serving)
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

    folder = HooksConfig.read(config).jinja_cache
    folder.mkdir(parents=True, exist_ok=True)
    env.bytecode_cache = FileSystemBytecodeCache(str(folder))
    return env


# MkDocs' own, even if this file runs again in a process where it already replaced it (each
# add_theme_files carries the method it calls).
_add_files_from_theme = getattr(Files.add_files_from_theme, "mkdocs_own", Files.add_files_from_theme)


def add_theme_files(files: Files, env: Environment, config: MkDocsConfig) -> None:
    """MkDocs' `Files.add_files_from_theme`, its listing kept on disk.

    MkDocs walks the theme's folders and filters every name on each build: some 14,500 names,
    nearly all of them Material's icons, which it leaves out (about 0.2 s); that was a tenth of a
    preview rebuild, and each locale's build in `make site` listed them again. What it keeps (some
    70 files) depends on the installed MkDocs and theme, the theme's folders and the names under
    `overrides/` (the theme's `custom_dir`, which may change while the preview runs): the listing
    is kept in `.cache/theme-files/` under a key of them all. The files are made afresh on each
    build, and, as MkDocs does, a theme file never replaces one of the pages' folder.
    """
    path = HooksConfig.read(config).cache / "theme-files" / f"{_theme_key(config)}.json"
    try:
        listed = [(str(name), str(folder)) for name, folder in json.loads(path.read_text(encoding="utf-8"))]
    except (OSError, ValueError, TypeError):
        scratch = Files([])
        _add_files_from_theme(scratch, env, config)
        listed = [(f.src_uri, str(f.src_dir)) for f in scratch]
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        partial.write_text(json.dumps(listed), encoding="utf-8")
        partial.replace(path)  # whole or not at all: another build may read it meanwhile
    for name, folder in listed:
        if files.get_file_from_path(name) is None:
            files.append(File(name, folder, config.site_dir, config.use_directory_urls))


add_theme_files.mkdocs_own = _add_files_from_theme  # type: ignore[attr-defined]


def _theme_key(config: MkDocsConfig) -> str:
    """What the theme's listing depends on, hashed: the installed MkDocs and theme, the theme's
    folders and static templates, and the names under its custom_dir."""
    theme = config.theme
    key = [
        _installed("mkdocs"),
        _installed(f"mkdocs-{theme.name}"),
        list(theme.dirs),
        sorted(theme.static_templates),
        _names_under(theme.custom_dir),
    ]
    return hashlib.sha256(json.dumps(key).encode("utf-8")).hexdigest()[:32]


def _installed(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:  # a theme MkDocs ships, or one not installed as a package
        return ""


def _names_under(folder: str | None) -> list[str]:
    if not folder:
        return []
    return sorted(str(path) for path in Path(folder).rglob("*") if path.is_file())


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

    from macros.build.site_root import site_base

    hooks = HooksConfig.read(config)
    # The preview serves one locale at the root of 127.0.0.1, whatever SITE_BASE says.
    base_url = "/" if hooks.serving else f"{site_base()}{hooks.locale}"
    context["base_url"] = base_url
    context["extra_css"] = [normalize_url(str(path), None, base_url) for path in config["extra_css"]]
    context["extra_javascript"] = [normalize_url(str(script), None, base_url) for script in config["extra_javascript"]]
    return context


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    """Put the widgets' HTML back where their macros left placeholders (macros/render/html_blocks.py).

    Done on the finished page, after the search index has read the page's text.
    """
    from macros.render.html_blocks import restore

    return restore(output)


def on_post_build(config: MkDocsConfig) -> None:
    from macros.build import shipping
    from macros.catalog_loader import read_for_build
    from macros.search_fr import ship_french_search

    hooks = HooksConfig.read(config)
    data = read_for_build()
    ship_french_search(config)
    shipping.ship_pyodide(hooks.shared, hooks.serving)
    shipping.ship_engine(hooks.shared, data)
    if hooks.serving:
        # The preview skips the build-time answers (its widget waits for Pyodide) and the
        # start-up snapshot (it starts Pyodide plainly), so that an edit shows in about a second.
        shipping.ship_no_answers(hooks.shared, data, hooks.locale)
        return
    if hooks.snapshot:
        from macros.build.pyodide_snapshot import ship_snapshot

        ship_snapshot(hooks.shared)
    if hooks.answers_beside:  # processes beside the build write them; the build then hashes them
        return
    # This locale's files hashed as written; another locale's, built before, read again.
    shipping.hash_answers(hooks.shared, shipping.ship_answers(hooks.shared, data, hooks.locale))
