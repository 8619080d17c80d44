"""The words of the theme's own pages, read by overrides/main.html and the site's scripts."""

from __future__ import annotations

from macros.fitengine.reasons import Messages
from macros.messages import Localized

# Words of the theme's own pages, read by overrides/main.html and the site's scripts.
SITE = Localized(
    Messages(
        "site",
        {
            "scroll_region": "Scrolling table",
            "scroll_region_named": "Scrolling table: {columns}",
            "not_found_title": "Page not found",
            "not_found_text": "This address leads to no page of the site: it may have moved, or been mistyped.",
            "not_found_home": "Back to the guides' home page",
        },
    ),
)
