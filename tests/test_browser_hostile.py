"""What a reader pastes or a link carries cannot freeze, fool or stall the widgets: pastes of
megabytes are refused at once, custom models nested thousands deep or holding 1e400 are refused
with a message, a served catalog or answers file that is not the build's is not used, and
replacement patterns in a link are shown as typed."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest

from macros.fitengine.api import CUSTOM_LINK

from .browser import measure, wait_until
from .conftest import FIXTURES
from .test_configurator import answers_the_fields, card, hold_pyodide, href, open_configurator, rows, wait_ready
from .test_measurements_hostile import matrix
from .test_site import PAGE_PATHS

pytestmark = pytest.mark.browser


def watch_long_tasks(page) -> None:
    page.evaluate(
        """() => {
          window.__longest = 0;
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) window.__longest = Math.max(window.__longest, entry.duration);
          }).observe({ type: "longtask", buffered: false });
        }"""
    )


def open_measure(browser, server, locale="en"):
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/{locale}/{PAGE_PATHS['nvlink'][locale]}")
    return page, errors


def test_a_five_megabyte_paste_is_refused_at_once_and_the_page_stays_responsive(browser, server):
    page, errors = open_measure(browser, server)
    page.select_option("#measure-node", "8x-h100-sxm")
    paste = matrix(1000, "NV18")
    assert len(paste) > 5_000_000
    page.evaluate("(text) => { document.querySelector('#measure-text').value = text; }", paste)
    watch_long_tasks(page)
    page.click("[data-measure] button[type=submit]")
    wait_until(lambda: page.locator(".measure__error").count(), 5, "the refusal")
    message = page.text_content(".measure__error")
    assert "1,000,000" in message and f"{len(paste):,}" in message
    page.wait_for_timeout(500)
    assert page.evaluate("window.__longest") < 500  # the freeze was 34 s of table building
    assert page.locator(".measure__matrix").count() == 0
    assert not errors, errors
    page.close()


def test_a_matrix_larger_than_the_node_is_judged_not_drawn(browser, server):
    page, errors = open_measure(browser, server)
    assert measure(page, "8x-h100-sxm", matrix(64, "NV18")) == "fault"
    assert page.locator(".measure__matrix").count() == 0
    assert page.locator("[data-not-drawn]").count() == 1
    assert "64 GPUs" in page.text_content("[data-measure] [data-result] ul")
    assert not errors, errors
    page.close()


def test_the_worker_refuses_a_changed_catalog(browser, server):
    context, page, _, _ = open_configurator(browser, server)

    def changed(route):
        body = route.fetch().text().replace('"value":16878', '"value":1', 1)
        assert '"value":1,' in body
        route.fulfill(status=200, body=body, headers={"content-type": "application/json"})

    page.route("**/engine/catalog.json", changed)
    page.reload()
    wait_until(
        lambda: page.get_attribute("[data-engine-status]", "data-engine-status") in ("ready", "error"), 90, "the engine"
    )
    assert page.get_attribute("[data-engine-status]", "data-engine-status") == "error"
    assert all(float(r["price"]) != 1 for r in rows(page))
    context.close()


def test_a_changed_answers_file_is_not_shown(browser, server, catalog):
    context, page, errors, _ = open_configurator(browser, server)
    release = hold_pyodide(page)
    fmt = page.get_attribute("[data-configurator]", "data-default-format")

    def changed(route):
        body = route.fetch().text()
        changed_body = body.replace('"price_month_usd":16878', '"price_month_usd":1')
        assert changed_body != body
        route.fulfill(status=200, body=changed_body, headers={"content-type": "application/json"})

    page.route(f"**/engine/answers/fr/{fmt}.json", changed)
    page.reload()
    caption = page.text_content("table caption")
    page.select_option("select[name=model]", "qwen3-32b")
    page.wait_for_timeout(800)
    assert page.text_content("table caption") == caption  # the changed file is not used
    assert all(float(r["price"]) != 1 for r in rows(page))
    release()
    wait_ready(page)
    wait_until(lambda: catalog.llms["qwen3-32b"].name in page.text_content("table caption"), 20, "the engine's table")
    price = next(float(r["price"]) for r in rows(page) if r["node"] == "8x-h100-sxm")
    assert price == catalog.node("8x-h100-sxm").price_month_usd
    assert not errors, errors
    context.close()


def test_a_changed_answer_of_one_model_is_not_shown(browser, server, catalog):
    """A format chosen while Pyodide loads is answered from that model's own file: a changed one
    is refused as the whole format's is, and the card keeps saying it is computing."""
    context, page, errors, requests = open_configurator(browser, server)
    release = hold_pyodide(page)
    node = "8x-h100-sxm"
    price = catalog.node(node).price_month_usd

    def changed(route):
        body = route.fetch().text()
        changed_body = body.replace(f'"price_month_usd":{price:g}', '"price_month_usd":1')
        assert changed_body != body
        route.fulfill(status=200, body=changed_body, headers={"content-type": "application/json"})

    page.route("**/engine/answers/fr/awq-int4/qwen3-32b.json", changed)
    page.reload()
    page.select_option("select[name=model]", "qwen3-32b")
    wait_until(lambda: card(page)["model"] == "qwen3-32b" and card(page)["busy"] == "false", 10, "the build's answer")
    page.select_option("select[name=format]", "awq-int4")
    page.wait_for_timeout(800)
    assert any(u.endswith("/engine/answers/fr/awq-int4/qwen3-32b.json") for u in requests)
    assert card(page)["busy"] == "true" and card(page)["format"] != "awq-int4"  # the changed file is not used
    assert answers_the_fields(page)
    assert all(float(r["price"]) != 1 for r in rows(page))
    release()
    wait_ready(page)
    wait_until(lambda: card(page)["format"] == "awq-int4" and card(page)["busy"] == "false", 20, "the engine's answer")
    assert next(float(r["price"]) for r in rows(page) if r["node"] == node) == price
    assert not errors, errors
    context.close()


