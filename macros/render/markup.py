"""The one path by which text reaches a page: escaped unless it is markup the site built.

Catalog strings (names of cards, formats, runtimes and models, sources, explanations) are text:
whatever characters they hold, they read as typed and make no tag, attribute, link or emphasis,
whether they land in HTML or in the Markdown of a guide's table. `Markup` marks what the site
itself built from such pieces (a code span, a citation, a cell joining them); `markup()` fills
a template of the site's own with values, escaping every one that is not Markup already.
"""

from __future__ import annotations

import re
from html import escape

# Every character the site's Markdown (tables, attr_list, md_in_html) or HTML would read as
# markup becomes an entity: a table cell passes raw HTML through, `[`…`]` make links and images,
# `*` and `_` emphasis, backticks code, braces attribute lists, `|` a new cell, `\\` escapes.
_TEXT_ENTITIES = {c: f"&#{ord(c)};" for c in "&<>[]*_`\\{}|"}
_ID = re.compile(r"^[A-Za-z0-9._-]+$")


class Markup(str):
    """Text already safe to put in a page as it is: built by the helpers below."""

    __slots__ = ()


def text(value: object) -> Markup:
    """A value as it reads, never as Markdown or HTML (no raw tags, no links of any scheme)."""
    if isinstance(value, Markup):
        return value
    return Markup("".join(_TEXT_ENTITIES.get(c, c) for c in str(value)))


def code(value: object) -> Markup:
    """A value as code: a Markdown code span for an id, an HTML <code> element otherwise."""
    shown = str(value)
    return Markup(f"`{shown}`" if _ID.match(shown) else f"<code>{escape(shown)}</code>")


def markup(template: str, *args: object, **kwargs: object) -> Markup:
    """The site's own template (str.format) filled with values, each escaped unless it is Markup."""
    return Markup(template.format(*map(text, args), **{k: text(v) for k, v in kwargs.items()}))
