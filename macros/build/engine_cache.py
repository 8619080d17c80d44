"""The engine's answers, computed once per catalog in a build process and shared.

The engine is pure: one catalog and one request give one answer, whatever the locale (only the
words and the number formatting differ, and they are added after). A site build asks the same
questions many times: each locale's guides, the configurators, the build-time answers; and
`mkdocs serve` asks them all again after every edit. This keeps the answers of the current
catalog, so each is computed once per process.

The key is the catalog's data itself (what `read_catalog` returns, read again when a catalog file
changed): data that differs in any value drops every answer kept and builds a new `Catalog`, so
no figure of the old catalog can survive an edit. The answers handed
out are shared: callers read them and never modify them (the engine's results are frozen
dataclasses; a raw answer's dicts are copied by `with_reason_text` before words are added).

One thing outlives an edit of nodes' prices alone (the data equal once each node's
`price_month` is left out): each language model's answers before the nodes' prices
(`fitengine.fit.Unpriced`: verdict, layout, memory, speed), which the engine reads nothing of
the price to work out. The engine still evaluates every request afresh and prices every node
from the new catalog; it is only spared working out the rest again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from macros.fitengine import Catalog
from macros.fitengine.api import Evaluation
from macros.fitengine.api import evaluate as engine_evaluate
from macros.fitengine.api import raw_answer as engine_raw_answer
from macros.fitengine.fit import Unpriced

T = TypeVar("T")


class _Kept:
    """The answers of one catalog: its data (held, so that its identity is never reused), its
    `Catalog`, and the answers by request."""

    def __init__(self, data: dict[str, Any] | None, catalog: Catalog) -> None:
        self.data = data
        self.catalog = catalog
        self.evaluations: dict[Hashable, Evaluation] = {}
        self.raw: dict[Hashable, dict[str, Any]] = {}
        self.other: dict[Hashable, Any] = {}
        self.text = ""  # the data as JSON, to know equal data read again
        self.unpriced_text: str | None = None  # the same without the nodes' prices (None: not known)
        # By request: each node's answer before its price, kept while only prices change.
        self.unpriced: dict[Hashable, dict[str, Unpriced]] = {}


_kept: _Kept | None = None


def catalog_for(data: dict[str, Any]) -> Catalog:
    """The engine's `Catalog` for this validated data: one object while the data is the same.

    Data read again but equal to the kept one (an edit of a comment, a file saved unchanged)
    keeps the answers: they depend on the data alone.
    """
    global _kept
    if _kept is not None and _kept.data is data:
        return _kept.catalog
    text = _text(data)
    if _kept is None or _kept.text != text:
        before = _kept
        _kept = _Kept(data, Catalog.from_dict(data))
        _kept.text = text
        _kept.unpriced_text = _text(_without_prices(data))
        if before is not None and before.unpriced_text == _kept.unpriced_text:
            _kept.unpriced = before.unpriced  # only nodes' prices changed
    _kept.data = data
    return _kept.catalog


def _text(data: dict[str, Any]) -> str:
    """The data as JSON: equal only when every value and its type are (1, 1.0 and true differ)."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, allow_nan=False, default=repr)


def _without_prices(data: dict[str, Any]) -> dict[str, Any]:
    """The data with each node's `price_month` left out (what `fitengine.fit.unpriced_fit` never reads)."""
    nodes = data.get("nodes")
    if not isinstance(nodes, list):
        return data
    return {**data, "nodes": [{k: v for k, v in n.items() if k != "price_month"} for n in nodes]}


def _for(catalog: Catalog) -> _Kept:
    global _kept
    if _kept is None or _kept.catalog is not catalog:
        # A catalog built elsewhere (a test's): its answers are kept until another is asked about.
        _kept = _Kept(None, catalog)
    return _kept


def _key(request: dict[str, Any]) -> Hashable | None:
    """The request as a key: its set keys, values and their types (True is not 1, None is unset);
    None when a value cannot be a key (a reader's config.json)."""
    key = tuple(sorted((k, type(v).__name__, v) for k, v in request.items() if v is not None))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def evaluate(catalog: Catalog, request: dict[str, Any]) -> Evaluation:
    """`fitengine.api.evaluate`, once per catalog and request (an EngineError is raised each time)."""
    kept, key = _for(catalog), _key(request)
    if key is None:
        return engine_evaluate(catalog, request)
    found = kept.evaluations.get(key)
    if found is None:
        found = kept.evaluations[key] = engine_evaluate(catalog, request, kept.unpriced.setdefault(key, {}))
    return found


def raw_answer(catalog: Catalog, request: dict[str, Any]) -> dict[str, Any]:
    """`fitengine.api.raw_answer`, once per catalog and request; the caller must not modify it."""
    kept, key = _for(catalog), _key(request)
    if key is None:
        return engine_raw_answer(catalog, request)
    found = kept.raw.get(key)
    if found is None:
        # Its evaluations (the request's, and the other formats' and contexts' it suggests)
        # come from the kept ones too: the build-time answers ask each format of each model.
        found = kept.raw[key] = engine_raw_answer(catalog, request, ask=evaluate)
    return found


def kept(catalog: Catalog, key: Hashable, compute: Callable[[], T]) -> T:
    """`compute()`'s result, once per catalog and key: for what else the build derives from the
    catalog through the engine (the key names everything else it reads, file times included)."""
    kept = _for(catalog)
    if key not in kept.other:
        kept.other[key] = compute()
    return kept.other[key]
