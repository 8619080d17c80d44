"""mkdocs-macros entry point: load the catalog once per build, register the guide macros.

Importing this package loads nothing: `import macros.fitengine` runs this file first, and the
engine must come without the site (no YAML, JSON Schema, Babel or Jinja). The site's modules
are imported when mkdocs-macros calls `define_env`.
"""

from __future__ import annotations

from typing import Any


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
