"""Build the site in-process, as `make site` does, into a folder of the test's choosing."""

from __future__ import annotations

import os
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config

from macros.site_root import write_root

ROOT = Path(__file__).resolve().parent.parent
LOCALE_CONFIGS = {"fr": ROOT / "mkdocs.yml", "en": ROOT / "mkdocs.en.yml"}


def build_site(target: Path, locales: tuple[str, ...] = ("fr", "en"), catalog: Path | None = None) -> Path:
    """Build the given locales into target/<locale>/ (and the root files when all are built)."""
    os.environ["NO_MKDOCS_2_WARNING"] = "1"
    previous = os.environ.get("GUIDE_CATALOG")
    if catalog is not None:
        os.environ["GUIDE_CATALOG"] = str(catalog)
    try:
        for locale in locales:
            config = load_config(str(LOCALE_CONFIGS[locale]), site_dir=str(target / locale), strict=True)
            build(config)
    finally:
        if catalog is not None:
            if previous is None:
                os.environ.pop("GUIDE_CATALOG", None)
            else:
                os.environ["GUIDE_CATALOG"] = previous
    if set(locales) == set(LOCALE_CONFIGS):
        write_root(target)
    return target
