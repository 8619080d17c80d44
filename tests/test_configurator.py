"""The configurator in the browser: the same engine in Pyodide, under the site's CSP.

Parity: the browser's verdicts and figures equal the build-time engine's for every catalog
model. Then URL state, CSV, hostile input, the compact widget's lazy start."""

from __future__ import annotations

import csv
import io
import json
import re
from urllib.parse import parse_qs, quote, urlparse

import pytest

from macros.fitengine import answer
from macros.render.node_render import BUILD_WIDTH

from .browser import ARTIFACTS, wait_until
from .conftest import FIXTURES
from .test_site import LOCALES, PAGE_PATHS

pytestmark = pytest.mark.browser

FORMATS = ("bf16", "fp8", "awq-int4", "mxfp4")


def open_configurator(browser, server, locale="fr", query=""):
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: (errors.append(f"dialog: {d.message}"), d.dismiss()))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{server}/{locale}/{PAGE_PATHS['configurator'][locale]}{query}")
    return context, page, errors, requests


def wait_ready(page):
    wait_until(
        lambda: page.get_attribute("[data-engine-status]", "data-engine-status") in ("ready", "error"), 90, "the engine"
    )
    assert page.get_attribute("[data-engine-status]", "data-engine-status") == "ready"


def dom_rows(page):
    """The rows as the table shows them, top to bottom (folded ones included)."""
    return page.eval_on_selector_all(
        "tr[data-node]",
        "trs => trs.map(tr => ({node: tr.dataset.node, verdict: tr.dataset.verdict, cards: tr.dataset.cards,"
        " tok: tr.dataset.tokS, price: tr.dataset.priceMonth, order: Number(tr.dataset.order), hidden: tr.hidden,"
        " perMtok: tr.dataset.vPerMtok, total: tr.dataset.vTotal, target: tr.dataset.target}))",
    )


def rows(page):
    """The rows in the engine's (the catalog's) order, whatever the table's sort."""
    return [
        {k: r[k] for k in ("node", "verdict", "cards", "tok", "price", "target")}
        for r in sorted(dom_rows(page), key=lambda r: r["order"])
    ]


def row_markup(page):
    return page.eval_on_selector_all("tbody tr", "trs => trs.map(tr => tr.outerHTML)")


def href(page):
    # page.url lags behind history.replaceState; ask the page itself.
    return page.evaluate("location.href")


def choose(page, model, fmt):
    page.select_option("select[name=model]", model)
    page.select_option("select[name=format]", fmt)
    wait_until(lambda: f"model={quote(model)}&format={fmt}&" in href(page), 10, f"{model} {fmt}")


def expected(catalog, model, fmt, context_tokens=None):
    request = {"model": model, "format": fmt}
    if context_tokens is not None:
        request["context"] = context_tokens
    result = answer(catalog, request)
    out = []
    for r in result["rows"]:
        tok = r["decode_tok_s_per_user"] if "decode_tok_s_per_user" in r else r.get("relative_speed")
        cards = r.get("cards_used", 1 if r["verdict"] != "none" else 0)
        out.append((r["node"], r["verdict"], int(cards), tok, r["price_month_usd"]))
    return out


def test_engine_starts_under_csp_with_only_local_requests(browser, server):
    for locale in LOCALES:
        context, page, errors, requests = open_configurator(browser, server, locale)
        assert page.get_attribute("[data-configurator]", "data-configurator") is not None
        wait_ready(page)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"configurator-{locale}.png"), full_page=True)
        assert all(u.startswith(server) for u in requests), [u for u in requests if not u.startswith(server)]
        assert any(u.startswith(f"{server}/pyodide/") and u.endswith("/pyodide.asm.wasm") for u in requests)
        assert not errors, errors
        context.close()


def test_browser_answers_equal_the_build_engines(browser, server, catalog):
    # At a context the build did not compute, so that every answer comes from Pyodide.
    context_tokens = catalog.assumptions.default_context * 2
    context, page, errors, _ = open_configurator(browser, server, query=f"?context={context_tokens}")
    wait_ready(page)
    # Pyodide restored from the build's snapshot (tests/test_pyodide_snapshot.py covers the plain start).
    assert page.get_attribute("[data-engine-status]", "data-engine-start") == "snapshot"
    for model in [*catalog.llms, *catalog.diffusion]:
        for fmt in FORMATS:
            choose(page, model, fmt)
            by_node = {r["node"]: r for r in rows(page)}
            want = expected(catalog, model, fmt, context_tokens)
            assert sorted(by_node) == sorted(w[0] for w in want)
            got = [by_node[w[0]] for w in want]
            for r, (node, verdict, cards, tok, price) in zip(got, want, strict=True):
                assert r["verdict"] == verdict, (model, fmt, node)
                assert int(r["cards"]) == cards, (model, fmt, node)
                assert float(r["price"]) == pytest.approx(price)
                if tok is None:
                    assert r["tok"] == ""
                else:
                    assert float(r["tok"]) == pytest.approx(tok, rel=1e-12), (model, fmt, node)
    # Those answers came while the worker answered its warm-up questions, unseen; it got through them.
    wait_until(lambda: "worker-warm" in worker_marks(page), 60, "the engine's warm-up")
    assert not errors, errors
    context.close()


