"""Build the site in-process, exactly as `make site` does (macros.build.build_site)."""

from __future__ import annotations

import os
from pathlib import Path

from macros.build.build_site import ROOT as ROOT
from macros.build.build_site import build_site as _build_site
from macros.locales import codes, locales

LOCALE_CONFIGS = {locale.code: locale.config for locale in locales()}
LOCALES = codes()


def build_site(target: Path, locales: tuple[str, ...] = LOCALES, catalog: Path | None = None) -> Path:
    """Build the given locales into target/<locale>/, with another catalog folder if given."""
    previous = os.environ.get("GUIDE_CATALOG")
    if catalog is not None:
        os.environ["GUIDE_CATALOG"] = str(catalog)
    try:
        return _build_site(target, [LOCALE_CONFIGS[locale] for locale in locales], clean=False)
    finally:
        if catalog is not None:
            if previous is None:
                os.environ.pop("GUIDE_CATALOG", None)
            else:
                os.environ["GUIDE_CATALOG"] = previous
