"""Ship lunr-languages' French support beside the site's own wrapper of it.

overrides/assets/javascripts/lunr/min/lunr.fr.min.js takes the place of Material's copy (the
search worker loads it by that name) and loads the original under another name: this copies
that original, byte for byte, from the installed theme into the built site.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

LUNR = Path("assets") / "javascripts" / "lunr" / "min"
ORIGINAL, SHIPPED_AS = "lunr.fr.min.js", "lunr.fr.vendor.min.js"


def theme_original(config: Any) -> Path:
    """Material's own lunr.fr.min.js: the last theme folder that has one (custom_dir comes first)."""
    found = [Path(d) / LUNR / ORIGINAL for d in config["theme"].dirs if (Path(d) / LUNR / ORIGINAL).is_file()]
    return found[-1]


def ship_french_search(config: Any) -> None:
    target = Path(config["site_dir"]) / LUNR / SHIPPED_AS
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(theme_original(config), target)
