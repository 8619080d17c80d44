"""Fixed-point numbers with a locale's separators, rounded the way browsers round them.

`Intl.NumberFormat` starts from the shortest decimal that reads back as the same float (what
`repr` gives: 0.35, not 0.34999999999999997779) and rounds ties away from zero: 0.25 gives 0.3,
0.35 gives 0.4. Babel starts from the same decimal but rounds ties to even (0.2, 0.4). The site
writes numbers in three places: Babel at build time, `Intl` in the widget, and the engine's
reason sentences in the browser's worker. All three round by the rule below, so that a figure
reads the same wherever it was written.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal


def rounded(value: float, digits: int) -> Decimal:
    """`value` rounded to `digits` decimals as `Intl.NumberFormat` rounds it."""
    return Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def fixed(value: float, digits: int, group: str = ",", decimal: str = ".") -> str:
    """`value` with `digits` decimals and groups of three digits (the Western grouping)."""
    return f"{rounded(value, digits):,f}".translate({ord(","): group, ord("."): decimal})


def fixed_formatter(digits: int, group: str, decimal: str) -> Callable[[float], str]:
    """A one-argument formatter for `reasons.render`."""
    return lambda value: fixed(value, digits, group, decimal)


__all__ = ["fixed", "fixed_formatter", "rounded"]
