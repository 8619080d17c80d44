"""The configurator on a phone and a slow network: nothing on the page names another question than
the fields' (from a shared link, after an edit), a pending answer is withdrawn and says how far
the engine's loading is, a compact summary stays in view while the form is edited, confirmations
show beside their button, touch targets of 24 x 24 px at least, and a CSV a spreadsheet reads."""

from __future__ import annotations

import csv
import io
import re
from html import unescape
from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from macros.fitengine import answer
from macros.fitengine.api import with_reason_text
from macros.i18n import WIDGET
from macros.messages import engine_words
from macros.render.configurator_html import ConfiguratorHtml
from macros.render.locale_format import Formatter

from .browser import open_page, wait_until
from .test_configurator import card, wait_ready
from .test_site import LOCALES

pytestmark = pytest.mark.browser

PHONE, DESKTOP = (390, 844), (1440, 900)
# A shared link's workload, not the default one (4,096 tokens, 1 user): every text must follow it.
LINK = {
    "v": 1,
    "model": "qwen3-32b",
    "format": "fp8",
    "context": 8192,
    "concurrency": 20,
    "min_speed": 10,
    "max_ttft": 1.5,
}


def settled(page, concurrency):
    wait_ready(page)
    wait_until(
        lambda: card(page)["concurrency"] == str(concurrency) and card(page)["busy"] == "false", 30, "the answer"
    )


TEXTS = """() => {
  const root = document.querySelector('[data-configurator]');
  const text = (sel) => { const el = root.querySelector(sel); return el ? el.textContent : null; };
  const summary = root.querySelector('[data-summary]');
  return {
    intro: text('[data-intro]'), question: text('[data-slot=question]'), chart: text('[data-chart-question]'),
    caption: text('table caption'), summaryNode: text('[data-summary-node]'), summaryFigures: text('[data-summary-figures]'),
    summaryTarget: text('[data-summary-target]'), summary: {...summary.dataset}, pending: text('[data-slot=pending]'),
  };
}"""


def expected_texts(catalog, locale, request):
    """What the build's own code writes for this question (the engine in CPython, the locale's words)."""
    html = ConfiguratorHtml(catalog, locale)
    raw = answer(catalog, {k: v for k, v in request.items() if k != "v"})
    result = with_reason_text(raw, engine_words(locale), html.number)
    shown = html.markup(result, request["model"], request["format"], compact=False)
    return {"intro": unescape(shown["intro"]), "question": unescape(shown["chart_question"]), "result": result}


def check_texts(page, catalog, locale, request):
    texts = page.evaluate(TEXTS)
    want = expected_texts(catalog, locale, request)
    assert texts["intro"] == want["intro"], texts
    assert texts["question"] == want["question"], texts
    assert texts["chart"] == want["question"], texts
    assert want["result"]["model_name"] in texts["caption"]
    t, fmt = WIDGET[locale], Formatter(locale)
    users = t["users_one" if request["concurrency"] == 1 else "users_many"].format(
        n=fmt.number(request["concurrency"], 0)
    )
    context_words = fmt.number(request["context"], 0)
    for name in ("intro", "question", "chart"):
        assert users in texts[name] and context_words in texts[name], (name, texts[name])
    # No text that names the workload names another number of users.
    pattern = t["users_many"].replace("{n}", r"([\d\u202f\u00a0,]+)")
    for name in ("intro", "question", "chart", "summaryTarget"):
        for found in re.findall(pattern, texts[name] or ""):
            assert found == fmt.number(request["concurrency"], 0), (name, texts[name])
    one = t["users_one"].format(n=fmt.number(1, 0))
    if request["concurrency"] != 1:
        assert not any(one in (texts[n] or "") for n in ("intro", "question", "chart", "summaryTarget")), texts
    # The summary answers the same question as the card, with the card's node.
    c = card(page)
    assert texts["summary"]["concurrency"] == str(request["concurrency"])
    assert texts["summary"]["context"] == str(request["context"])
    assert texts["summary"]["node"] == c["node"] and texts["summary"]["model"] == c["model"] == request["model"]
    if c["node"]:
        assert texts["summaryNode"] == c["node_text"] and c["price"] in texts["summaryFigures"]
        assert users in texts["summaryTarget"]
    assert texts["pending"] == ""