def test_the_engines_sentences_in_the_browser_are_the_french_catalogs(browser, server, catalog):
    """The worker gives the engine its page's words (engine/messages/fr.json, from site.po): the
    reasons Pyodide writes on the French page are the build's, word for word."""
    from macros.fitengine.reasons import REASON_DIGITS
    from macros.messages import engine_words
    from macros.render.locale_format import Formatter

    context_tokens = catalog.assumptions.default_context * 2  # not in the build's answers
    context, page, errors, _ = open_configurator(browser, server, "fr", f"?context={context_tokens}")
    wait_ready(page)
    fmt = Formatter("fr")
    for model in ("llama-3.3-70b", "deepseek-v3"):
        choose(page, model, "bf16")
        request = {"model": model, "format": "bf16", "context": context_tokens}
        built = answer(catalog, request, engine_words("fr"), lambda x: fmt.number(x, REASON_DIGITS))
        want = {r["node"]: r["reason_text"] for r in built["rows"]}
        wait_until(lambda want=want: shown_reasons(page) == want, 30, f"{model}'s reasons from the engine")
        got = shown_reasons(page)
        assert got == want
        assert any("Ne tient pas" in text for text in got.values()) or any("Tient" in text for text in got.values())
    assert not errors, errors
    context.close()


def shown_reasons(page) -> dict[str, str]:
    return dict(
        page.eval_on_selector_all(
            "tr[data-node]", "trs => trs.map(tr => [tr.dataset.node, tr.querySelector('.verdict__reason').textContent])"
        )
    )


def worker_marks(page):
    """The names of the marks the configurator's worker has made on its own timeline."""
    workers = [w for w in page.workers if "configurator-worker" in w.url]
    return workers[-1].evaluate("performance.getEntriesByType('mark').map((m) => m.name)") if workers else []


def test_browser_formatting_equals_the_builds(browser, server):
    """The table the build wrote (the widget's modules under Node) and the one the widget draws in
    Chromium, after other answers, are the same markup: Node's Intl and the browser's agree."""
    for locale in LOCALES:
        context, page, errors, _ = open_configurator(browser, server, locale)
        # Without the build's answers, every table the widget draws is the engine's (its reason
        # sentences written by the worker), not a copy of what the build wrote.
        page.route("**/engine/answers/**", lambda route: route.abort())
        page.reload()
        built = row_markup(page)
        built_card = page.inner_html("[data-answer]")
        wait_ready(page)
        # Through another model, a diffusion pipeline (other columns, other bars) and back: the
        # widget patches the table in place, and must end on the markup the build wrote.
        choose(page, "llama-3.1-8b", "fp8")
        choose(page, "sdxl", "fp8")
        # Back to the question the build answered in this page.
        root = "[data-configurator]"
        choose(page, page.get_attribute(root, "data-default-model"), page.get_attribute(root, "data-default-format"))
        assert row_markup(page) == built
        # The card the widget patched reads as the one the build wrote (its announcement aside, and
        # the engine's loading bar, which moved on while the page loaded).
        drawn_card = page.inner_html("[data-answer]")

        def words(card: str) -> str:
            return re.sub(r"<progress [^>]*></progress>", "", card).split('<p class="md-visually-hidden"')[0]

        assert words(drawn_card) == words(built_card)
        assert built_card.startswith("<progress ")
        assert [e for e in errors if "Failed to load resource" not in e] == []  # but the refused answers
        assert (
            page.evaluate(
                "performance.getEntriesByType('resource').some((e) => e.name.includes('/engine/answers/') && e.responseEnd > 0 && e.transferSize > 0)"
            )
            is False
        )
        context.close()


def test_url_state_survives_a_reload(browser, server):
    context, page, errors, _ = open_configurator(browser, server)
    wait_ready(page)
    page.select_option("select[name=model]", "qwen3-32b")
    page.select_option("select[name=format]", "awq-int4")
    page.fill("input[name=context]", "16384")
    page.fill("input[name=concurrency]", "8")
    wait_until(lambda: "concurrency=8" in href(page) and "context=16384" in href(page), 10, "the URL")
    before = rows(page)
    page.reload()
    wait_ready(page)
    wait_until(lambda: "Qwen3 32B" in page.text_content("table caption"), 10, "the restored table")
    assert page.input_value("select[name=model]") == "qwen3-32b"
    assert page.input_value("input[name=context]") == "16384"
    assert rows(page) == before
    assert not errors, errors
    context.close()


def test_custom_model_link_decodes(browser, server, catalog):
    config = json.loads((FIXTURES / "configs" / "mixtral-8x7b.json").read_text())
    context, page, errors, _ = open_configurator(browser, server)
    wait_ready(page)
    page.select_option("select[name=model]", "custom")
    page.fill("textarea[name=config]", json.dumps(config))
    wait_until(lambda: "model=custom" in href(page), 10, "the custom model")
    shared = href(page)
    got = rows(page)
    page.goto(shared)
    wait_ready(page)
    wait_until(lambda: rows(page) == got, 10, "the same answer from the shared link")
    assert not errors, errors
    context.close()


def test_runtime_and_kv_cache_choices_reach_the_engine_and_the_link(browser, server, catalog):
    context, page, errors, _ = open_configurator(browser, server, "en")
    wait_ready(page)
    choose(page, "llama-3.3-70b", "bf16")
    page.click(".configurator__layout > summary")  # the choices the engine otherwise makes itself
    for field, value in (("runtime", "llama-cpp"), ("kv_cache", "fp8")):
        page.select_option(f"select[name={field}]", value)
        wait_until(lambda field=field, value=value: f"{field}={value}" in href(page), 10, field)
        request = {"model": "llama-3.3-70b", "format": "bf16", field: value}
        want = [(r["node"], r["verdict"], str(r["cards_used"])) for r in answer(catalog, request)["rows"]]
        wait_until(lambda want=want: [(r["node"], r["verdict"], r["cards"]) for r in rows(page)] == want, 10, value)
        page.select_option(f"select[name={field}]", "" if field == "runtime" else "auto")
    # The choice survives a shared link.
    page.select_option("select[name=runtime]", "llama-cpp")
    wait_until(lambda: "runtime=llama-cpp" in href(page), 10, "runtime")
    page.goto(href(page))
    wait_ready(page)
    assert page.eval_on_selector("select[name=runtime]", "s => s.value") == "llama-cpp"
    assert page.is_visible("select[name=runtime]")  # a choice a link carries is in sight
    assert not errors, errors
    context.close()


