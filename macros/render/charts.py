"""Line charts drawn at build time as inline SVG: standard library only, no script, no style
attribute (the site's Content Security Policy allows neither inline scripts nor inline styles;
colors come from classes in overrides/assets/stylesheets/site.css).

Both axes are logarithmic: the charts show how a time grows with a size, where a constant
factor between two series reads as a constant gap. Each series is labelled at its end, so the
chart needs no legend; the caller supplies the text alternative (title, description, table).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

WIDTH, HEIGHT = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 56, 150, 16, 48  # margins: tick labels left, series labels right
LABEL_GAP = 14  # the least vertical distance between two series labels, in SVG units
_MANTISSAS = (1, 2, 5)


@dataclass(frozen=True)
class Series:
    """One line: its label, the points (x, y) with both positive, whether it is dashed, and its
    color group (series of one group share a color: chart__group-N in site.css)."""

    label: str
    points: tuple[tuple[float, float], ...]
    dashed: bool = False
    group: int = 0


def _log_ticks(low: float, high: float) -> list[float]:
    """1, 2, 5 times each power of ten between low and high."""
    ticks = []
    for exponent in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for mantissa in _MANTISSAS:
            value = mantissa * 10.0**exponent
            if low * (1 - 1e-9) <= value <= high * (1 + 1e-9):
                ticks.append(value)
    return ticks


def _spread(positions: list[float], gap: float, low: float, high: float) -> list[float]:
    """Label positions moved apart to at least `gap`, in their order, kept within [low, high]."""
    order = sorted(range(len(positions)), key=lambda i: positions[i])
    placed = [positions[i] for i in order]
    for k in range(1, len(placed)):
        placed[k] = max(placed[k], placed[k - 1] + gap)
    overflow = placed[-1] - high if placed else 0
    if overflow > 0:
        placed = [p - overflow for p in placed]
        for k in range(len(placed) - 2, -1, -1):
            placed[k] = min(placed[k], placed[k + 1] - gap)
    placed = [max(p, low) for p in placed]
    out = [0.0] * len(positions)
    for k, i in enumerate(order):
        out[i] = placed[k]
    return out


def line_chart(
    series: Sequence[Series],
    *,
    chart_id: str,
    title: str,
    description: str,
    x_label: str,
    y_label: str,
    x_tick: Callable[[float], str],
    y_tick: Callable[[float], str],
    x_ticks: Sequence[float],
) -> str:
    """An SVG line chart with logarithmic axes, named by `title` and described by `description`."""
    xs = [x for s in series for x, _ in s.points]
    ys = [y for s in series for _, y in s.points]
    if not xs or min(xs) <= 0 or min(ys) <= 0:
        raise ValueError("a logarithmic chart needs points with positive x and y")
    x_low, x_high = min(xs), max(xs)
    y_low = 10.0 ** math.floor(math.log10(min(ys)))
    y_high = 10.0 ** math.ceil(math.log10(max(ys)))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        span = math.log(x_high) - math.log(x_low) or 1.0
        return LEFT + (math.log(x) - math.log(x_low)) / span * plot_w

    def py(y: float) -> float:
        return TOP + (math.log(y_high) - math.log(y)) / (math.log(y_high) - math.log(y_low)) * plot_h

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="{chart_id}-title {chart_id}-desc" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{chart_id}-title">{escape(title)}</title>',
        f'<desc id="{chart_id}-desc">{escape(description)}</desc>',
    ]
    for y in _log_ticks(y_low, y_high):
        parts.append(f'<line class="chart__grid" x1="{LEFT}" x2="{LEFT + plot_w}" y1="{py(y):.1f}" y2="{py(y):.1f}"/>')
        parts.append(
            f'<text class="chart__tick" x="{LEFT - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{escape(y_tick(y))}</text>'
        )
    for x in x_ticks:
        parts.append(f'<line class="chart__grid" x1="{px(x):.1f}" x2="{px(x):.1f}" y1="{TOP}" y2="{TOP + plot_h}"/>')
        parts.append(
            f'<text class="chart__tick" x="{px(x):.1f}" y="{TOP + plot_h + 16}" text-anchor="middle">'
            f"{escape(x_tick(x))}</text>"
        )
    parts.append(
        f'<text class="chart__axis" x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 8}" text-anchor="middle">'
        f"{escape(x_label)}</text>"
    )
    parts.append(
        f'<text class="chart__axis" x="14" y="{TOP + plot_h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {TOP + plot_h / 2:.1f})">{escape(y_label)}</text>'
    )
    ends = _spread([py(s.points[-1][1]) for s in series], LABEL_GAP, TOP + 4, TOP + plot_h)
    for s, end in zip(series, ends, strict=True):
        kind = "chart__line chart__line--dashed" if s.dashed else "chart__line"
        points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in s.points)
        parts.append(f'<polyline class="{kind} chart__group-{s.group}" points="{points}"/>')
        for x, y in s.points:
            parts.append(f'<circle class="chart__dot chart__group-{s.group}" cx="{px(x):.1f}" cy="{py(y):.1f}" r="3"/>')
        parts.append(
            f'<text class="chart__label chart__group-{s.group}" x="{LEFT + plot_w + 8}" y="{end + 4:.1f}">'
            f"{escape(s.label)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)
