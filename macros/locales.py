"""The site's locales, in one place: `extra.locales` of mkdocs.yml lists them, the source first.

The build, the root page, the tests and the bench read them from here. The first is the source
language, built from mkdocs.yml; each other locale `<code>` is built from mkdocs.<code>.yml,
which inherits it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from macros.file_stamps import read_when_changed

ROOT = Path(__file__).resolve().parent.parent
BASE_CONFIG = ROOT / "mkdocs.yml"


@dataclass(frozen=True)
class Locale:
    code: str  # the language code of theme.language, e.g. "fr"
    name: str  # the language's own name, as the switcher shows it
    config: Path  # the MkDocs config that builds it

    @property
    def docs_dir(self) -> Path:
        """Where its pages' Markdown lives (the config's docs_dir)."""
        return ROOT / self._setting("docs_dir")

    @property
    def site_name(self) -> str:
        """The site's name in this language (its config's site_name, or the source's)."""
        return self._setting("site_name")

    def _setting(self, name: str) -> Any:
        # Read again only when a config changed (every page's check asks).
        own = read_when_changed(self.config, yaml.safe_load)
        return own[name] if name in own else read_when_changed(BASE_CONFIG, yaml.safe_load)[name]


@cache
def locales() -> tuple[Locale, ...]:
    """Every locale of the site, the source language first."""
    config = yaml.safe_load(BASE_CONFIG.read_text(encoding="utf-8"))
    found = []
    for index, entry in enumerate(config["extra"]["locales"]):
        code = entry["lang"]
        found.append(Locale(code, entry["name"], BASE_CONFIG if index == 0 else ROOT / f"mkdocs.{code}.yml"))
    return tuple(found)


def codes() -> tuple[str, ...]:
    """The locales' codes, the source language first."""
    return tuple(locale.code for locale in locales())


def source() -> str:
    """The source language: every other locale translates it."""
    return locales()[0].code