def test_a_pasted_config_says_what_was_read(browser, server):
    # Llama 3.1 8B's config.json: 8.03 B parameters, 32 layers, 8 KV heads (Meta's model card).
    config = json.loads((FIXTURES / "configs" / "llama-3.1-8b.json").read_text())
    context, page, errors, _ = open_configurator(browser, server, "en")
    wait_ready(page)
    assert page.is_hidden("[data-model-read]")
    page.select_option("select[name=model]", "custom")
    page.fill("textarea[name=config]", json.dumps(config))
    wait_until(lambda: page.is_visible("[data-model-read]"), 10, "what was read")
    text = page.text_content("[data-model-read]")
    assert "8.03 billion parameters" in text and "32 layers" in text and "8 KV heads" in text, text
    page.select_option("select[name=model]", "llama-3.1-8b")
    wait_until(lambda: page.is_hidden("[data-model-read]"), 10, "a catalog model hides it")
    assert not errors, errors
    context.close()


def test_a_pasted_config_the_site_cannot_size_is_refused_in_the_pages_language(browser, server):
    # T5's config.json (google-t5/t5-small on Hugging Face): an encoder-decoder model.
    config = {"architectures": ["T5ForConditionalGeneration"], "model_type": "t5", "is_encoder_decoder": True}
    context, page, errors, _ = open_configurator(browser, server, "fr")
    wait_ready(page)
    page.select_option("select[name=model]", "custom")
    page.fill("textarea[name=config]", json.dumps(config))
    wait_until(lambda: "T5" in (page.text_content("[data-error-for=config]") or ""), 20, "the engine's refusal")
    message = page.text_content("[data-error-for=config]")
    assert "encodeur-décodeur" in message and "cannot size" not in message, message
    assert not errors, errors
    context.close()


def test_csv_matches_the_table(browser, server):
    context, page, errors, _ = open_configurator(browser, server, "en")
    wait_ready(page)
    choose(page, "gpt-oss-120b", "mxfp4")
    page.click("[data-show-none]")  # every row shown: the file holds the rows the table shows
    with page.expect_download() as download:
        page.click("[data-csv]")
    text = download.value.path().read_bytes().decode("utf-8").lstrip("\ufeff")
    lines = text.split("\r\n")
    table = list(csv.DictReader(io.StringIO("\r\n".join(lines[3:]))))
    shown = [r for r in dom_rows(page) if not r["hidden"]]
    assert [r["Node (id)"] for r in table] == [r["node"] for r in shown]
    for line, row in zip(table, shown, strict=True):
        assert float(line["Price per month (USD)"]) == pytest.approx(float(row["price"]), abs=0.5)
        assert (line["Speed per user (tok/s)"] == "") == (row["tok"] == "" or row["verdict"] == "none")
        if line["Speed per user (tok/s)"]:
            assert float(line["Speed per user (tok/s)"]) == pytest.approx(float(row["tok"]), abs=0.05)
    assert not errors, errors
    context.close()


def test_sort_and_filter(browser, server):
    context, page, errors, _ = open_configurator(browser, server)
    wait_ready(page)
    # By default: the nodes that fit first, each group by price; those that do not fit folded.
    shown = dom_rows(page)
    fits = [r for r in shown if r["verdict"] != "none"]
    assert shown[: len(fits)] == fits
    assert [float(r["price"]) for r in fits] == sorted(float(r["price"]) for r in fits)
    assert all(r["hidden"] for r in shown[len(fits) :]) and not any(r["hidden"] for r in fits)
    assert page.get_attribute("th[data-col=price_month]", "aria-sort") == "ascending"
    page.click("button[data-sort=price_month]")
    assert page.get_attribute("th[data-col=price_month]", "aria-sort") == "descending"
    fits = [r for r in dom_rows(page) if r["verdict"] != "none"]
    assert [float(r["price"]) for r in fits] == sorted((float(r["price"]) for r in fits), reverse=True)
    page.select_option("[data-filter=verdict]", "split")
    visible = page.eval_on_selector_all("tr[data-node]:not([hidden])", "trs => trs.map(t => t.dataset.verdict)")
    assert visible and set(visible) == {"split"}
    page.select_option("[data-filter=verdict]", "")
    page.select_option("[data-filter=link]", "nvlink")
    links = page.eval_on_selector_all("tr[data-node]:not([hidden])", "trs => trs.map(t => t.dataset.link)")
    assert links and set(links) == {"nvlink"}
    assert page.locator("[data-chart] svg circle").count() > 0
    assert not errors, errors
    context.close()


HOSTILE = '<img src=x onerror="alert(1)">'


def test_hostile_url_falls_back_and_says_so(browser, server):
    query = f"?v=1&model={quote(HOSTILE)}&format=bf16&context=4096&concurrency=1"
    context, page, errors, _ = open_configurator(browser, server, query=query)
    wait_ready(page)
    wait_until(lambda: page.text_content("[data-message]"), 10, "the fallback message")
    assert HOSTILE in page.text_content("[data-message]")
    assert page.locator("[data-message] img").count() == 0
    assert page.input_value("select[name=model]") == page.get_attribute("[data-configurator]", "data-default-model")
    assert not errors, errors
    context.close()


