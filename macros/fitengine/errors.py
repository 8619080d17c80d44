"""The one exception the engine raises: bad input, said in words a reader can act on."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class EngineError(ValueError):
    """A workload or model description the engine cannot use; the message names what and where.

    `code` and `params`, when given, let a page say the same in its own language (the words live
    with the other translations, e.g. macros/i18n/widget.py's `err_<code>`, through the site's message
    catalogs); the message stays English.
    """

    def __init__(self, message: str, code: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


def shown(value: object, limit: int = 40) -> str:
    """A value as a message may quote it: short, and never the whole of a long or huge value."""
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        if abs(value) < 10**15:
            return str(value)
        return f"a whole number of about {int(value.bit_length() * 0.30103) + 1} digits"
    if isinstance(value, str):
        return repr(value[:limit]) + ("…" if len(value) > limit else "")
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)} items"
    if isinstance(value, dict):
        return f"an object of {len(value)} keys"
    return f"a {type(value).__name__}"


def unknown(what: str, value: object, choices: Iterable[str], limit: int = 40) -> EngineError:
    """The refusal of an id the catalog lacks: code `unknown_<what>`, with `<what>` (the value as
    quoted) and `choices` (the ids there are) as parameters, as the page's words expect them."""
    listed = ", ".join(choices)
    quoted = shown(value, limit)
    return EngineError(
        f"unknown {what} {quoted}; choose one of: {listed}", f"unknown_{what}", **{what: quoted, "choices": listed}
    )
