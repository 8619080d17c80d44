"""Check the ids a guide passes to a macro before the macro runs, and say what is wrong like the
catalog does: the page, the macro, the id and the ids that would do.

A misspelled id would otherwise surface as a bare KeyError deep in a table. The check goes by the
macro's parameter names (`node_id`, `model`, `fmt_id`, `gpu_id`, `link_id`, `key`…), so a new
macro that names its parameters the same way is checked without more code.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import logging
from collections.abc import Callable, Iterable
from typing import Any

from mkdocs.exceptions import PluginError

from macros.fitengine import Catalog

log = logging.getLogger("mkdocs.plugins.guide_macros")

# Parameter name -> what kind of id it takes.
KINDS = {
    "node_id": "node",
    "node": "node",
    "node_ids": "node",
    "model_id": "model",
    "model": "model",
    "model_ids": "model",
    "fmt_id": "format",
    "fmt": "format",
    "gpu_id": "GPU",
    "fast": "link",
    "slow": "link",
    "link_id": "link",
    "key": "assumption",
    "price_id": "API price",
    "timing_id": "image timing",
    "timing_ids": "image timing",
    "reference_id": "image timing",
}
FILES = {
    "node": "catalog/nodes.yaml",
    "model": "catalog/models.yaml",
    "format": "catalog/formats.yaml",
    "GPU": "catalog/gpus.yaml",
    "link": "catalog/interconnects.yaml",
    "assumption": "catalog/assumptions.yaml",
    "API price": "catalog/api_prices.yaml",
    "image timing": "catalog/image_timings.yaml",
}


def valid_ids(catalog: Catalog, data: dict[str, Any] | None = None) -> dict[str, list[str]]:
    """Every id a guide may name, by kind (`data`, the validated YAML, for what the engine does not read)."""
    return {
        "API price": [price["id"] for price in (data or {}).get("api_prices", [])],
        "image timing": [timing["id"] for timing in (data or {}).get("image_timings", [])],
        "node": [node.id for node in catalog.nodes],
        "model": [*catalog.llms, *catalog.diffusion],
        "format": list(catalog.formats),
        "GPU": list(catalog.gpus),
        "link": list(catalog.links),
        "assumption": [field.name for field in dataclasses.fields(catalog.assumptions)],
    }


class MacroError(PluginError):
    """A guide called a macro with an id the catalog does not have."""


def checked(
    name: str, function: Callable[..., str], ids: dict[str, list[str]], page: Callable[[], str]
) -> Callable[..., str]:
    """`function`, refusing an unknown id with a message naming the page, the macro and the valid ids."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def macro(*args: Any, **kwargs: Any) -> str:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise _fail(page(), name, f"{exc}; its parameters are {signature}") from None
        for parameter, value in bound.arguments.items():
            kind = KINDS.get(parameter)
            if kind is None:
                continue
            given: Iterable[Any] = value if isinstance(value, tuple) else (value,)
            for item in given:
                if item not in ids[kind]:
                    raise _fail(
                        page(),
                        name,
                        f"unknown {kind} id {item!r} (argument {parameter}); "
                        f"expected one of {FILES[kind]}: {', '.join(ids[kind])}",
                    )
        return function(*args, **kwargs)

    return macro


def _fail(page: str, name: str, what: str) -> MacroError:
    message = f"{page}: {name}(): {what}"
    log.error(message)
    return MacroError(message)
