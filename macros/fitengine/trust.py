"""How far to trust a figure: the error band validation measured for a setup like it.

Two sources, both written by the project's validation commands and read as data:

- catalog/validation/error_band.json (`python -m macros.sweeps --write`), from the measured sweep
  the catalog carries: per slice of the points the constants were not chosen on (by users per
  replica), the 10th and 90th percentiles of engine / measured time per token and time to first
  token. It speaks for the sweep's runtime and cards (`covers`): one replica without pipeline
  stages or data-parallel ranks, at a tensor-parallel size it measured, with no more users per
  replica than it measured.
- catalog/validation/silicon_band.json (`python -m macros.silicon --write`), from measured points
  of other cards the constants never saw: per card, model and format, the same percentiles over
  all its points, speaking for the tensor-parallel sizes and loads measured there.

A row's `speed_band` is what measured speeds were, as factors of the engine's (measured / engine
= engine time / measured time), and its `ttft_band` the same for the first token. A row no band
speaks for gets the sweep's overall band with `band_covered` false, so the page says the figure
is outside what was measured.
"""

from __future__ import annotations

from typing import Any

from .catalog import Runtime
from .layout import Layout


def load_slice(users: int) -> str:
    """The band's slice for `users` per replica (macros/sweeps.py writes the same names)."""
    return "load: 1-8 users" if users <= 8 else "load: 9-64 users" if users <= 64 else "load: over 64 users"


def trust(
    band: dict[str, Any] | None,
    runtime: Runtime,
    layout: Layout,
    per_replica: int,
    setup: tuple[str, str, str],
    cards: dict[str, Any] | None,
) -> dict[str, Any]:
    """speed_band, ttft_band (low, high factors; None without a band file) and band_covered, for a
    replica of `layout` serving `per_replica` users of (card, model, format) `setup`; `cards`: the
    other cards' bands (silicon_band.json), when the catalog has them."""
    none: dict[str, Any] = {"speed_band": None, "ttft_band": None, "band_covered": False}
    if not band:
        return none
    try:
        judged = band["judge"]["slices"]
        covers = band["covers"]
        one_replica = runtime.id == covers["runtime"] and layout.pp == 1 and layout.dp == 1
        covered = (
            one_replica
            and setup[0] in covers["gpus"]
            and layout.tp in covers["tensor_parallel"]
            and per_replica <= covers["max_concurrency"]
        )
        chosen = judged.get(load_slice(per_replica)) if covered else None
        if chosen is None and one_replica and cards:
            chosen = _card_band(cards, setup, layout, per_replica)
            covered = chosen is not None
        if chosen is None:
            chosen, covered = judged["all"], False
        tpot, ttft = chosen["tpot"], chosen["ttft"]
        speed_band = (float(tpot["p10"]), float(tpot["p90"]))
        ttft_band = (1 / float(ttft["p90"]), 1 / float(ttft["p10"]))
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return none  # a band file of another shape says nothing rather than something wrong
    return {"speed_band": speed_band, "ttft_band": ttft_band, "band_covered": covered}


def _card_band(cards: dict[str, Any], setup: tuple[str, str, str], layout: Layout, per_replica: int) -> Any:
    """The band of `setup` measured on its card, where it speaks for this layout and load."""
    for s in cards["setups"]:
        if (s["gpu"], s["model"], s["format"]) == setup:
            if layout.tp in s["tensor_parallel"] and per_replica <= s["max_concurrency"]:
                return s
            return None
    return None