@pytest.mark.parametrize("locale", LOCALES)
def test_every_text_that_names_the_workload_follows_the_fields(browser, server, catalog, locale):
    # Opened from a shared link.
    context, page, errors = open_page(browser, server, locale, DESKTOP, f"?{urlencode(LINK)}")
    settled(page, LINK["concurrency"])
    check_texts(page, catalog, locale, LINK)
    # Then edited: another model, context and number of users.
    page.select_option("select[name=model]", "llama-3.1-8b")
    page.fill("input[name=context]", "4096")
    page.fill("input[name=concurrency]", "3")
    page.press("input[name=concurrency]", "Enter")
    settled(page, 3)
    edited = {**LINK, "model": "llama-3.1-8b", "format": page.input_value("select[name=format]"), "context": 4096}
    check_texts(page, catalog, locale, {**edited, "concurrency": 3})
    assert not errors, errors
    context.close()


def test_a_pending_answer_is_withdrawn_and_shows_the_loading_progress(browser, server, catalog):
    context, page, errors = open_page(browser, server, "en", PHONE)
    # A slow network: the engine's snapshot and Pyodide arrive over a few seconds.
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 150, "downloadThroughput": 2_500_000, "uploadThroughput": 1_000_000},
    )
    page.reload()
    wait_until(lambda: page.get_attribute("[data-engine-status]", "data-engine-status") == "loading", 20, "loading")
    # A question only the engine can answer, asked before it is ready.
    page.fill("input[name=concurrency]", "20")
    page.press("input[name=concurrency]", "Enter")
    busy_after = page.evaluate(
        "() => new Promise((done) => { const t0 = performance.now(); const card = document.querySelector('[data-answer]');"
        " const check = () => card.getAttribute('aria-busy') === 'true' ? done(performance.now() - t0) : requestAnimationFrame(check);"
        " check(); })"
    )
    # Marked pending at once, while the engine still loads (how fast is make bench's slow_pending_ms).
    assert busy_after >= 0 and page.get_attribute("[data-engine-status]", "data-engine-status") == "loading"
    wait_until(
        lambda: page.get_attribute("[data-answer]", "data-dim") is not None, 2, "the old figures to be withdrawn"
    )
    # The withdrawn figures are visibly muted, not at full strength.
    colors = page.evaluate(
        "() => [getComputedStyle(document.querySelector('[data-slot=price]')).color,"
        " getComputedStyle(document.querySelector('[data-intro]')).color]"
    )
    assert colors[0] != colors[1], colors
    # The card names what it computes, and the loading's progress grows until the answer.
    shares: list[float] = []
    while page.get_attribute("[data-engine-status]", "data-engine-status") == "loading":
        # Read at one moment: the bar, and the line it goes with.
        share, pending = page.evaluate(
            "() => [document.querySelector('[data-progress]'), document.querySelector('[data-slot=pending]')]"
            ".map((el, i) => i ? el.textContent : (el.hidden ? null : el.value))"
        )
        if share is not None and page.get_attribute("[data-answer]", "data-state") == "pending":
            shares.append(float(share))
            assert "20 concurrent users" in pending and "%" in pending, pending
            assert "Qwen" not in pending and "Llama 3.3 70B" in pending, pending
        page.wait_for_timeout(100)
    assert len(set(shares)) >= 3, shares
    assert shares == sorted(shares) and 0 < shares[0] < shares[-1] <= 1, shares
    settled(page, 20)
    assert page.is_hidden("[data-progress]") and page.text_content("[data-slot=pending]") == ""
    assert page.get_attribute("[data-answer]", "data-dim") is None
    assert not errors, errors
    context.close()


FIELDS = (
    ("select", "model", "qwen3-32b"),
    ("select", "format", "awq-int4"),
    ("input", "context", "16384"),
    ("input", "concurrency", "12"),
    ("input", "min_speed", "8"),
    ("input", "max_ttft", "3"),
)

IN_VIEW = """() => {
  const box = document.querySelector('[data-summary]').getBoundingClientRect();
  const header = document.querySelector('.md-header').getBoundingClientRect();
  return {top: box.top, bottom: box.bottom, height: box.height, header: header.bottom, inner: innerHeight};
}"""


