"""mkdocs-macros entry point: load the catalog once per build, register the guide macros.

Importing this package loads nothing: `import macros.fitengine` runs this file first, and the
engine must come without the site (no YAML, JSON Schema, Babel or Jinja). The site's modules
are imported when mkdocs-macros calls `define_env`. The package records the sources it was
imported from (`IMPORTED_FROM`): under `mkdocs serve` the build hooks forget it once they changed
(macros/build/build_hooks.py).
"""

from __future__ import annotations

import os
from typing import Any


def sources() -> tuple[tuple[str, int, int], ...]:
    """Every Python source of the package as it is now: path, modification time and size.

    With os alone: importing the package (and so the engine) loads nothing else, pathlib included.
    """
    found = []
    for folder, subfolders, names in os.walk(os.path.dirname(os.path.abspath(__file__))):  # noqa: PTH100, PTH120
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(folder, name)  # noqa: PTH118
                stat = os.stat(path)  # noqa: PTH116
                found.append((path, stat.st_mtime_ns, stat.st_size))
    return tuple(found)


IMPORTED_FROM = sources()


def define_env(env: Any) -> None:
    """Register the macros for this build's locale (theme.language of the locale's config).

    The catalog is catalog/ unless the GUIDE_CATALOG environment variable names another folder.
    """
    from macros.build.engine_cache import catalog_for
    from macros.catalog_loader import read_for_build
    from macros.guides import GuideMacros
    from macros.macro_args import checked, valid_ids

    locale = env.conf["theme"]["language"]
    data = read_for_build()
    catalog = catalog_for(data)  # one per catalog: the locales share its answers (macros/build/engine_cache.py)
    guide = GuideMacros(
        catalog,
        data,
        locale,
        page_url=lambda: env.page.url if env.page else "",
        page_paths=env.conf["extra"]["page_paths"],
    )
    ids = valid_ids(catalog, data)
    page = lambda: env.page.file.src_uri if env.page else "?"  # noqa: E731
    for name, function in guide.registrations().items():
        env.macro(checked(name, function, ids, page), name)
    env.variables["locale"] = locale