def test_hostile_config_is_shown_as_text(browser, server):
    context, page, errors, _ = open_configurator(browser, server)
    wait_ready(page)
    page.select_option("select[name=model]", "custom")
    config = json.loads((FIXTURES / "configs" / "llama-3.1-8b.json").read_text())
    config["_name_or_path"] = HOSTILE
    page.fill("textarea[name=config]", json.dumps(config))
    wait_until(lambda: HOSTILE in (page.text_content("table caption") or ""), 10, "the custom model's name")
    assert page.locator("table caption img").count() == 0
    del config["num_hidden_layers"]
    page.fill("textarea[name=config]", json.dumps(config))
    wait_until(lambda: "num_hidden_layers" in page.text_content("[data-error-for=config]"), 10, "the missing key")
    page.fill("textarea[name=config]", "{not json")
    wait_until(
        lambda: page.text_content("[data-error-for=config]") and "JSON" in page.text_content("[data-error-for=config]"),
        10,
        "the JSON error",
    )
    assert not errors, errors
    context.close()


def test_out_of_range_numbers_get_a_message_beside_the_field(browser, server):
    context, page, errors, _ = open_configurator(browser, server)
    wait_ready(page)
    # A number field takes no letters; these are the numbers a reader can still type.
    for value in ("-5", "0", "1e9", "2.5", "99999999999"):
        page.fill("input[name=context]", value)
        wait_until(lambda: page.text_content("[data-error-for=context]"), 5, f"a message for {value}")
        assert page.get_attribute("input[name=context]", "aria-invalid") == "true"
    page.fill("input[name=context]", "4096")
    wait_until(lambda: not page.text_content("[data-error-for=context]"), 5, "the message to clear")
    assert not errors, errors
    context.close()


def test_guide_widget_loads_pyodide_only_when_touched(browser, server, catalog):
    context = browser.new_context()
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{server}/en/{PAGE_PATHS['nvlink']['en']}")
    page.wait_for_load_state("networkidle")
    assert page.locator("[data-configurator][data-compact] tr[data-node]").count() == len(catalog.nodes)
    assert not [u for u in requests if "/pyodide/" in u]
    page.focus("[data-configurator][data-compact] select[name=model]")
    wait_ready(page)
    assert [u for u in requests if "/pyodide/" in u]
    query = parse_qs(urlparse(href(page)).query)
    assert "model" not in query  # the guide's widget leaves the guide's URL alone
    context.close()


def hold_pyodide(page):
    """Keep Pyodide's files from arriving (the engine stays `loading`) until `release` is called."""
    held: list = []
    released: list[bool] = []

    def handle(route):
        if released:
            route.continue_()
        else:
            held.append(route)

    page.route("**/pyodide/**", handle)

    def release():
        released.append(True)
        for route in held:
            route.continue_()

    return release


def test_catalog_choices_answer_from_the_build_while_pyodide_loads(browser, server, catalog):
    context, page, errors, requests = open_configurator(browser, server)
    release = hold_pyodide(page)
    page.reload()
    default_format = page.get_attribute("[data-configurator]", "data-default-format")
    for model, fmt in (("qwen3-32b", "bf16"), ("qwen3-32b", "awq-int4"), ("sdxl", "fp8")):
        page.select_option("select[name=model]", model)
        page.select_option("select[name=format]", fmt)
        name = catalog.llms[model].name if model in catalog.llms else catalog.diffusion[model].name
        wait_until(lambda name=name: name in page.text_content("table caption"), 10, f"{model}'s table")
        wait_until(lambda m=model, f=fmt: f"model={m}&format={f}&" in href(page), 10, "the URL")
        got = rows(page)
        want = expected(catalog, model, fmt)
        assert [(r["node"], r["verdict"]) for r in got] == [(w[0], w[1]) for w in want]
        assert [float(r["price"]) for r in got] == pytest.approx([w[4] for w in want])
        assert page.get_attribute("[data-engine-status]", "data-engine-status") == "loading"
    # Every cell is redrawn, on screen or not: the last rows show the same answer as the first.
    # (data-shown, what the row's look follows, says whether it fits, not how.)
    verdict, shown = page.eval_on_selector("tr[data-node]:last-child", "tr => [tr.dataset.verdict, tr.dataset.shown]")
    assert shown == ("none" if verdict == "none" else "fits"), (verdict, shown)
    # The page's format came with every model's answers; another format, one model's at a time
    # (a model's other formats are fetched once it is shown): never another format's every model.
    asked = {u.split("/engine/answers/fr/", 1)[1] for u in requests if "/engine/answers/fr/" in u}
    whole = {a for a in asked if "/" not in a}
    assert whole == {f"{default_format}.json"}
    assert {a.split("/")[1] for a in asked - whole} == {"qwen3-32b.json", "sdxl.json"}
    assert {"awq-int4/qwen3-32b.json", "awq-int4/sdxl.json", "fp8/sdxl.json"} <= asked
    release()
    wait_ready(page)
    assert not errors, errors
    context.close()


def test_a_context_only_the_engine_can_answer_waits_for_it(browser, server, catalog):
    context, page, errors, _ = open_configurator(browser, server)
    release = hold_pyodide(page)
    page.reload()
    built = rows(page)
    page.fill("input[name=context]", "16384")
    page.press("input[name=context]", "Enter")
    page.wait_for_timeout(500)
    # Nothing the build did not compute is shown: the table and the URL keep the default.
    assert rows(page) == built
    assert "context=16384" not in href(page)
    release()
    wait_ready(page)
    wait_until(lambda: "context=16384" in href(page), 20, "the engine's answer")
    model = page.get_attribute("[data-configurator]", "data-default-model")
    fmt = page.get_attribute("[data-configurator]", "data-default-format")
    want = answer(catalog, {"model": model, "format": fmt, "context": 16384})
    assert [r["verdict"] for r in rows(page)] == [r["verdict"] for r in want["rows"]]
    assert not errors, errors
    context.close()


