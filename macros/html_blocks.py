"""Large HTML blocks (the widgets) kept out of the Markdown parser.

A macro registers its HTML here and puts a small placeholder in the Markdown; the build hook
(`on_page_content` in macros/build_hooks.py) swaps the placeholder for the HTML once Markdown
has run. The page comes out the same, and the parser is spared tens of kilobytes of tables.
"""

from __future__ import annotations

import re

_blocks: dict[str, str] = {}
_PLACEHOLDER = re.compile(r'<div data-html-block="(\d+)"></div>')


def register(html: str) -> str:
    """Keep `html`; return the placeholder to put in the Markdown in its place."""
    key = str(len(_blocks))
    _blocks[key] = html
    return f'<div data-html-block="{key}"></div>'


def restore(page_html: str) -> str:
    """The rendered page with every placeholder replaced by its HTML."""
    return _PLACEHOLDER.sub(lambda m: _blocks.pop(m.group(1)), page_html)


def expand(text: str) -> str:
    """`text` with every placeholder replaced by its HTML, keeping the blocks for `restore`."""
    return _PLACEHOLDER.sub(lambda m: _blocks[m.group(1)], text)
