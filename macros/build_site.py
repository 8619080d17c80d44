"""Build every locale into site/ in one process: `python -m macros.build_site [SITE_DIR]`.

One config per locale sits beside mkdocs.yml (mkdocs.yml is French, mkdocs.<code>.yml the
others). Building them in one process reads the catalog and computes the build-time answers
once for all locales. Then the root files (language chooser, 404) are written.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def locale_configs() -> list[Path]:
    """Every locale's config, the source language's first (macros/locales.py)."""
    from macros.locales import locales

    return [locale.config for locale in locales()]


def build_site(target: Path, configs: list[Path] | None = None, clean: bool = True) -> Path:
    """Build the given locale configs (all by default) into target/<locale>/."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from macros.site_root import write_root

    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    chosen = configs or locale_configs()
    if clean and target.exists():
        shutil.rmtree(target)
    for config_file in chosen:
        config = load_config(str(config_file))
        locale = config["theme"]["language"]
        config = load_config(str(config_file), site_dir=str(target / locale), strict=True)
        build(config)
    if len(chosen) == len(locale_configs()):
        write_root(target)
    return target


if __name__ == "__main__":
    build_site(Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "site"))