def test_missing_build_answers_leave_the_table_to_the_engine(browser, server, catalog):
    context, page, errors, requests = open_configurator(browser, server)
    release = hold_pyodide(page)
    page.route("**/engine/answers/**", lambda route: route.fulfill(status=404, body="missing"))
    page.reload()
    caption = page.text_content("table caption")
    page.select_option("select[name=model]", "qwen3-32b")
    page.wait_for_timeout(500)
    assert page.text_content("table caption") == caption  # still the table it names, no other
    assert any("/engine/answers/" in u for u in requests)
    release()
    wait_ready(page)
    wait_until(lambda: catalog.llms["qwen3-32b"].name in page.text_content("table caption"), 20, "the engine's table")
    assert [r["verdict"] for r in rows(page)] == [w[1] for w in expected(catalog, "qwen3-32b", "bf16")]
    assert [e for e in errors if "404" not in e] == []  # the browser reports the missing file, nothing else
    context.close()


def test_configurator_page_asks_for_pyodide_once_its_table_is_painted(browser, server):
    """configurator-early.js and configurator-boot.js start the engine on their own, and it asks for Pyodide only once the build's table is on screen."""
    context = browser.new_context()
    page = context.new_page()
    requests: list = []
    page.on("request", lambda request: requests.append(request))
    # Without the widget's own script, only the head's and the boot script start the engine.
    page.route("**/assets/javascripts/configurator.js", lambda route: route.abort())
    page.goto(f"{server}/fr/{PAGE_PATHS['configurator']['fr']}")

    def pyodide_requested():
        page.wait_for_timeout(50)  # lets Playwright deliver the page's events
        return next((r for r in requests if r.url.endswith("/pyodide.mjs")), None)

    first = wait_until(pyodide_requested, 30, "Pyodide")
    first.response()  # its timing is complete once answered
    origin = page.evaluate("performance.timeOrigin")
    painted = page.evaluate("performance.getEntriesByName('first-contentful-paint').map((e) => e.startTime)")
    assert painted and origin + painted[0] <= first.timing["startTime"]
    assert page.locator("[data-configurator] tr[data-node]").count() > 0
    context.close()


def card(page):
    return page.eval_on_selector(
        "[data-answer]",
        "el => ({...el.dataset, busy: el.getAttribute('aria-busy'), tableBusy: document.querySelector('table').getAttribute('aria-busy'),"
        " pending: el.getAttribute('aria-busy') === 'true' ? el.querySelector('[data-slot=pending]').textContent : null,"
        " node_text: el.querySelector('[data-slot=node]').textContent, price: el.querySelector('[data-slot=price]').textContent})",
    )


def fields(page):
    return {name: page.input_value(f"[name={name}]") for name in ("model", "format", "context", "concurrency")}


def answers_the_fields(page):
    """No state shows an answer to another question: the card is busy, or names the fields' workload."""
    c, f = card(page), fields(page)
    if c["busy"] == "true":
        return c["tableBusy"] == "true"
    return (c["model"], c["format"], c["context"], c["concurrency"]) == (
        f["model"],
        f["format"],
        f["context"],
        f["concurrency"],
    ) and c["tableBusy"] == "false"


def cheapest_fitting(page):
    """The cheapest node of the table within the target (that holds it, for an image model, which has none)."""
    fits = [r for r in rows(page) if r["verdict"] != "none" and r["target"] != "missed"]
    cheapest = min(fits, key=lambda r: float(r["price"]))["node"] if fits else ""
    # The table marks the same node.
    assert [r["node"] for r in rows(page) if r["target"] == "recommended"] == ([cheapest] if cheapest else [])
    return cheapest


def test_a_pending_or_invalid_answer_is_never_another_questions(browser, server, catalog):
    # Defect 1: 8,192 tokens and 20 users typed before the engine is ready.
    context, page, errors, _ = open_configurator(browser, server, "en")
    release = hold_pyodide(page)
    page.reload()
    assert answers_the_fields(page)
    assert card(page)["node"] == cheapest_fitting(page)
    page.fill("input[name=context]", "8192")
    page.fill("input[name=concurrency]", "20")
    page.press("input[name=concurrency]", "Enter")
    wait_until(lambda: card(page)["busy"] == "true", 5, "the card to say it is computing")
    c = card(page)
    assert c["tableBusy"] == "true" and c["state"] == "pending"
    assert "8,192 tokens" in c["pending"] and "20 concurrent users" in c["pending"], c["pending"]
    assert answers_the_fields(page)
    release()
    wait_ready(page)
    wait_until(lambda: card(page)["context"] == "8192" and card(page)["busy"] == "false", 30, "the engine's answer")
    assert answers_the_fields(page)
    # The card names the cheapest node of the table that fits, by its cards and with its price.
    c = card(page)
    assert c["node"] == cheapest_fitting(page)
    node = catalog.node(c["node"])
    assert c["node_text"] == f"{node.count} × {catalog.gpus[node.gpu].name}"
    assert f"${node.price_month_usd:,.0f}" in c["price"]
    # A value the engine refuses: the message shows, and the old answer is marked as not this one.
    page.fill("input[name=context]", "2000000")
    page.press("input[name=context]", "Enter")
    wait_until(lambda: card(page)["state"] == "invalid", 10, "the invalid state")
    assert card(page)["busy"] == "true" and answers_the_fields(page)
    # A value out of the field's own range never reaches the engine.
    page.fill("input[name=context]", "0")
    page.press("input[name=context]", "Enter")
    wait_until(lambda: card(page)["state"] == "invalid", 10, "the invalid state")
    assert answers_the_fields(page)
    assert not errors, errors
    context.close()


