"""Numbers read the same wherever they are written: Babel at build time, the engine's formatter
in the browser's worker, and `Intl.NumberFormat` in the widget.

The reference is `Intl.NumberFormat` itself, run by Node (the same V8 and ICU as Chromium).
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from macros.fitengine.numbers import fixed
from macros.render.locale_format import Formatter

INTL = """
const [values, locales] = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = {};
for (const locale of locales) {
  out[locale] = {};
  for (const digits of [0, 1, 2]) {
    const number = new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits });
    out[locale][digits] = values.map((v) => number.format(v));
  }
  for (const cents of [false, true]) {
    const digits = cents ? 2 : 0;
    const usd = new Intl.NumberFormat(locale, { style: "currency", currency: "USD", minimumFractionDigits: digits, maximumFractionDigits: digits });
    out[locale]["usd" + digits] = values.map((v) => usd.format(v));
  }
}
process.stdout.write(JSON.stringify(out));
"""

SEPARATORS = {"fr": ("\u202f", ","), "en": (",", ".")}


def values() -> list[float]:
    rng = random.Random(20261129)
    ties = (
        [k / 100 + 0.005 for k in range(0, 400)] + [k / 10 + 0.05 for k in range(0, 400)] + [k + 0.5 for k in range(50)]
    )
    spread = [rng.uniform(0, 10 ** rng.randint(0, 7)) for _ in range(600)]
    edges = [0.0, 0.25, 0.35, 1.05, 1.15, 2.675, 999.95, 999.5, 9999.95, 1234567.25, 0.0001, 98765432.1]
    return edges + ties + spread


@pytest.fixture(scope="module")
def intl() -> dict:
    node = shutil.which("node")
    assert node, "these tests compare with Intl.NumberFormat and need Node (installed with npm for `make test`)"
    run = subprocess.run(
        [node, "-e", INTL], input=json.dumps([values(), list(SEPARATORS)]), capture_output=True, text=True, check=True
    )
    return json.loads(run.stdout)


@pytest.mark.parametrize("locale", SEPARATORS)
@pytest.mark.parametrize("digits", [0, 1, 2])
def test_engine_formatter_writes_what_intl_writes(intl, locale, digits):
    group, decimal = SEPARATORS[locale]
    got = [fixed(v, digits, group, decimal) for v in values()]
    want = intl[locale][str(digits)]
    assert [(v, g, w) for v, g, w in zip(values(), got, want, strict=True) if g != w] == []


@pytest.mark.parametrize("locale", SEPARATORS)
@pytest.mark.parametrize("digits", [0, 1, 2])
def test_build_formatter_writes_what_intl_writes(intl, locale, digits):
    f = Formatter(locale)
    got = [f.number(v, digits) for v in values()]
    want = intl[locale][str(digits)]
    assert [(v, g, w) for v, g, w in zip(values(), got, want, strict=True) if g != w] == []


@pytest.mark.parametrize("locale", SEPARATORS)
@pytest.mark.parametrize("cents", [False, True])
def test_build_prices_are_written_as_intl_writes_them(intl, locale, cents):
    f = Formatter(locale)
    got = [f.usd(v, cents) for v in values()]
    want = intl[locale]["usd2" if cents else "usd0"]
    assert [(v, g, w) for v, g, w in zip(values(), got, want, strict=True) if g != w] == []


def test_ties_round_away_from_zero():
    # Where Babel alone would round to even (0.2, 1.0): the browser's rule wins everywhere.
    assert [fixed(v, 1) for v in (0.25, 1.05, 0.35)] == ["0.3", "1.1", "0.4"]
    assert [Formatter("en").number(v, 1) for v in (0.25, 1.05, 0.35)] == ["0.3", "1.1", "0.4"]


HUGE = [1e26, 1e27, 4.2e27, 1.5e100, 1e300, -1e300, 1.7976931348623157e308, 5e-324, 123456789012345678901234567890.0]


@pytest.mark.parametrize("locale", SEPARATORS)
def test_the_engine_writes_any_finite_float_as_intl_does(locale):
    # A pasted busbw of 1e27 stopped the measure panel: Decimal's default 28 digits could not
    # hold it. Intl writes every finite float in full.
    node = shutil.which("node")
    assert node, "this test compares with Intl.NumberFormat and needs Node"
    run = subprocess.run(
        [node, "-e", INTL], input=json.dumps([HUGE, [locale]]), capture_output=True, text=True, check=True
    )
    want = json.loads(run.stdout)[locale]
    group, decimal = SEPARATORS[locale]
    for digits in (0, 1, 2):
        assert [fixed(v, digits, group, decimal) for v in HUGE] == want[str(digits)]


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_the_builds_quick_writer_writes_what_babel_writes(locale):
    """The build writes a figure with the engine's writer and the locale's symbols once they
    matched Babel's pattern on a few samples (locale_format._separators); over many more figures
    it still writes what Babel's pattern writes."""
    from macros.render.locale_format import _babel_number, _separators

    assert _separators(locale) is not None
    rng = random.Random(7)
    values = [rng.uniform(-1e7, 1e7) for _ in range(2000)] + [rng.expovariate(1) for _ in range(2000)]
    values += [round(v, 3) for v in values[:500]] + [k / 1000 for k in range(-2000, 2000)]
    fmt = Formatter(locale)
    for digits in range(4):
        for value in values:
            assert fmt.number(value, digits) == _babel_number(locale, digits, value), (value, digits)
