"""The configurator's table as a reader sees it: headers never cut at a desktop width, one card
per node on a phone with nothing wider than the screen, and each verdict's reason in a
disclosure under it rather than in a wide column."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from macros.fitengine import answer
from macros.fitengine.api import TABLE_COLUMNS
from macros.messages import engine_words
from macros.render.locale_format import Formatter

from .browser import AXE, wait_until
from .browser import open_page as open_browser_page
from .test_configurator import card, wait_ready
from .test_site import LOCALES

pytestmark = pytest.mark.browser

# The workload the page is opened at, and the request the engine is asked for it.
WORKLOAD = {"model": "llama-3.3-70b", "format": "bf16", "context": 8192, "concurrency": 20}
QUERY = f"?{urlencode(WORKLOAD)}"


def open_page(browser, server, locale, size, query=QUERY, **options):
    return open_browser_page(browser, server, locale, size, query, **options)


def settled(page, context_tokens):
    wait_ready(page)
    wait_until(lambda: card(page)["context"] == str(context_tokens) and card(page)["busy"] == "false", 30, "the answer")


CLIPPED = """() => Array.from(document.querySelectorAll('thead th[data-col]'), (th) => {
  const button = th.querySelector('button:not([hidden])') || th.querySelector('[data-void] [aria-hidden]');
  const range = document.createRange();
  range.selectNodeContents(button);
  const text = range.getBoundingClientRect();
  const box = th.getBoundingClientRect();
  return {col: th.dataset.col, label: button.textContent,
          clipped: th.scrollWidth > th.clientWidth || button.scrollWidth > button.clientWidth
                   || text.left < box.left - 0.5 || text.right > box.right + 0.5};
}).filter((h) => h.clipped)"""


@pytest.mark.parametrize("locale", LOCALES)
def test_no_header_is_cut_at_a_desktop_width(browser, server, locale):
    context, page, errors = open_page(browser, server, locale, (1440, 900))
    settled(page, WORKLOAD["context"])
    heads = page.eval_on_selector_all("thead th[data-col]", "ths => ths.map(th => th.dataset.col)")
    assert heads == [c.id for c in TABLE_COLUMNS]
    assert page.evaluate(CLIPPED) == []
    # Every column in view: the table does not scroll sideways within the content's width.
    scroller = page.eval_on_selector(".configurator__scroll", "el => [el.scrollWidth, el.clientWidth]")
    assert scroller[0] <= scroller[1] + 1, scroller
    # An image model names some columns otherwise.
    page.select_option("select[name=model]", "flux.1-dev")
    wait_until(lambda: page.get_attribute("table", "data-kind") == "diffusion", 20, "the image model's table")
    assert page.evaluate(CLIPPED) == []
    assert not errors, errors
    context.close()


CARD_FIELDS = ("price_month", "per_mtok", "per_user", "ttft", "memory")


@pytest.mark.parametrize("locale", LOCALES)
def test_on_a_phone_each_node_is_a_card_and_nothing_scrolls_sideways(browser, server, catalog, locale):
    width, height = 390, 844
    context, page, errors = open_page(browser, server, locale, (width, height))
    settled(page, WORKLOAD["context"])
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    scroller = page.eval_on_selector(".configurator__scroll", "el => [el.scrollWidth, el.clientWidth]")
    assert scroller[0] <= scroller[1], scroller
    labels = dict(
        page.eval_on_selector_all("thead th[data-col]", "ths => ths.map(th => [th.dataset.col, th.textContent.trim()])")
    )
    index = {c.id: i for i, c in enumerate(TABLE_COLUMNS)}
    shown = page.eval_on_selector_all("tr[data-node]:not([hidden])", "trs => trs.map(tr => tr.dataset.node)")
    assert shown
    for node in shown[:4]:
        row = page.locator(f'tr[data-node="{node}"]')
        row.scroll_into_view_if_needed()
        box = row.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (node, box)
        cells = row.locator("th, td")
        name = cells.nth(index["node"])
        name_box = name.bounding_box()
        assert catalog.gpus[catalog.node(node).gpu].name in name.text_content()
        verdict = cells.nth(index["verdict"]).locator(".verdict__text")
        assert verdict.is_visible() and verdict.text_content().strip()
        for col in CARD_FIELDS:
            cell = cells.nth(index[col])
            cell_box = cell.bounding_box()
            assert cell.is_visible() and cell.text_content().strip(), (node, col)
            # A card: each figure under the node's name, inside the card, named by its column.
            assert cell_box["y"] >= name_box["y"] + name_box["height"] - 1, (node, col)
            assert box["x"] <= cell_box["x"] and cell_box["x"] + cell_box["width"] <= box["x"] + box["width"] + 0.5
            before = page.evaluate("el => getComputedStyle(el, '::before').content", cell.element_handle())
            assert before.strip('"') == labels[col], (col, before)
    # After a change, with the form at the top of the screen: the answer is there, no scrolling.
    page.evaluate(
        "window.scrollTo(0, document.querySelector('[data-form]').getBoundingClientRect().top + scrollY - 56)"
    )
    page.fill("input[name=context]", "16384")
    page.press("input[name=context]", "Enter")
    settled(page, 16384)
    # The card's recommendation is on screen, and its figures in short in the phone's summary
    # (kept in view above the form), the same node as the card's.
    for where in ("[data-answer] [data-slot=node]", "[data-summary]"):
        box = page.locator(where).bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (where, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (where, box)
    assert page.get_attribute("[data-summary]", "data-node") == page.get_attribute("[data-answer]", "data-node")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert not errors, errors
    context.close()


def test_the_reason_unfolds_under_the_verdict_from_the_keyboard(browser, server, catalog):
    context, page, errors = open_page(browser, server, "en", (1440, 900))
    settled(page, WORKLOAD["context"])
    assert page.locator("th[data-col=reason]").count() == 0
    formatter = Formatter("en")
    want = answer(
        catalog,
        WORKLOAD,
        engine_words("en"),
        lambda x: formatter.number(x, 1),
    )
    reasons = {r["node"]: r["reason_text"] for r in want["rows"]}
    node = page.eval_on_selector("tr[data-node]:not([hidden])", "tr => tr.dataset.node")
    button = page.locator(f'tr[data-node="{node}"] [data-why]')
    reason = page.locator(f"#{button.get_attribute('aria-controls')}")
    assert button.get_attribute("aria-expanded") == "false" and reason.is_hidden()
    assert reason.text_content() == reasons[node]
    # From the keyboard: Tab reaches it, Enter opens it, Space closes it.
    page.focus(f'tr[data-node="{node}"] [data-why]')
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.hasAttribute('data-why')")
    page.keyboard.press("Enter")
    assert button.get_attribute("aria-expanded") == "true" and reason.is_visible()
    page.keyboard.press("Space")
    assert button.get_attribute("aria-expanded") == "false" and reason.is_hidden()
    # Open, it follows the answer: a new workload rewrites it in place.
    button.click()
    page.fill("input[name=concurrency]", "4")
    page.press("input[name=concurrency]", "Enter")
    wait_until(lambda: card(page)["concurrency"] == "4" and card(page)["busy"] == "false", 30, "the answer")
    want4 = answer(
        catalog,
        {**WORKLOAD, "concurrency": 4},
        engine_words("en"),
        lambda x: formatter.number(x, 1),
    )
    wait_until(
        lambda: reason.text_content() == next(r["reason_text"] for r in want4["rows"] if r["node"] == node),
        10,
        "the reason to follow",
    )
    assert reason.is_visible()
    assert not errors, errors
    context.close()


ROW_PARTS = """trs => trs.map((tr) => {
  const why = tr.querySelector('[data-why]');
  const reason = tr.querySelector('.verdict__reason');
  return {node: tr.dataset.node, verdict: tr.dataset.verdict, price: Number(tr.dataset.priceMonth),
          code: tr.querySelector('th code').textContent, name: tr.querySelector('.node__name').textContent,
          controls: why.getAttribute('aria-controls'), label: why.getAttribute('aria-label'),
          open: why.getAttribute('aria-expanded'), id: reason.id, reason: reason.textContent};
})"""


def test_rows_reordered_by_a_new_answer_each_name_one_node_whole(browser, server, catalog):
    """A new answer that puts the nodes in another order: every row's data, name, reason and
    disclosure are one node's, with the engine's figures, and a reason left open stays open
    under its node."""
    context, page, errors = open_page(browser, server, "en", (1440, 900))
    settled(page, WORKLOAD["context"])
    before = page.eval_on_selector_all("tbody tr", ROW_PARTS)
    names = {r["node"]: (r["name"], r["label"]) for r in before}
    opened = before[0]["node"]
    page.click(f'tr[data-node="{opened}"] [data-why]')
    page.select_option("select[name=model]", "llama-3.1-8b")
    formatter = Formatter("en")
    request = {**WORKLOAD, "model": "llama-3.1-8b"}
    want = {r["node"]: r for r in answer(catalog, request, None, lambda x: formatter.number(x, 1))["rows"]}

    def after():
        return page.eval_on_selector_all("tbody tr", ROW_PARTS)

    # Rows off screen are patched right after the frame: wait for the last of them.
    wait_until(lambda: all(r["reason"] == want[r["node"]]["reason_text"] for r in after()), 30, "the new answer")
    rows = after()
    assert [r["node"] for r in rows] != [r["node"] for r in before]  # the order did change
    assert sorted(r["node"] for r in rows) == sorted(want)
    for r in rows:
        node = r["node"]
        assert r["code"] == node
        assert (r["name"], r["label"]) == names[node]
        assert r["controls"] == r["id"] == f"cfg-why-{node}"
        assert r["verdict"] == want[node]["verdict"]
        assert r["price"] == want[node]["price_month_usd"]
        assert r["open"] == ("true" if node == opened else "false"), node
    # Still sorted by monthly price, the nodes that hold the model first.
    fits = [r["verdict"] != "none" for r in rows]
    assert fits == sorted(fits, reverse=True)
    prices = [r["price"] for r in rows if r["verdict"] != "none"]
    assert prices == sorted(prices)
    assert page.locator(f"#cfg-why-{opened}").is_visible()
    assert not errors, errors
    context.close()


def test_without_javascript_every_reason_shows(browser, server):
    context, page, _ = open_page(browser, server, "en", (1440, 900), query="", java_script_enabled=False)
    reasons = page.locator(".verdict__reason")
    assert reasons.count() > 0
    assert reasons.first.is_visible() and page.locator("[data-why]").first.is_hidden()
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_configurators_own_colors_pass_axe_in_both_schemes(browser, server, scheme):
    # What only the widget shows: rows that do not fit (greyed), a reason unfolded, the offered
    # changes, a field's error and the chart; axe-core finds no serious or critical violation.
    context, page, errors = open_page(
        browser, server, "en", (1440, 900), query="?model=deepseek-v3&format=bf16", color_scheme=scheme
    )
    wait_ready(page)
    wait_until(lambda: card(page)["model"] == "deepseek-v3" and card(page)["busy"] == "false", 30, "the answer")
    assert page.get_attribute("body", "data-md-color-scheme") == {"light": "default", "dark": "slate"}[scheme]
    assert page.locator("[data-suggestion]").count() > 0
    page.click("[data-show-none]")
    page.locator("tr[data-node] [data-why]").first.click()
    page.evaluate(AXE.read_text() + "\n;0")
    run = "(sel) => axe.run(document.querySelector(sel), {resultTypes: ['violations']})"

    def serious(selector):
        result = page.evaluate(run, selector)
        return [
            (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
            for v in result["violations"]
            if v["impact"] in ("serious", "critical")
        ]

    assert serious("[data-configurator]") == []
    # A field's error, and the answer below dimmed as not this question's: still readable.
    page.fill("input[name=concurrency]", "0")
    wait_until(lambda: page.text_content("[data-error-for=concurrency]"), 10, "the field's error")
    wait_until(lambda: card(page)["busy"] == "true", 10, "the answer marked as pending")
    page.wait_for_timeout(400)  # the dimming comes after a short delay
    assert serious("[data-configurator]") == []
    # And with an answer and its chart.
    page.fill("input[name=concurrency]", "1")
    page.click("[data-suggestion][data-format=fp8]")
    wait_until(lambda: card(page)["format"] == "fp8" and card(page)["busy"] == "false", 30, "the FP8 answer")
    wait_until(lambda: page.locator("[data-chart] svg").count() == 1, 10, "the chart")
    result = page.evaluate(
        "() => axe.run(document.querySelector('[data-configurator]'), {resultTypes: ['violations']})"
    )
    bad = [(v["id"], v["impact"]) for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert not bad, bad
    assert not errors, errors
    context.close()