def test_nothing_fits_offers_the_engines_changes(browser, server, catalog):
    # Defect 5: DeepSeek V3 in BF16 fits nowhere; its native format does.
    assert catalog.llms["deepseek-v3"].native_format == "fp8"
    context, page, errors, _ = open_configurator(browser, server, "en", "?model=deepseek-v3&format=bf16")
    wait_ready(page)
    wait_until(lambda: card(page)["model"] == "deepseek-v3" and card(page)["busy"] == "false", 20, "DeepSeek's answer")
    assert card(page)["node"] == ""
    assert all(r["verdict"] == "none" for r in rows(page))
    offered = page.eval_on_selector_all("[data-suggestion]", "bs => bs.map(b => ({...b.dataset, text: b.textContent}))")
    assert any(s["format"] == "fp8" for s in offered), offered
    fp8 = next(s for s in offered if s["format"] == "fp8")
    page.click("[data-suggestion][data-format=fp8]")
    wait_until(lambda: card(page)["format"] == "fp8" and card(page)["busy"] == "false", 20, "the FP8 answer")
    assert page.input_value("[name=format]") == "fp8"
    assert card(page)["node"] == fp8["node"] == cheapest_fitting(page)
    assert answers_the_fields(page)
    assert not errors, errors
    context.close()


def test_sorting_uses_raw_values_in_english_and_memory_sorts_by_gigabytes(browser, server):
    # Defect 11: "110,853" before "5,176" when sorted as text.
    context, page, errors, _ = open_configurator(browser, server, "en", "?model=llama-3.1-8b&format=fp8&concurrency=64")
    wait_ready(page)
    wait_until(lambda: card(page)["concurrency"] == "64" and card(page)["busy"] == "false", 30, "the answer")
    page.click("button[data-sort=total]")
    texts = page.eval_on_selector_all(
        "tr[data-node]:not([hidden])",
        "trs => trs.map(tr => tr.cells[[...tr.parentNode.parentNode.tHead.rows[0].cells].findIndex(th => th.dataset.col === 'total')].textContent)",
    )
    numbers = [float(t.replace(",", "")) for t in texts if t]
    assert any(n >= 1000 for n in numbers), numbers  # separators are there to be misread
    assert numbers == sorted(numbers)
    page.click("button[data-sort=memory]")
    used = [
        float(r["vMemory"])
        for r in page.eval_on_selector_all("tr[data-node]:not([hidden])", "trs => trs.map(t => t.dataset)")
    ]
    assert used == sorted(used)
    assert not errors, errors
    context.close()


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)])
def test_the_answer_is_on_screen_and_the_page_never_scrolls_sideways(browser, server, size):
    # Defects 2 and 4: the node, its price and speed above the fold, at a desktop and a phone width.
    for locale in LOCALES:
        context = browser.new_context(viewport={"width": size[0], "height": size[1]})
        page = context.new_page()
        page.goto(
            f"{server}/{locale}/{PAGE_PATHS['configurator'][locale]}?model=llama-3.3-70b&format=bf16&context=8192&concurrency=20"
        )
        wait_ready(page)
        wait_until(
            lambda page=page: card(page)["context"] == "8192" and card(page)["busy"] == "false", 30, "the answer"
        )
        page.locator("[data-answer]").scroll_into_view_if_needed()
        for slot in ("node", "price", "per_user"):
            box = page.locator(f"[data-answer] [data-slot={slot}]").bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= size[1], (slot, box)
            assert box["x"] >= 0 and box["x"] + box["width"] <= size[0], (slot, box)
        assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
        context.close()


def test_messages_are_in_the_pages_language_and_own_model_help_is_neutral(browser, server):
    # Defects 8 and 9: no red "missing: …" before anything is typed; French words on French pages.
    context, page, errors, _ = open_configurator(browser, server, "fr")
    wait_ready(page)
    page.fill("input[name=context]", "2000000")
    page.press("input[name=context]", "Enter")
    wait_until(lambda: page.is_visible("[data-message]"), 20, "the engine's refusal")
    message = page.text_content("[data-message]")
    assert "dépasse" in message and "2\u202f000\u202f000" in message and "exceeds" not in message, message
    assert page.text_content("[data-error-for=context]") == message
    page.fill("input[name=context]", "4096")
    page.select_option("select[name=model]", "custom")
    wait_until(lambda: card(page)["state"] == "invalid", 10, "the help")
    assert all(
        not t.strip() for t in page.eval_on_selector_all("[data-error-for]", "els => els.map(e => e.textContent)")
    )
    assert "config.json" in card(page)["pending"]
    # A dense model by its totals alone (Llama 3.1 8B, Meta's model card: 8.03 B, 32 layers, 8 KV heads of 128).
    for name, value in (("total", "8,03"), ("layers", "32"), ("kv_heads", "8"), ("head_dim", "128")):
        page.fill(f"input[name={name}]", value)
    wait_until(lambda: card(page)["state"] == "answer" and card(page)["model"] == "custom", 20, "the custom answer")
    read = page.text_content("[data-model-read]")
    assert "8,03 milliards de paramètres (8,03 milliards actifs)" in read and "32 couches" in read, read
    assert answers_the_fields(page)
    assert not errors, errors
    context.close()