def custom_link(value) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    data = base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
    return f"?v=1&model=custom&format=bf16&context=4096&concurrency=1&custom={data}"


def test_a_link_nesting_thousands_deep_is_refused_and_the_engine_starts(browser, server):
    deep = '{"config": {"x": ' + "[" * 6000 + "1" + "]" * 6000 + "}}"  # deeper than json.dumps goes
    context, page, errors, _ = open_configurator(browser, server, query=custom_link(deep))
    wait_ready(page)
    wait_until(lambda: page.text_content("[data-message]"), 10, "the refusal")
    assert "32 niveaux" in page.text_content("[data-message]")
    assert page.input_value("select[name=model]") == page.get_attribute("[data-configurator]", "data-default-model")
    assert not errors, errors
    context.close()


def test_a_huge_link_is_refused_with_a_message(browser, server):
    config = json.loads((FIXTURES / "configs" / "llama-3.1-8b.json").read_text())
    config["padding"] = "x" * (CUSTOM_LINK + 8_000)  # under the test server's 64 kB request line, over the link limit
    context, page, errors, _ = open_configurator(browser, server, query=custom_link({"config": config}))
    wait_ready(page)
    wait_until(lambda: page.text_content("[data-message]"), 10, "the refusal")
    limit = f"{CUSTOM_LINK:,}".replace(",", "\u202f")  # French grouping: a narrow no-break space
    assert limit in page.text_content("[data-message]")
    assert page.input_value("select[name=model]") == page.get_attribute("[data-configurator]", "data-default-model")
    assert not errors, errors
    context.close()


def test_1e400_is_refused_not_guessed(browser, server):
    context, page, errors, _ = open_configurator(browser, server, locale="en")
    wait_ready(page)
    page.select_option("select[name=model]", "custom")
    text = (FIXTURES / "configs" / "llama-3.1-8b.json").read_text()
    text = text.replace('"num_key_value_heads": 8', '"num_key_value_heads": 1e400')
    assert "1e400" in text
    page.fill("textarea[name=config]", text)
    wait_until(lambda: page.text_content("[data-error-for=config]"), 10, "the refusal")
    assert "num_key_value_heads" in page.text_content("[data-error-for=config]")
    assert "model=custom" not in href(page)
    assert not errors, errors
    context.close()


