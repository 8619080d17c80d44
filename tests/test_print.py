"""A guide and the configurator's answer print on A4 with every column on the paper (Chromium's PDF)."""

from __future__ import annotations

import re

import pytest

from .test_site import LOCALES, PAGE_PATHS

pytestmark = pytest.mark.browser

MM = 96 / 25.4  # CSS pixels per millimetre
A4 = (210, 297)
MARGIN_X = 10  # mm, each side (site.css, @page)


def media_boxes(pdf: bytes) -> list[tuple[float, float]]:
    return [(float(w), float(h)) for w, h in re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)]


def overflowing(page, width_px: float) -> list[str]:
    """Tables (and their cells) that reach past the printable width, laid out as for print."""
    page.set_viewport_size({"width": round(width_px), "height": 1000})
    page.emulate_media(media="print")
    found = page.evaluate(
        r"""(width) => {
          const out = [];
          document.querySelectorAll('article table').forEach((table, i) => {
            const box = table.getBoundingClientRect();
            if (box.width === 0) return;  // not printed
            if (box.left < -0.5 || box.right > width + 0.5 || table.scrollWidth > Math.ceil(box.width) + 1) {
              out.push(`table ${i} (${table.className || 'guide'}): ${Math.round(box.left)}..${Math.round(box.right)} of ${Math.round(width)}, scroll ${table.scrollWidth}`);
            }
            table.querySelectorAll('th, td').forEach((cell) => {
              if (cell.getBoundingClientRect().right > width + 0.5) out.push(`table ${i}: a cell ends past the paper`);
              // No word cut across lines to squeeze a column (breaks at spaces and hyphens only).
              const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
              for (let text = walker.nextNode(); text; text = walker.nextNode()) {
                for (const match of text.data.matchAll(/[^\s\-\u2011]+/g)) {
                  const range = document.createRange();
                  range.setStart(text, match.index);
                  range.setEnd(text, match.index + match[0].length);
                  const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
                  if (lines.size > 1) out.push(`table ${i}: "${match[0]}" is cut across ${lines.size} lines`);
                }
              }
            });
          });
          return out;
        }""",
        width_px,
    )
    page.emulate_media(media="screen")
    return found


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("key", ["nvlink", "quantization", "catalog", "configurator"])
def test_pages_print_on_a4_without_cut_columns(browser, server, locale, key):
    page = browser.new_page()
    page.goto(f"{server}/{locale}/{PAGE_PATHS[key][locale]}")
    assert page.locator("article table").count() > 0
    pdf = page.pdf(format="A4", prefer_css_page_size=True)
    boxes = media_boxes(pdf)
    assert boxes, "no page in the PDF"
    points = [round(side / 25.4 * 72) for side in A4]
    for w, h in boxes:
        assert [round(w), round(h)] == points, (w, h)
    assert all(w < h for w, h in boxes), "A4 upright"
    assert overflowing(page, (A4[0] - 2 * MARGIN_X) * MM) == []
    page.close()