@pytest.mark.parametrize("locale", LOCALES)
def test_on_a_phone_the_summary_stays_in_view_while_the_form_is_edited(browser, server, catalog, locale):
    context, page, errors = open_page(browser, server, locale, PHONE)
    wait_ready(page)
    concurrency = int(page.input_value("input[name=concurrency]"))
    for tag, name, value in FIELDS:
        field = f"{tag}[name={name}]"
        page.eval_on_selector(field, "el => el.scrollIntoView({block: 'center'})")
        if tag == "select":
            page.select_option(field, value)
        else:
            page.fill(field, value)
            page.press(field, "Enter")
        concurrency = int(page.input_value("input[name=concurrency]"))
        settled(page, concurrency)
        box = page.evaluate(IN_VIEW)
        assert box["height"] > 0 and box["top"] >= box["header"] - 1 and box["bottom"] <= box["inner"], (name, box)
        # The field just edited is not under the summary.
        top = page.eval_on_selector(field, "el => el.getBoundingClientRect().top")
        assert top >= box["bottom"] - 1, (name, top, box)
        texts = page.evaluate(TEXTS)
        c = card(page)
        assert texts["summary"]["concurrency"] == str(concurrency) and texts["summary"]["node"] == c["node"], name
        assert texts["summary"]["context"] == page.input_value("input[name=context]")
        if c["node"]:
            assert texts["summaryNode"] == c["node_text"] and c["price"] in texts["summaryFigures"], name
        else:
            assert texts["summary"]["look"] in ("missed", "none")
    # The full card stays below the form, where it was.
    order = page.evaluate(
        "() => document.querySelector('[data-form]').compareDocumentPosition(document.querySelector('[data-answer]'))"
    )
    assert order & 4  # DOCUMENT_POSITION_FOLLOWING
    assert not errors, errors
    context.close()


@pytest.mark.parametrize("locale", LOCALES)
def test_link_copied_shows_beside_its_button_and_moves_nothing(browser, server, locale):
    context, page, errors = open_page(browser, server, locale, PHONE)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    wait_ready(page)
    page.eval_on_selector("[data-copy-link]", "el => el.scrollIntoView({block: 'center'})")
    layout = "() => [scrollY, document.querySelector('table').getBoundingClientRect().top, document.documentElement.scrollWidth]"
    before = page.evaluate(layout)
    button = page.eval_on_selector("[data-copy-link]", "el => el.getBoundingClientRect().toJSON()")
    page.click("[data-copy-link]")
    wait_until(lambda: page.text_content("[data-notice]"), 5, "the notice")
    assert page.text_content("[data-notice]") in (WIDGET[locale]["copied"], page.evaluate("location.href"))
    notice = page.eval_on_selector("[data-notice]", "el => el.getBoundingClientRect().toJSON()")
    assert page.evaluate(layout) == before
    # Beside the button: just above it, starting at its left edge, on the screen.
    assert abs(notice["bottom"] - button["top"]) <= 12 and abs(notice["left"] - button["left"]) <= 1, (notice, button)
    assert notice["left"] >= 0 and notice["right"] <= PHONE[0]
    wait_until(lambda: not page.text_content("[data-notice]"), 10, "the notice to go")
    assert not errors, errors
    context.close()


TARGETS = """(selector) => Array.from(document.querySelectorAll(selector)).flatMap((root) =>
  Array.from(root.querySelectorAll('button, select, input, textarea, summary, a.md-button'))
    .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden')
    .map((el) => { const r = el.getBoundingClientRect();
      return {what: el.outerHTML.slice(0, 80), width: r.width, height: r.height}; }))"""


@pytest.mark.parametrize("size", (PHONE, DESKTOP), ids=("phone", "desktop"))
@pytest.mark.parametrize("path", ("configurator", "nvlink"))
def test_touch_targets_are_24_px_at_least(browser, server, path, size):
    context, page, errors = open_page(browser, server, "en", size, path=path)
    if path == "configurator":
        wait_ready(page)
    else:
        # The guide's compact configurator starts when touched: its controls are enabled then.
        page.focus("[data-configurator] select[name=model]")
        wait_ready(page)
    # Every reason's button shown (the folded rows too), so that every "Why?" is measured.
    page.evaluate("() => document.querySelectorAll('[data-show-none]:not([hidden])').forEach((b) => b.click())")
    targets = page.evaluate(TARGETS, "[data-configurator], [data-measure]")
    assert len(targets) > 20, targets
    small = [t for t in targets if t["width"] < 24 or t["height"] < 24]
    assert not small, small
    # The sort buttons say that they sort, and keep their visible label in their name.
    names = page.eval_on_selector_all(
        "th[data-col] button", "bs => bs.map((b) => [b.getAttribute('aria-label'), b.textContent])"
    )
    assert names and all(label.startswith("Sort by ") and text in label for label, text in names), names
    assert not errors, errors
    context.close()