def test_a_pasted_config_of_megabytes_is_refused_before_it_is_sent(browser, server):
    context, page, errors, _ = open_configurator(browser, server, locale="en")
    wait_ready(page)
    page.select_option("select[name=model]", "custom")
    config = json.loads((FIXTURES / "configs" / "llama-3.1-8b.json").read_text())
    config["padding"] = "x" * 5_000_000
    page.evaluate(
        "(text) => { const area = document.querySelector('textarea[name=config]'); area.value = text;"
        " area.dispatchEvent(new Event('input', { bubbles: true })); }",
        json.dumps(config),
    )
    watch_long_tasks(page)
    wait_until(lambda: page.text_content("[data-error-for=config]"), 10, "the refusal")
    assert "100,000" in page.text_content("[data-error-for=config]")
    assert len(href(page)) < 2000
    assert page.evaluate("window.__longest") < 500
    assert not errors, errors
    context.close()


def test_replacement_patterns_in_a_link_are_shown_as_typed(browser, server):
    hostile = "$'$`$&"
    query = f"?v=1&model={quote(hostile)}&format=bf16&context=4096&concurrency=1"
    context, page, errors, _ = open_configurator(browser, server, locale="en", query=query)
    wait_ready(page)
    wait_until(lambda: page.text_content("[data-message]"), 10, "the fallback note")
    assert f"“{hostile}” is not in the catalog" in page.text_content("[data-message]")
    assert not errors, errors
    context.close()


@pytest.fixture(scope="module")
def server_without_header(site):
    """The built site served with no Content-Security-Policy header: the pages' own <meta> alone governs them."""
    from .static_server import serve

    with serve(site, csp=None) as url:
        yield url


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_the_pages_own_policy_blocks_inline_script_and_the_configurator_still_starts(
    browser, server_without_header, locale
):
    context, page, errors, requests = open_configurator(browser, server_without_header, locale)
    violations = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    wait_ready(page)  # Pyodide compiled its WebAssembly and the engine's worker answered
    assert rows(page) and card(page)["busy"] == "false"
    # A script written into the page, as a name with markup would have been, does not run.
    page.evaluate(
        "() => { const s = document.createElement('script'); s.textContent = 'window.__ran = true';"
        " document.head.append(s); }"
    )
    page.wait_for_timeout(200)
    assert page.evaluate("window.__ran === undefined")
    assert any("inline script" in v or "script-src" in v for v in violations), violations
    # Only that refusal: nothing of the page itself broke the policy.
    assert all("script-src" in v and "inline" in v.lower() for v in violations), violations
    assert [e for e in errors if "Content Security Policy" not in e] == [], errors
    assert all(u.startswith(server_without_header) for u in requests)
    context.close()


@pytest.mark.parametrize("left", ["empty context", "fp8 kv cache"])
def test_a_field_that_does_not_apply_to_an_image_model_does_not_block_its_answer(browser, server, catalog, left):
    # The reader leaves a field of the language model behind (the context cleared, a vLLM option
    # set), then chooses FLUX.1 [dev]: its fields are hidden, and its answer comes all the same.
    context, page, errors, _ = open_configurator(browser, server, "fr")
    wait_ready(page)
    if left == "empty context":
        page.fill("[name=context]", "")
        wait_until(lambda: card(page)["state"] == "invalid", 10, "the invalid context")
        assert page.text_content("[data-error-for=context]")
    else:
        page.click(".configurator__layout > summary")  # the options the engine otherwise chooses
        page.select_option("[name=kv_cache]", "fp8")
        wait_until(lambda: "kv_cache=fp8" in href(page), 30, "the option in the address")
    page.select_option("select[name=model]", "flux.1-dev")
    wait_until(
        lambda: (
            card(page)["model"] == "flux.1-dev" and card(page)["state"] == "answer" and card(page)["busy"] == "false"
        ),
        30,
        "FLUX.1 [dev]'s answer",
    )
    assert page.is_hidden("[name=context]") and page.text_content("[data-error-for=context]") == ""
    assert page.get_attribute("[name=context]", "aria-invalid") == "false"
    fits = [r for r in rows(page) if r["verdict"] != "none"]
    assert fits, rows(page)
    assert page.is_hidden("[data-message]") or page.get_attribute("[data-message]", "data-kind") != "error"
    assert not errors, errors
    context.close()
