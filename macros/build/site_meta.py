"""What each locale's pages tell readers' browsers and search engines about themselves.

Called from the build hooks' `on_config`: sets `site_url` to <extra.site_url><locale>/ (the
SITE_URL environment variable overrides `extra.site_url`), from which MkDocs writes canonical
links and the sitemap, and hands overrides/main.html what it needs for hreflang alternates and
Open Graph tags. The preview (`mkdocs serve`) keeps no site_url: MkDocs would serve it under
that path.
"""

from __future__ import annotations

import os
from typing import Any

from macros.i18n import SITE
from macros.locales import codes

SOCIAL_IMAGE = "assets/images/social-card.png"  # 1200 x 630, the size link previews expect
# The policy every page states in a <meta http-equiv> (README's Hosting section asks hosts to
# send the same header): nothing from another host, no inline script or style, and WebAssembly
# compiled for Pyodide (its workers fall back to script-src). The preview (`mkdocs serve`) states
# none: its live reload is an inline script.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:"
)


def site_root_url(config: Any) -> str:
    """The address the site (every locale) is served at, ending in a slash."""
    return (os.environ.get("SITE_URL") or config["extra"]["site_url"]).rstrip("/") + "/"


def configured_root_url() -> str:
    """site_root_url, read from mkdocs.yml outside a build (for the files at the site's root)."""
    import yaml

    from macros.locales import BASE_CONFIG

    return site_root_url(yaml.safe_load(BASE_CONFIG.read_text(encoding="utf-8")))


def og_locale(code: str) -> str:
    """Open Graph's language_TERRITORY form of a language code: fr -> fr_FR (CLDR's likely region)."""
    from babel.core import get_global

    likely = get_global("likely_subtags").get(code, code).split("_")
    return f"{likely[0]}_{likely[-1]}" if len(likely) > 1 else code


def configure(config: Any, serving: bool) -> None:
    """Set this locale's site_url (not in the preview) and the values overrides/main.html reads."""
    locale = config["theme"]["language"]
    root = site_root_url(config)
    if not serving:
        config["site_url"] = f"{root}{locale}/"
    extra = config["extra"]
    extra["site_root_url"] = root
    extra["og_locale"] = og_locale(locale)
    extra["og_locale_alternates"] = [og_locale(code) for code in codes() if code != locale]
    extra["social_image"] = SOCIAL_IMAGE
    extra["words"] = SITE[locale]
    extra["serving"] = serving  # the preview serves one locale: no switcher to the others
    extra["content_security_policy"] = CONTENT_SECURITY_POLICY
