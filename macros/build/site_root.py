"""Write the files at the root of the built site: the language chooser, the 404 page, and the
sitemap index and robots.txt that lead search engines to each locale's sitemap.

Run after every locale is built: `python -m macros.build.site_root site`.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from xml.sax.saxutils import escape

from macros import locales as site_locales
from macros.build.site_meta import CONTENT_SECURITY_POLICY
from macros.i18n import SITE


def site_base() -> str:
    """The path the site is served under, from SITE_BASE (default `/`), with both slashes.

    Error pages are served at any depth, so their links must be absolute: `/fr/…` for a site at
    the host's root, `/guides/fr/…` for `SITE_BASE=/guides/`.
    """
    value = os.environ.get("SITE_BASE", "/").strip() or "/"
    if not re.fullmatch(r"/?[A-Za-z0-9._~/-]*", value) or "//" in value or "/../" in f"/{value}/":
        raise SystemExit(f"SITE_BASE must be a path such as /guides/, got {value[:60]!r}")
    return "/" + value.strip("/") + "/" if value.strip("/") else "/"


def locales() -> list[tuple[str, str]]:
    """(code, name) of every locale, the source language first."""
    return [(locale.code, locale.name) for locale in site_locales.locales()]


_PAGE = """<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>{title}</title>
{head}
</head>
<body>
<main>
<h1>{title}</h1>
<ul>
{links}
</ul>
</main>
</body>
</html>
"""

# Sends the reader to the locale their browser prefers; without JavaScript the links remain.
_CHOOSER = """(function () {{
  var available = {codes};
  var wanted = (navigator.languages || [navigator.language || ""]).map(function (l) {{ return l.slice(0, 2).toLowerCase(); }});
  for (var i = 0; i < wanted.length; i++) {{
    if (available.indexOf(wanted[i]) >= 0) {{ location.replace(wanted[i] + "/"); return; }}
  }}
  location.replace(available[0] + "/");
}})();
"""


def write_root(site: Path) -> None:
    every = locales()
    found = [(code, name) for code, name in every if (site / code / "index.html").is_file()]
    missing = [code for code, _ in every if (code, _) not in found]
    if missing:
        raise SystemExit(
            f"site_root: no built locale at {', '.join(str(site / c) for c in missing)}; build every locale first"
        )
    write_sitemap_index(site, [code for code, _ in found])
    codes = "[" + ", ".join(f'"{code}"' for code, _ in found) + "]"
    (site / "choose-language.js").write_text(_CHOOSER.format(codes=codes), encoding="utf-8")
    index_links = "\n".join(
        f'<li><a href="{code}/" hreflang="{code}" lang="{code}">{name}</a></li>' for code, name in found
    )
    head = '<script src="choose-language.js"></script>\n' + "\n".join(
        f'<link rel="alternate" href="{code}/" hreflang="{code}">' for code, _ in found
    )
    (site / "index.html").write_text(
        _PAGE.format(
            lang=found[0][0],
            csp=CONTENT_SECURITY_POLICY,
            title=" · ".join(dict.fromkeys(loc.site_name for loc in site_locales.locales())),
            head=head,
            links=index_links,
        ),
        encoding="utf-8",
    )
    base = site_base()
    missing_links = "\n".join(
        f'<li><a href="{base}{code}/" hreflang="{code}" lang="{code}">{name}</a></li>' for code, name in found
    )
    (site / "404.html").write_text(
        _PAGE.format(
            lang=found[0][0],
            csp=CONTENT_SECURITY_POLICY,
            title=" · ".join(dict.fromkeys(SITE[code]["not_found_title"] for code, _ in found)),
            head="",
            links=missing_links,
        ),
        encoding="utf-8",
    )


def write_sitemap_index(site: Path, codes: list[str]) -> None:
    from macros.build.site_meta import configured_root_url

    root = configured_root_url()
    entries = "\n".join(f"  <sitemap><loc>{escape(root + code)}/sitemap.xml</loc></sitemap>" for code in codes)
    (site / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{entries}\n</sitemapindex>\n",
        encoding="utf-8",
    )
    (site / "robots.txt").write_text(f"User-agent: *\nAllow: /\n\nSitemap: {root}sitemap.xml\n", encoding="utf-8")


if __name__ == "__main__":
    write_root(Path(sys.argv[1] if len(sys.argv) > 1 else "site"))