def test_keyboard_screen_reader_and_explanations(browser, server, catalog):
    # Defects 6, 7 and 13: focus ring, sort direction shown, a live region, notices that go;
    # columns explained with a legend and a link to the method; image models without LLM fields.
    context, page, errors, _ = open_configurator(browser, server, "en")
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    wait_ready(page)
    page.focus("input[name=context]")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    outline = page.eval_on_selector("input[name=context]", "el => getComputedStyle(el).outlineStyle")
    assert outline not in ("", "none"), outline
    arrow = page.evaluate(
        "getComputedStyle(document.querySelector('th[aria-sort=ascending] button'), '::after').content"
    )
    assert "▲" in arrow
    page.fill("input[name=concurrency]", "8")
    page.press("input[name=concurrency]", "Enter")
    wait_until(lambda: card(page)["concurrency"] == "8" and card(page)["busy"] == "false", 20, "the answer")
    live = page.eval_on_selector("[data-announce]", "el => [el.getAttribute('aria-live'), el.textContent]")
    assert live[0] == "polite" and card(page)["node_text"] in live[1]
    helps = page.eval_on_selector_all("th[title]", "ths => ths.map(th => th.dataset.col)")
    assert {"per_user", "total", "per_mtok", "memory"} <= set(helps)
    assert page.locator(".configurator__legend .legend__swatch").count() == 4
    method = page.get_attribute(".configurator__legend a", "href")
    assert method and method.rstrip("/").endswith("methodology")
    page.click("[data-copy-link]")
    wait_until(lambda: page.is_visible("[data-notice]"), 15, "the notice")
    assert page.is_hidden("[data-message]")  # a notice is no error: it shows beside its button
    wait_until(lambda: page.is_hidden("[data-notice]"), 10, "the notice to go")
    # The chart: the fitting nodes, at the content's width, the recommended one labelled.
    wait_until(lambda: page.locator("[data-chart] svg").count() == 1, 10, "the chart")
    chart_width = page.eval_on_selector("[data-chart] svg", "svg => svg.getBoundingClientRect().width")
    assert chart_width >= 600
    fits = [r for r in rows(page) if r["verdict"] != "none"]
    assert page.locator("[data-chart] circle").count() == len(fits)
    marked = page.get_attribute("[data-chart] circle.point--marked:last-of-type", "data-node")
    assert marked in {r["node"] for r in fits}
    assert page.locator(f'[data-chart] circle[data-node="{card(page)["node"]}"].point--marked').count() == 1
    # An image model: no context, users, runtime or KV cache to choose.
    page.select_option("select[name=model]", "sdxl")
    wait_until(lambda: page.is_hidden("input[name=context]"), 10, "the LLM fields to go")
    assert page.is_hidden("input[name=concurrency]") and page.is_hidden("select[name=kv_cache]")
    # Its columns that mean nothing for an image (their label a dash) show the dash, no sort button
    # a screen reader would name "Sort by —", but words it reads; an LLM gets the buttons back.
    from macros.i18n import WIDGET

    void = {k[4 : -len("_diffusion")] for k, v in WIDGET["en"].items() if k.startswith("col_") and v == "—"}
    assert void
    heads = """ths => ths.map((th) => [th.dataset.col, th.querySelector("button").hidden,
        th.querySelector("[data-void] [aria-hidden=true]")?.textContent,
        th.querySelector("[data-void] .md-visually-hidden")?.textContent])"""
    shown = page.eval_on_selector_all("th[data-col]", heads)
    assert {col for col, hidden, _, _ in shown if hidden} == void
    words = (WIDGET["en"]["col_best_per_mtok_diffusion"], WIDGET["en"]["col_void"])
    assert [h for h in shown if (h[2], h[3]) != (words if h[1] else (None, None))] == [], words
    page.select_option("select[name=model]", "qwen3-32b")

    def buttons_back() -> bool:
        return all(
            not hidden and seen is None for _, hidden, seen, _ in page.eval_on_selector_all("th[data-col]", heads)
        )

    wait_until(buttons_back, 20, "every sort button back for a language model")
    assert not errors, errors
    context.close()


