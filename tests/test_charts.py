"""The build-time SVG charts (macros/render/charts.py): named and described for screen readers, drawn
without inline styles or scripts (the CSP forbids both), on logarithmic axes, labels apart."""

from __future__ import annotations

import itertools
import math
import re

import pytest

from macros.render.charts import HEIGHT, LABEL_GAP, Series, _log_ticks, _spread, line_chart


def chart(series):
    return line_chart(
        series,
        chart_id="c1",
        title="Title <&>",
        description="What it shows",
        x_label="x",
        y_label="y",
        x_tick=str,
        y_tick=str,
        x_ticks=[1, 10, 100],
    )


def test_log_ticks_are_one_two_five_per_decade():
    assert _log_ticks(0.1, 100) == [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100]
    assert _log_ticks(1, 1) == [1]


def test_labels_are_moved_apart_and_keep_their_order():
    placed = _spread([100.0, 101.0, 102.0, 300.0], LABEL_GAP, 0, 400)
    assert placed[1] - placed[0] >= LABEL_GAP and placed[2] - placed[1] >= LABEL_GAP
    assert placed[3] == 300.0
    # Crowded at the bottom edge: pushed up, still apart, none below the edge.
    placed = _spread([399.0, 399.5, 400.0], LABEL_GAP, 0, 400)
    assert (
        max(placed) <= 400
        and sorted(placed) == placed
        and min(b - a for a, b in itertools.pairwise(placed)) >= LABEL_GAP
    )


def test_the_svg_is_named_described_and_has_no_inline_style_or_script():
    svg = chart([Series("a", ((1, 0.5), (100, 40.0))), Series("b", ((1, 0.3), (100, 20.0)), dashed=True, group=1)])
    assert 'role="img"' in svg and 'aria-labelledby="c1-title c1-desc"' in svg
    assert (
        '<title id="c1-title">Title &lt;&amp;&gt;</title>' in svg and '<desc id="c1-desc">What it shows</desc>' in svg
    )
    assert "style=" not in svg and "<script" not in svg.lower() and "on" + "load" not in svg
    assert svg.count("<polyline") == 2 and "chart__line--dashed chart__group-1" in svg


def test_a_constant_factor_is_a_constant_gap_on_a_log_axis():
    svg = chart([Series("a", ((1, 1.0), (10, 10.0), (100, 100.0))), Series("b", ((1, 2.0), (10, 20.0), (100, 200.0)))])
    lines = re.findall(r'<polyline [^>]*points="([^"]+)"', svg)
    ys = [[float(p.split(",")[1]) for p in line.split()] for line in lines]
    gaps = [a - b for a, b in zip(ys[0], ys[1], strict=True)]
    assert max(gaps) - min(gaps) < 0.2 and all(0 <= y <= HEIGHT for y in ys[0] + ys[1])
    assert gaps[0] == pytest.approx(math.log10(2) / 3 * (HEIGHT - 16 - 48), abs=0.2)  # 3 decades over the plot


def test_points_that_cannot_sit_on_a_log_axis_are_refused():
    with pytest.raises(ValueError, match="positive"):
        chart([Series("a", ((1, 0.0), (10, 1.0)))])
