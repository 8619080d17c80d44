"""The "measure it yourself" checker on the NVLink guide, in both locales, in the page's engine."""

from __future__ import annotations

import pytest

from .browser import wait_until
from .conftest import FIXTURES
from .test_site import LOCALES, PAGE_PATHS

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("locale", LOCALES)
def test_pasted_topology_gets_a_verdict_and_a_coloured_matrix(browser, server, locale):
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/{locale}/{PAGE_PATHS['nvlink'][locale]}")
    assert page.is_hidden("[data-measure] [data-nojs]")
    page.select_option("#measure-node", "8x-h100-sxm")
    page.fill("#measure-text", (FIXTURES / "measure" / "topo-8x-h100-degraded.txt").read_text())
    page.click("[data-measure] button[type=submit]")
    wait_until(lambda: page.get_attribute("[data-measure] [data-result]", "data-verdict"), 90, "the verdict")
    assert page.get_attribute("[data-measure] [data-result]", "data-verdict") == "fault"
    assert page.locator(".measure__matrix td.link--sys").count() == 2
    assert page.locator(".measure__matrix td.link--nvlink").count() == 54
    assert "GPU2–GPU3" in page.text_content("[data-measure] [data-result] ul")
    # Garbage gets the parser's message, as text.
    page.fill("#measure-text", "<b>not a matrix</b>")
    page.click("[data-measure] button[type=submit]")
    wait_until(lambda: page.locator(".measure__error").count(), 10, "the message")
    assert "topo -m" in page.text_content(".measure__error")
    assert page.locator("[data-measure] b").count() == 0
    assert not errors, errors
    page.close()