def read_csv(download, locale):
    text = download.value.path().read_text(encoding="utf-8")
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text[1:]), delimiter=";" if locale == "fr" else ","))


VISIBLE_ROWS = """() => Array.from(document.querySelectorAll('tbody tr[data-node]')).filter((tr) => !tr.hidden)
  .map((tr) => ({node: tr.dataset.node, price: tr.cells[2].textContent, perUser: tr.cells[4].textContent}))"""


@pytest.mark.parametrize("locale", LOCALES)
def test_the_csv_holds_the_question_the_units_and_the_rows_shown(browser, server, catalog, locale):
    t = WIDGET[locale]
    context, page, errors = open_page(browser, server, locale, DESKTOP, f"?{urlencode(LINK)}", accept_downloads=True)
    settled(page, LINK["concurrency"])
    # A filter and a sort: the file keeps those rows, in that order, and so does the link.
    page.select_option("[data-filter=verdict]", "single")
    page.click("th[data-col=per_user] button")
    page.click("th[data-col=per_user] button")
    assert page.get_attribute("th[data-col=per_user]", "aria-sort") == "descending"
    shown = page.evaluate(VISIBLE_ROWS)
    assert shown
    with page.expect_download() as download:
        page.click("[data-csv]")
    assert download.value.suggested_filename == f"{t['csv_file']}-qwen3-32b-fp8-ctx8192-users20.csv"
    lines = read_csv(download, locale)
    want = expected_texts(catalog, locale, LINK)
    assert lines[0] == [want["intro"]]
    assert parse_qs(urlparse(lines[1][0]).query)["concurrency"] == ["20"]
    assert lines[2] == []
    header, body = lines[3], lines[4:]
    for key in ("csv_price_month", "csv_per_user", "csv_ttft", "csv_memory", "csv_best_per_mtok", "csv_max_users"):
        assert t[key] in header, key
    assert re.search(r"\((USD|tok/s|s|Go|GB)\)$", t["csv_per_user"]) and "(USD)" in t["csv_price_month"]
    assert [line[header.index(t["csv_node"])] for line in body] == [r["node"] for r in shown]
    verdicts = {line[header.index(t["csv_verdict"])].split(" · ")[0] for line in body}
    assert verdicts == {t["single"]}
    for line, row in zip(body, shown, strict=True):
        # Rounded as the table shows it: the same digits, without the grouping and the currency sign.
        plain = row["perUser"].replace("\u202f", "") if locale == "fr" else row["perUser"].replace(",", "")
        assert line[header.index(t["csv_per_user"])] == plain
        assert line[header.index(t["csv_price_month"])] == re.sub(r"[^\d]", "", row["price"])
    # The link carries the filter and the sort: opened elsewhere, it shows the same rows.
    link = page.evaluate("location.href")
    assert parse_qs(urlparse(link).query)["sort"] == ["-per_user"]
    other = context.new_page()
    other.goto(link)
    settled(other, LINK["concurrency"])
    assert other.input_value("[data-filter=verdict]") == "single"
    assert other.get_attribute("th[data-col=per_user]", "aria-sort") == "descending"
    assert [r["node"] for r in other.evaluate(VISIBLE_ROWS)] == [r["node"] for r in shown]
    assert not errors, errors
    context.close()


def test_a_filter_chosen_before_any_field_goes_into_the_link(browser, server):
    context, page, errors = open_page(browser, server, "en", DESKTOP)
    wait_ready(page)
    page.select_option("[data-filter=verdict]", "split")
    query = parse_qs(urlparse(page.evaluate("location.href")).query)
    assert query["verdict"] == ["split"] and query["model"] == [page.input_value("select[name=model]")]
    assert "sort" not in query  # the default order writes nothing
    assert not errors, errors
    context.close()
