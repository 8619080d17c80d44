"""Large HTML blocks (the widgets) kept out of the Markdown parser.

A macro registers its HTML here and puts a small placeholder in the Markdown; the build hook
(`on_post_page` in macros/build/build_hooks.py) swaps the placeholder for the HTML in the finished
page. The page comes out the same; the Markdown parser and the search index's HTML parser are
spared tens of kilobytes of tables (the widgets are not searchable text).
"""

from __future__ import annotations

import itertools
import re

_blocks: dict[str, str] = {}
_keys = itertools.count()
_PLACEHOLDER = re.compile(r'<div data-html-block="(\d+)"></div>')


def register(html: str) -> str:
    """Keep `html`; return the placeholder to put in the Markdown in its place."""
    key = str(next(_keys))
    _blocks[key] = html
    return f'<div data-html-block="{key}"></div>'


def restore(page_html: str) -> str:
    """The rendered page with every placeholder replaced by its HTML."""
    return _PLACEHOLDER.sub(lambda m: _blocks.pop(m.group(1)), page_html)


def expand(text: str) -> str:
    """`text` with every placeholder replaced by its HTML, keeping the blocks for `restore`."""
    return _PLACEHOLDER.sub(lambda m: _blocks[m.group(1)], text)