def test_a_forced_layout_the_runtime_refuses_is_said_in_french_beside_the_layout(browser, server, catalog):
    # Qwen3 235B's FP8 checkpoint on 8-way tensor parallelism: each card's slice of an expert's
    # width (catalog: moe_intermediate_size) would cut its 128-weight FP8 blocks, which vLLM refuses.
    from macros.fitengine.workloads import quant_block
    from macros.i18n import WIDGET

    model = catalog.llms["qwen3-235b-a22b"]
    width, block = model.architecture.moe.expert_intermediate, quant_block(model, catalog.formats["fp8"])
    assert block and (width // 8) % block
    query = "?v=1&model=qwen3-235b-a22b&format=fp8&tensor_parallel=8"
    context, page, errors, _ = open_configurator(browser, server, "fr", query)
    wait_ready(page)
    wait_until(lambda: page.is_visible("[data-message]"), 20, "the engine's refusal")
    assert page.input_value("select[name=tensor_parallel]") == "8"
    message = page.text_content("[data-message]")
    french = lambda n: f"{n:,}".replace(",", "\u202f")  # noqa: E731
    words = WIDGET["fr"]["err_layout_block"].format(tp=8, width=french(width), slice=width // 8, block=block)
    assert message == words, message
    assert page.text_content("[data-error-for=layout]") == message
    assert card(page)["state"] == "invalid" and card(page)["busy"] == "true"
    # Back to the engine's choice: an answer again, and the words go.
    page.select_option("select[name=tensor_parallel]", "")
    wait_until(lambda: card(page)["state"] == "answer", 20, "the answer")
    assert page.is_hidden("[data-message]") and not page.text_content("[data-error-for=layout]")
    assert not errors, errors
    context.close()


def test_a_data_parallel_link_is_answered_and_refused_for_a_dense_model(browser, server):
    # data_parallel= in the link: DeepSeek V3 is answered with its ranks named in the rows; a dense
    # model is refused in the verdicts' own French words (reasons.py, layout_dp_dense).
    from macros.i18n import WIDGET

    context, page, errors, _ = open_configurator(
        browser, server, "fr", "?v=1&model=deepseek-v3&format=fp8&data_parallel=8"
    )
    wait_ready(page)
    wait_until(lambda: card(page)["state"] == "answer", 30, "the answer")
    assert page.input_value("select[name=data_parallel]") == "8"
    markup = " ".join(row_markup(page))
    assert WIDGET["fr"]["layout_ranks"].format(cards=8, dp=8, tp=1) in markup
    page.select_option("select[name=model]", "llama-3.3-70b")
    wait_until(lambda: page.is_visible("[data-message]"), 30, "the engine's refusal")
    message = page.text_content("[data-message]")
    assert message == WIDGET["fr"]["err_layout_dp_dense"].format(dp=8), message
    assert page.text_content("[data-error-for=layout]") == message
    assert not errors, errors
    context.close()


def test_without_javascript_the_builds_answer_says_what_needs_javascript(browser, server, catalog):
    # Defect 12: no "engine is loading" without a script; controls that cannot work are disabled;
    # a link naming another model is not silently answered with the default one.
    from macros.i18n import WIDGET

    query = "?v=1&model=deepseek-v3&format=fp8"
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server}/en/{PAGE_PATHS['configurator']['en']}{query}")
    status = page.text_content("[data-engine-status]")
    assert "loading" not in status.lower(), status
    c = card(page)
    default = page.get_attribute("[data-configurator]", "data-default-model")
    default_format = page.get_attribute("[data-configurator]", "data-default-format")
    a = catalog.assumptions
    assert default != "deepseek-v3" and c["model"] == default
    assert (c["format"], c["context"], c["concurrency"]) == (
        default_format,
        str(a.default_context),
        str(a.default_concurrency),
    )
    # The line names the workload the shown answer is for, and says a link's values need JavaScript.
    line = page.text_content(".configurator__noscript")
    users = WIDGET["en"]["users_one" if a.default_concurrency == 1 else "users_many"].format(
        n=f"{a.default_concurrency:,}"
    )
    names = (catalog.llms[default].name, catalog.formats[default_format].name, f"{a.default_context:,} tokens", users)
    for part in names:
        assert part in line, (part, line)
    assert "A link naming another model or other values cannot be answered without JavaScript" in line
    # Every control that needs the script is disabled in the markup; the answer itself is there.
    controls = "[data-configurator] :is(select, input, textarea, button):not([hidden], [hidden] *)"
    states = page.eval_on_selector_all(
        controls, "els => els.map(e => [e.name || e.dataset.sort || e.className, e.disabled])"
    )
    assert states and not [name for name, disabled in states if not disabled], states
    assert page.locator("button[data-sort]").count() == page.locator("button[data-sort]:disabled").count() > 0
    shown = dom_rows(page)
    fits = [r for r in shown if r["verdict"] != "none"]
    assert shown[: len(fits)] == fits and c["node"] == fits[0]["node"]
    assert [float(r["price"]) for r in fits] == sorted(float(r["price"]) for r in fits)
    context.close()
    # With JavaScript, the script enables them and answers the link's own question.
    context, page, errors, _ = open_configurator(browser, server, "en", query)
    wait_until(
        lambda: card(page)["model"] == "deepseek-v3" and card(page)["state"] == "answer", 90, "the link's answer"
    )
    assert page.locator("[data-configurator] [data-needs-js]:disabled").count() == 0
    assert not errors, errors
    context.close()


def test_the_chart_is_in_the_page_without_javascript_and_redrawn_at_its_width_with_it(browser, server, catalog):
    # The build drew it with the browser's module (macros/render/node_render.py); it needs no script.
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(f"{server}/fr/{PAGE_PATHS['configurator']['fr']}")
    assert page.is_visible("[data-chart] svg")
    fits = [r for r in dom_rows(page) if r["verdict"] != "none"]
    assert page.locator("[data-chart] circle").count() == len(fits) > 0
    node = card(page)["node"]
    assert page.locator(f'[data-chart] circle.point--marked[data-node="{node}"]').count() == 1
    name = catalog.gpus[catalog.node(node).gpu].name
    labels = page.eval_on_selector_all("[data-chart] .point-label", "els => els.map(e => e.textContent)")
    assert [label for label in labels if name in label and "recommandé" in label], labels
    # At a phone's width the build's drawing (640 wide) shrinks to its box, inside the phone's width.
    right = page.eval_on_selector("[data-chart] svg", "svg => svg.getBoundingClientRect().right")
    assert right <= 390, right
    context.close()
    # With JavaScript the widget redraws it with the same module, at the width of its box.
    context, page, errors, _ = open_configurator(browser, server, "fr")
    box = page.eval_on_selector("[data-chart]", "el => el.clientWidth")
    wanted = str(round(max(320, min(box, 960))))
    assert wanted != str(BUILD_WIDTH)  # else this would not tell a redrawn chart from the build's
    wait_until(lambda: page.get_attribute("[data-chart] svg", "width") == wanted, 20, "the chart at its box's width")
    assert page.locator("[data-chart] circle.point--marked").count() >= 1
    assert not errors, errors
    context.close()
