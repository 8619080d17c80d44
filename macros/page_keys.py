"""Every page names its key, and every key leads to the page's counterpart in every locale.

The language switcher, the hreflang links and the sitemaps send a reader from a page to its
counterpart through `extra.page_paths` of mkdocs.yml and the page's `key:` front matter. A page
without a key, with a key mkdocs.yml does not know, or whose counterpart is missing in another
locale would send readers to a page that does not exist: the build stops and names the page.
"""

from __future__ import annotations

import logging
from typing import Any

from mkdocs.exceptions import PluginError

from macros.locales import ROOT, locales

log = logging.getLogger("mkdocs.plugins.page_keys")


def check_page(page: Any, config: Any) -> None:
    """Raise PluginError (and log it) naming the page if its key or a counterpart is missing."""
    problem = _problem(page, config)
    if problem:
        message = f"{page.file.src_uri}: {problem}"
        log.error(message)
        raise PluginError(message)


def _problem(page: Any, config: Any) -> str | None:
    locale = config["theme"]["language"]
    paths = config["extra"]["page_paths"]
    key = (page.meta or {}).get("key")
    if not key:
        return f"no `key:` in its front matter; name one of extra.page_paths in mkdocs.yml ({', '.join(paths)}) or add its own there"
    if key not in paths:
        return f"key {key!r} is not in extra.page_paths of mkdocs.yml; known keys: {', '.join(paths)}"
    if paths[key].get(locale) != page.url:
        return f"extra.page_paths.{key}.{locale} is {paths[key].get(locale)!r}, but this page is served at {page.url!r}"
    for other in locales():
        if other.code == locale:
            continue
        path = paths[key].get(other.code)
        if path is None:
            return f"extra.page_paths.{key} has no {other.code} path: this page has no counterpart in {other.code}"
        counterpart = other.docs_dir / f"{path.rstrip('/') or 'index'}.md"
        if not counterpart.is_file():
            return f"no counterpart in {other.code}: {counterpart.relative_to(ROOT)} (extra.page_paths.{key}.{other.code}) does not exist"
    return None
