"""The build-time answers: every catalog model in every format at the default context and
concurrency, computed once per catalog in a build process (the locales share them; only the
reason sentences are rendered per locale)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from macros.build.engine_cache import catalog_for, raw_answer
from macros.fitengine import EngineError


def raw_answers(data: dict[str, Any], formats: Collection[str] | None = None) -> dict[str, dict[str, Any]]:
    """model id -> format id -> raw answer; `data` is the validated catalog (read_catalog's);
    in every format, or in `formats` alone (the build shares them out: macros/build/answers_beside.py).

    Each answer comes from macros/build/engine_cache.py: computed once while the catalog is unchanged,
    shared with the configurators that show the same model and format.
    """
    catalog = catalog_for(data)
    answers: dict[str, dict[str, Any]] = {}
    for model in [*catalog.llms, *catalog.diffusion]:
        answers[model] = {}
        for fmt_id in catalog.formats:
            if formats is not None and fmt_id not in formats:
                continue
            try:
                answers[model][fmt_id] = raw_answer(catalog, {"model": model, "format": fmt_id})
            except EngineError:
                continue
    return answers
