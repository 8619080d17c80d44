"""Fixed-point numbers with a locale's separators, rounded the way browsers round them.

`Intl.NumberFormat` starts from the shortest decimal that reads back as the same float (what
`repr` gives: 0.35, not 0.34999999999999997779) and rounds ties away from zero: 0.25 gives 0.3,
0.35 gives 0.4. Babel starts from the same decimal but rounds ties to even (0.2, 0.4). The site
writes numbers in three places: Babel at build time, `Intl` in the widget, and the engine's
reason sentences in the browser's worker. All three round by the rule below, so that a figure
reads the same wherever it was written.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Context, Decimal

# Enough significant digits for the largest float (about 1.8e308) and the decimals shown: the
# default context's 28 made quantize fail from 1e27 on.
_EXACT = Context(prec=400, rounding=ROUND_HALF_UP)
MAX_DIGITS = 20  # decimals a caller may ask for


def rounded(value: float, digits: int) -> Decimal:
    """`value` rounded to `digits` decimals as `Intl.NumberFormat` rounds it."""
    digits = max(0, min(int(digits), MAX_DIGITS))
    return Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=_EXACT)


def fixed(value: float, digits: int, group: str = ",", decimal: str = ".") -> str:
    """`value` with `digits` decimals and groups of three digits (the Western grouping).

    Any finite float is written in full, as Intl writes it; infinities and NaN as Intl writes them
    (∞, -∞, NaN), so that a number never stops a sentence.
    """
    value = float(value)
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("-∞" if value < 0 else "∞")
    return f"{rounded(value, digits):,f}".translate({ord(","): group, ord("."): decimal})


def fixed_formatter(digits: int, group: str, decimal: str) -> Callable[[float], str]:
    """A one-argument formatter for `reasons.render`."""
    return lambda value: fixed(value, digits, group, decimal)


__all__ = ["fixed", "fixed_formatter", "rounded"]


def english(value: float) -> str:
    """A number as the engine's English sentences write it when the caller gives no formatter."""
    return f"{value:,.1f}"
