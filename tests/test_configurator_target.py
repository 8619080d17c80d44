"""The reader's target in the configurator: the card names it, says what the recommended node
serves within it, prices the workload and shows how far to trust the figures, on a phone as on
a desktop; a link carries it; when nothing meets it, a button each for fewer users or a looser
target leads to a node that does."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from macros.fitengine import answer
from macros.render.locale_format import Formatter

from .browser import wait_until
from .test_configurator import card, href, open_configurator, rows, wait_ready

pytestmark = pytest.mark.browser

SLOTS = ("question", "node", "price", "per_user", "ttft", "per_mtok", "within", "band")


def slot_text(page, name):
    return page.text_content(f"[data-answer] [data-slot={name}]")


def settled(page, **fields):
    wait_ready(page)
    wait_until(
        lambda: all(card(page).get(k) == str(v) for k, v in fields.items()) and card(page)["busy"] == "false",
        30,
        f"the answer for {fields}",
    )


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)])
def test_the_card_names_the_target_what_is_met_the_workload_price_and_the_band_in_one_screen(
    browser, server, catalog, size
):
    request = {"model": "llama-3.3-70b", "format": "fp8", "context": 4096, "concurrency": 64}
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    from .test_site import PAGE_PATHS

    page.goto(f"{server}/en/{PAGE_PATHS['configurator']['en']}?{urlencode(request)}")
    settled(page, concurrency=64)
    a = catalog.assumptions
    want = answer(catalog, request)
    best = next(r for r in want["rows"] if r["recommended"])
    assert card(page)["node"] == best["node"]
    f = Formatter("en")
    question = slot_text(page, "question")
    assert f"{f.brief(a.target_tok_s)}\u00a0tok/s" in question and f"{f.brief(a.target_ttft_s)}\u00a0s" in question
    assert slot_text(page, "per_mtok") == f.usd(best["usd_per_million_tokens_workload"], cents=True)
    assert f.number(best["max_users_at_target"], 0) in slot_text(page, "within")
    lo, hi = best["speed_band"]
    assert f"×{f.number(lo, 2)}" in slot_text(page, "band") and f"×{f.number(hi, 2)}" in slot_text(page, "band")
    # The whole card in one screen once its top is in view: nothing of it needs a scroll.
    page.eval_on_selector("[data-answer]", "el => window.scrollTo(0, el.getBoundingClientRect().top + scrollY - 56)")
    for name in SLOTS:
        box = page.locator(f"[data-answer] [data-slot={name}]").bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= size[1], (name, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= size[0], (name, box)
    # The table marks the recommended node, and only it.
    assert [r["node"] for r in rows(page) if r["target"] == "recommended"] == [best["node"]]
    context.close()


def test_a_stricter_target_changes_the_answer_and_the_link_carries_it(browser, server, catalog):
    context, page, errors, _ = open_configurator(
        browser, server, "en", "?model=llama-3.3-70b&format=fp8&concurrency=64"
    )
    settled(page, concurrency=64)
    page.fill("input[name=min_speed]", "40")
    page.press("input[name=min_speed]", "Enter")
    settled(page, minSpeed=40)
    want = answer(catalog, {"model": "llama-3.3-70b", "format": "fp8", "concurrency": 64, "min_speed": 40})
    assert card(page)["node"] == (want["summary"]["recommended"] or "")
    assert "min_speed=40" in href(page)
    page.goto(href(page))
    settled(page, minSpeed=40)
    assert page.input_value("input[name=min_speed]") == "40"
    assert card(page)["node"] == (want["summary"]["recommended"] or "")
    # A target the engine cannot take is said beside its field, and nothing else is answered.
    page.fill("input[name=max_ttft]", "0")
    page.press("input[name=max_ttft]", "Enter")
    wait_until(lambda: page.text_content("[data-error-for=max_ttft]"), 10, "the field's error")
    assert card(page)["busy"] == "true"
    assert not errors, errors
    context.close()


def test_out_of_reach_the_card_names_the_closest_and_a_button_leads_to_a_node_that_meets_it(browser, server, catalog):
    query = "?model=llama-3.3-70b&format=bf16&concurrency=2000&min_speed=30"
    context, page, errors, _ = open_configurator(browser, server, "en", query)
    settled(page, concurrency=2000)
    assert card(page)["node"] == ""
    want = answer(catalog, {"model": "llama-3.3-70b", "format": "bf16", "concurrency": 2000, "min_speed": 30})
    closest = next(r for r in want["rows"] if r["node"] == want["summary"]["closest"])
    assert catalog.gpus[closest["gpu"]].name in slot_text(page, "none_text")
    fewer = next(s for s in want["suggestions"] if s["concurrency"])
    page.click(f'[data-suggestion][data-concurrency="{fewer["concurrency"]}"]')
    settled(page, concurrency=fewer["concurrency"])
    assert page.input_value("input[name=concurrency]") == str(fewer["concurrency"])
    assert card(page)["node"] == fewer["node"]
    assert not errors, errors
    context.close()
