"""The build-time answers: every catalog model in every format at the default context and
concurrency, computed once per catalog in a build process (the locales share them; only the
reason sentences are rendered per locale)."""

from __future__ import annotations

from typing import Any

from macros.fitengine import Catalog, EngineError
from macros.fitengine.api import raw_answer

_memo: dict[int, dict[str, dict[str, Any]]] = {}


def raw_answers(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """model id -> format id -> raw answer; `data` is the validated catalog (read_catalog's)."""
    if id(data) not in _memo:
        catalog = Catalog.from_dict(data)
        answers: dict[str, dict[str, Any]] = {}
        for model in [*catalog.llms, *catalog.diffusion]:
            answers[model] = {}
            for fmt_id in catalog.formats:
                try:
                    answers[model][fmt_id] = raw_answer(catalog, {"model": model, "format": fmt_id})
                except EngineError:
                    continue
        _memo.clear()
        _memo[id(data)] = answers
    return _memo[id(data)]
