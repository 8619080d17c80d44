"""How the configurator follows the reader's choices: a model starts in its native format (unless
a link names one), and a pasted config.json's answer is brought into view."""

from __future__ import annotations

import json

import pytest

from .browser import wait_until
from .conftest import FIXTURES
from .test_configurator import card, href, open_configurator, wait_ready

pytestmark = pytest.mark.browser


def answered(page, model, fmt):
    wait_until(
        lambda: card(page)["model"] == model and card(page)["format"] == fmt and card(page)["busy"] == "false",
        30,
        f"{model} in {fmt}",
    )


def test_each_model_starts_in_its_native_format(browser, server, catalog):
    # The catalog's native formats, each sourced there (DeepSeek V3's published checkpoint is FP8,
    # gpt-oss's experts are MXFP4): the two that are not 16-bit are what this test is about.
    assert catalog.llms["deepseek-v3"].native_format == "fp8"
    assert catalog.llms["gpt-oss-120b"].native_format == "mxfp4"
    context, page, errors, _ = open_configurator(browser, server, "en")
    wait_ready(page)
    for model in ("deepseek-v3", "gpt-oss-120b", "llama-3.3-70b", *catalog.llms):
        page.select_option("select[name=model]", model)
        native = catalog.llms[model].native_format
        assert page.input_value("select[name=format]") == native, model
    answered(page, model, catalog.llms[model].native_format)
    page.select_option("select[name=model]", "deepseek-v3")
    answered(page, "deepseek-v3", "fp8")
    assert "format=fp8" in href(page)
    # The reader may then pick another format for the same model.
    page.select_option("select[name=format]", "awq-int4")
    answered(page, "deepseek-v3", "awq-int4")
    assert not errors, errors
    context.close()
    # A link naming the model alone: its native format. A link naming a format: that one.
    for query, fmt in (("?v=1&model=gpt-oss-120b", "mxfp4"), ("?v=1&model=gpt-oss-120b&format=bf16", "bf16")):
        context, page, errors, _ = open_configurator(browser, server, "en", query)
        wait_ready(page)
        answered(page, "gpt-oss-120b", fmt)
        assert page.input_value("select[name=format]") == fmt
        assert not errors, errors
        context.close()


def test_an_image_model_starts_in_its_published_format(browser, server, catalog):
    # From DeepSeek V3 in FP8 to FLUX.1 [dev], published in BF16: the form follows the catalog.
    # SDXL's published precisions are no catalog format: the form keeps the one it shows.
    assert catalog.diffusion["flux.1-dev"].native_format == "bf16"
    assert catalog.diffusion["sdxl"].native_format is None
    context, page, errors, _ = open_configurator(browser, server, "fr", "?v=1&model=deepseek-v3")
    wait_ready(page)
    answered(page, "deepseek-v3", "fp8")
    page.select_option("select[name=model]", "flux.1-dev")
    assert page.input_value("select[name=format]") == "bf16"
    answered(page, "flux.1-dev", "bf16")
    page.select_option("select[name=format]", "fp8")
    answered(page, "flux.1-dev", "fp8")
    page.select_option("select[name=model]", "sdxl")
    answered(page, "sdxl", "fp8")
    assert not errors, errors
    context.close()


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)])
def test_a_pasted_config_brings_its_answer_into_view(browser, server, size):
    config = (FIXTURES / "configs" / "llama-3.1-8b.json").read_text()
    json.loads(config)
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/en/configurator/")
    wait_ready(page)
    page.select_option("select[name=model]", "custom")
    # The reader scrolls the text box to the top of the screen and pastes.
    page.evaluate("document.querySelector('textarea[name=config]').scrollIntoView({block: 'start'})")
    page.evaluate("text => navigator.clipboard.writeText(text)", config)
    page.focus("textarea[name=config]")

    def in_view():
        box = page.locator("[data-answer]").bounding_box()
        return box and box["y"] >= 0 and box["y"] + box["height"] <= size[1]

    before = page.evaluate("scrollY")
    was_in_view = in_view()
    if size[0] < 600:
        assert not was_in_view  # on a phone the card is below the pasted text
    page.keyboard.press("Control+V")
    wait_until(lambda: card(page)["model"] == "custom" and card(page)["busy"] == "false", 30, "the answer")
    wait_until(in_view, 5, "the answer in view")
    if not was_in_view:
        assert page.evaluate("scrollY") > before  # the page moved to it
    assert page.is_visible("[data-model-read]")
    assert not errors, errors
    context.close()
