"""MkDocs hook used by the benchmark: save each page's Markdown after the macros have run.

The benchmark then builds those files with a bare Material configuration, which measures what
the macros and the hooks cost on top of Material alone.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    target = Path(os.environ["BENCH_DUMP_DIR"]) / config["theme"]["language"] / page.file.src_uri
    target.parent.mkdir(parents=True, exist_ok=True)
    from macros.render.html_blocks import expand

    # The widgets' HTML goes into the bare pages too: the same pages, macro output pasted in.
    target.write_text(expand(markdown), encoding="utf-8")
    return markdown
