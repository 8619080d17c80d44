"""Numbers, prices, units and percentages written the way the page's locale writes them (Babel)."""

from __future__ import annotations

from dataclasses import dataclass

from babel import Locale
from babel.numbers import format_currency, format_decimal, format_percent


@dataclass(frozen=True)
class Formatter:
    """All number formatting for one locale; the locale comes from the build, never from the page."""

    locale: str

    def number(self, value: float, digits: int = 0) -> str:
        pattern = "#,##0" + ("." + "0" * digits if digits else "")
        return format_decimal(value, format=pattern, locale=self.locale)

    def sig(self, value: float) -> str:
        """A figure with the digits it deserves: 3 significant for small values, whole beyond 100."""
        magnitude = abs(value)
        digits = 0 if magnitude >= 100 else 1 if magnitude >= 10 else 2 if magnitude >= 0.1 else 3
        return self.number(value, digits)

    def usd(self, value: float, cents: bool = False) -> str:
        pattern = Locale.parse(self.locale).currency_formats["standard"].pattern
        if not cents:
            pattern = pattern.replace(".00", "")
        return format_currency(value, "USD", format=pattern, currency_digits=cents, locale=self.locale)

    def percent(self, value: float) -> str:
        return format_percent(value, locale=self.locale)

    def unit(self, value: float, unit: str, digits: int = 0) -> str:
        """A figure and its unit, joined by a no-break space (both locales write `1,935 GB/s`)."""
        return f"{self.number(value, digits)}\u00a0{unit}"
