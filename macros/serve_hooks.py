"""MkDocs hook for `mkdocs serve`: forget the imported `macros` package after each build.

mkdocs-macros imports the package once; without this, edits to macros/ (or to the engine)
would not show until the preview restarts. Listed under `hooks:` in mkdocs.yml.
"""

from __future__ import annotations

import sys
from typing import Any


def on_post_build(config: Any) -> None:
    for name in [m for m in sys.modules if m == "macros" or m.startswith("macros.")]:
        del sys.modules[name]
