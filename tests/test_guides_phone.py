"""The guides on a phone: a wide table keeps its first column in view while the rest scrolls,
every command block has Material's copy button, and the home page leads to the configurator."""

from __future__ import annotations

import pytest

from .test_site import LOCALES, PAGE_PATHS

pytestmark = pytest.mark.browser

PHONE = (390, 844)

PINNED = """() => Array.from(document.querySelectorAll('.md-typeset table:not([class])'))
  .map((table) => [table, table.closest('.md-typeset__scrollwrap') || table])
  // wider than its box (Material's padding around a table that fits scrolls it a few pixels)
  .filter(([table, scroller]) => table.getBoundingClientRect().width > scroller.clientWidth + 1)
  .map(([table, scroller]) => {
    const secondBefore = table.rows[0].cells[1].getBoundingClientRect().left;
    scroller.scrollLeft = scroller.scrollWidth;
    const box = scroller.getBoundingClientRect();
    const after = Array.from(table.rows, (row) => row.cells[0].getBoundingClientRect().left);
    const second = table.rows[0].cells[1].getBoundingClientRect().left;
    const background = getComputedStyle(table.rows[table.rows.length - 1].cells[0]).backgroundColor;
    return {after, left: box.left, second, secondBefore, background, scrolled: scroller.scrollLeft};
  })"""


@pytest.mark.parametrize("locale", LOCALES)
def test_a_wide_guide_table_keeps_its_first_column_in_view(browser, server, locale):
    context = browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]})
    page = context.new_page()
    page.goto(f"{server}/{locale}/{PAGE_PATHS['nvlink'][locale]}")
    tables = page.evaluate(PINNED)
    assert len(tables) >= 3, tables  # the NVLink guide has several tables wider than a phone
    for table in tables:
        assert table["scrolled"] > 0
        # Scrolled to its end, each row's first cell is still at its box's left edge...
        assert all(abs(a - table["left"]) <= 1.5 for a in table["after"]), table
        # ...while the columns after it moved under it, over an opaque background.
        assert table["second"] < table["secondBefore"] - 1, table
        assert table["background"] not in ("rgba(0, 0, 0, 0)", "transparent"), table
    context.close()


@pytest.mark.parametrize("locale", LOCALES)
def test_every_command_block_has_a_copy_button(browser, server, locale):
    context = browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]})
    page = context.new_page()
    blocks = 0
    for key in ("nvlink", "image-video", "quantization", "moe", "methodology"):
        page.goto(f"{server}/{locale}/{PAGE_PATHS[key][locale]}")
        page.wait_for_selector("body")
        found = page.evaluate(
            "() => Array.from(document.querySelectorAll('.md-typeset pre > code'), (code) => {"
            " const b = code.closest('pre').querySelector('[data-md-type=copy]');"
            " const r = b ? b.getBoundingClientRect() : null;"
            " return b ? [b.getAttribute('title'), r.width, r.height] : null; })"
        )
        blocks += len(found)
        assert all(f and f[0] and f[1] >= 24 and f[2] >= 24 for f in found), (key, found)
    assert blocks >= 1
    context.close()


@pytest.mark.parametrize("locale", LOCALES)
def test_the_home_page_leads_to_the_configurator(browser, server, locale):
    context = browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]})
    page = context.new_page()
    page.goto(f"{server}/{locale}/")
    button = page.locator(f'.md-content a.md-button--primary[href$="{PAGE_PATHS["configurator"][locale]}"]')
    assert button.count() == 1
    # In the first screen of a phone, before the table of guides.
    box = button.bounding_box()
    assert box and box["y"] + box["height"] <= PHONE[1] and box["height"] >= 24, box
    table = page.locator(".md-content table").first.bounding_box()
    assert table is None or table["y"] > box["y"]
    button.click()
    page.wait_for_url(f"**/{locale}/{PAGE_PATHS['configurator'][locale]}")
    context.close()


@pytest.mark.parametrize("locale", LOCALES)
def test_the_first_token_chart_reads_on_a_phone(browser, server, locale):
    """The NVLink guide's build-time chart keeps its labels at a legible size at 390 px (it
    scrolls sideways in its own box) and never widens the page."""
    context = browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]})
    page = context.new_page()
    page.goto(f"{server}/{locale}/{PAGE_PATHS['nvlink'][locale]}")
    sizes = page.eval_on_selector_all(
        "svg.chart text.chart__tick", "els => els.map((el) => el.getBoundingClientRect().height)"
    )
    assert sizes and min(sizes) >= 10, sizes  # 11 px labels drawn at least at 10 px on screen
    box = page.eval_on_selector(
        ".chart-figure__scroll", "el => [el.scrollWidth, el.clientWidth, el.tabIndex, el.getAttribute('aria-label')]"
    )
    assert box[0] > box[1] and box[2] == 0 and box[3], box
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    context.close()
