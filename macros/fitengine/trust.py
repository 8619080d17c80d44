"""How far to trust a figure: the error band the validation measured for a setup like it.

The band comes from catalog/validation/error_band.json (written by `python -m macros.sweeps
--write` from measured serving sweeps the catalog carries): per slice of the points the
constants were not chosen on (by users per replica), the 10th and 90th percentiles of engine /
measured time per token and time to first token. A row's `speed_band` is what measured speeds
were, as factors of the engine's (measured / engine = engine time / measured time), and its
`ttft_band` the same for the first token (measured / engine).

A row is covered when its setup is one the sweep measured: its runtime, one replica without
pipeline stages or data-parallel ranks at a measured tensor-parallel size, and no more users per replica than were
measured. Elsewhere the overall band is given and `band_covered` is false, so the page says the
figure is outside what was measured.
"""

from __future__ import annotations

from typing import Any

from .catalog import Runtime
from .layout import Layout


def load_slice(users: int) -> str:
    """The band's slice for `users` per replica (macros/sweeps.py writes the same names)."""
    return "load: 1-8 users" if users <= 8 else "load: 9-64 users" if users <= 64 else "load: over 64 users"


def trust(band: dict[str, Any] | None, runtime: Runtime, layout: Layout, per_replica: int) -> dict[str, Any]:
    """speed_band, ttft_band (low, high factors; None without a band file) and band_covered."""
    none: dict[str, Any] = {"speed_band": None, "ttft_band": None, "band_covered": False}
    if not band:
        return none
    try:
        judged = band["judge"]["slices"]
        covers = band["covers"]
        covered = (
            runtime.id == covers["runtime"]
            and layout.pp == 1
            and layout.dp == 1  # the sweep measured no data-parallel attention
            and layout.tp in covers["tensor_parallel"]
            and per_replica <= covers["max_concurrency"]
        )
        chosen = judged.get(load_slice(per_replica)) if covered else None
        if chosen is None:
            chosen, covered = judged["all"], False
        tpot, ttft = chosen["tpot"], chosen["ttft"]
        speed_band = (float(tpot["p10"]), float(tpot["p90"]))
        ttft_band = (1 / float(ttft["p90"]), 1 / float(ttft["p10"]))
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return none  # a band file of another shape says nothing rather than something wrong
    return {"speed_band": speed_band, "ttft_band": ttft_band, "band_covered": covered}
