"""The one exception the engine raises: bad input, said in words a reader can act on."""

from __future__ import annotations

from typing import Any


class EngineError(ValueError):
    """A workload or model description the engine cannot use; the message names what and where.

    `code` and `params`, when given, let a page say the same in its own language (the words live
    with the other translations, e.g. macros/i18n.py's `err_<code>`); the message stays English.
    """

    def __init__(self, message: str, code: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params
