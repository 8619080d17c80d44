"""Numbers, prices, units and percentages written the way the page's locale writes them (Babel)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, lru_cache

from babel import Locale
from babel.numbers import NumberPattern, format_percent, get_decimal_symbol, get_group_symbol, parse_pattern

from macros.fitengine.numbers import fixed, rounded
from macros.fitengine.reasons import Messages
from macros.messages import Localized


@cache
def _locale(code: str) -> Locale:
    return Locale.parse(code)


@cache
def _decimal_pattern(digits: int) -> NumberPattern:
    return parse_pattern("#,##0" + ("." + "0" * digits if digits else ""))


@lru_cache(maxsize=65536)
def _number(locale: str, digits: int, value: float) -> str:
    # Tables repeat the same figures (capacities, reserves, prices) across nodes and locales.
    # Rounded first as the browser rounds (see fitengine/numbers.py); Babel then only writes it,
    # or the engine's own writer with the locale's symbols where it writes what Babel does.
    separators = _separators(locale)
    if separators is not None and math.isfinite(value):
        return fixed(value, digits, *separators)
    return _babel_number(locale, digits, value)


def _babel_number(locale: str, digits: int, value: float) -> str:
    return _decimal_pattern(digits).apply(rounded(value, digits), _locale(locale))


# Figures the engine's writer is checked on before it stands in for Babel's: signs, zeros,
# ties, groups, the largest and smallest a page writes.
_SAMPLES = (0.0, -0.0, 0.05, 0.25, 0.35, -0.35, 1.005, 2.675, 999.95, 1234.5, -1234.5, 12345.678, 1e9 + 0.5, 3e-7)


@cache
def _separators(locale: str) -> tuple[str, str] | None:
    """The locale's group and decimal symbols, when `numbers.fixed` with them writes every sample
    as Babel does (a thousand times sooner); None where one differs (a locale that groups
    otherwise, or writes its minus sign its own way)."""
    code = _locale(locale)
    separators = (get_group_symbol(code), get_decimal_symbol(code))
    same = all(
        fixed(value, digits, *separators) == _babel_number(locale, digits, value)
        for value in _SAMPLES
        for digits in range(4)
    )
    return separators if same else None


@cache
def _currency_pattern(code: str, cents: bool) -> NumberPattern:
    pattern = _locale(code).currency_formats["standard"].pattern
    return parse_pattern(pattern if cents else pattern.replace(".00", ""))


@lru_cache(maxsize=65536, typed=True)
def _usd(locale: str, cents: bool, value: float) -> str:
    # The same prices recur across a page's tables, and across the preview's rebuilds (an edit of
    # one node's price leaves the others' as they were).
    return _currency_pattern(locale, cents).apply(
        rounded(value, 2 if cents else 0), _locale(locale), currency="USD", currency_digits=cents
    )


# Byte units as each locale writes them (French: octet; the words in the message catalogs,
# macros/messages.py); other units are the same everywhere.
UNITS = Localized(Messages("units", {"GB": "GB", "GiB": "GiB", "GB/s": "GB/s", "MiB": "MiB", "KiB": "KiB", "TB": "TB"}))


@dataclass(frozen=True)
class Formatter:
    """All number formatting for one locale; the locale comes from the build, never from the page."""

    locale: str

    def number(self, value: float, digits: int = 0) -> str:
        return _number(self.locale, digits, value)

    def sig(self, value: float) -> str:
        """A figure with the digits it deserves: 3 significant for small values, whole beyond 100."""
        magnitude = abs(value)
        digits = 0 if magnitude >= 100 else 1 if magnitude >= 10 else 2 if magnitude >= 0.1 else 3
        return self.number(value, digits)

    def brief(self, value: float) -> str:
        """A figure a reader set (12.5, 2, 0.45): the fewest decimals, up to two, that write it."""
        two = round(value, 2)
        digits = 0 if two == round(two) else 1 if round(two, 1) == two else 2
        return self.number(value, digits)

    def usd(self, value: float, cents: bool = False) -> str:
        return _usd(self.locale, cents, value)

    def percent(self, value: float) -> str:
        return format_percent(value, locale=self.locale)

    def unit(self, value: float, unit: str, digits: int = 0) -> str:
        """A figure and its unit, joined by a no-break space, in the locale's units (`1,935 GB/s`, `1 935 Go/s`)."""
        return f"{self.number(value, digits)}\u00a0{UNITS.get(self.locale, {}).get(unit, unit)}"
