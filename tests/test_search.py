"""French search as readers type it, in the browser: with or without accents and ligatures, in
the singular or the plural, the verb or its noun, a word finds the same pages."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from .browser import wait_until
from .site_build import LOCALES, ROOT
from .test_configurator import wait_ready
from .test_site import PAGE_PATHS

pytestmark = pytest.mark.browser

PAIRS = [("carte", "cartes"), ("noeud", "nœud"), ("memoire", "mémoire"), ("quantifier", "quantification")]


def search(page, words: str) -> set[str]:
    """The pages Material's search lists for `words`, typed as a reader types them."""
    page.evaluate("document.getElementById('__search').checked = true")
    page.focus(".md-search__input")
    page.keyboard.press("Control+A")
    page.keyboard.press("Backspace")
    page.keyboard.type(words, delay=20)
    deadline = time.monotonic() + 20
    last, stable_since = None, time.monotonic()
    while time.monotonic() < deadline:
        meta = page.inner_text(".md-search-result__meta")
        found = page.eval_on_selector_all(
            ".md-search-result__item > a", "links => links.map(a => new URL(a.href).pathname)"
        )
        state = (meta, tuple(sorted(found)))
        if state != last:
            last, stable_since = state, time.monotonic()
        elif time.monotonic() - stable_since > 0.6 and meta and not meta.startswith("Taper"):
            return set(found)
        time.sleep(0.1)
    raise AssertionError(f"search for {words!r} did not settle: {last}")


@pytest.fixture(scope="module")
def french_search(browser, server):
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{server}/fr/")
    yield page
    assert not errors, errors
    page.close()


@pytest.mark.parametrize(("typed", "written"), PAIRS, ids=lambda w: w)
def test_french_words_find_the_same_pages_however_they_are_typed(french_search, typed, written):
    first, second = search(french_search, typed), search(french_search, written)
    assert first, f"{typed!r} finds nothing"
    assert first == second, (typed, sorted(first), written, sorted(second))


def test_the_unaccented_forms_are_not_in_the_pages_themselves(site):
    # So that the pages `noeud` and `memoire` find are found through folding, not by chance.
    text = json.loads((site / "fr" / "search" / "search_index.json").read_text())
    words = " ".join(doc["title"] + " " + doc["text"] for doc in text["docs"]).lower()
    assert "nœud" in words and "mémoire" in words
    assert "noeud" not in words and "memoire" not in words


def test_french_search_ships_lunrs_french_beside_its_wrapper(site):
    from material import templates

    theme = Path(templates.__file__).parent / "assets" / "javascripts" / "lunr" / "min"
    for locale in LOCALES:
        shipped = site / locale / "assets" / "javascripts" / "lunr" / "min"
        assert (shipped / "lunr.fr.vendor.min.js").read_bytes() == (theme / "lunr.fr.min.js").read_bytes()
        wrapper = (shipped / "lunr.fr.min.js").read_text()
        assert (
            wrapper == (ROOT / "overrides" / "assets" / "javascripts" / "lunr" / "min" / "lunr.fr.min.js").read_text()
        )
        assert 'importScripts("../lunr/min/lunr.fr.vendor.min.js")' in wrapper


@pytest.mark.parametrize("locale", LOCALES)
def test_the_configured_separator_and_pipeline_are_materials_own_for_the_locale(locale):
    """mkdocs.yml gives the search plugin the separator and pipeline Material would look up in
    its language templates (so that it need not compile them on every build): they must be the
    ones Material's templates give for each locale, as the search plugin reads them."""

    from mkdocs.config import load_config

    from macros.locales import locales

    config = load_config(str(next(loc.config for loc in locales() if loc.code == locale)))
    module = config.theme.get_env().get_template("partials/language.html", None, {"config": config}).module
    search = config.plugins["material/search"].config
    assert search.separator == module.t("search.config.separator")
    assert search.pipeline == [p for p in re.split(r"\s*,\s*", module.t("search.config.pipeline")) if p]
    assert module.t("search.config.lang") == locale  # the one word still looked up, per locale


CONFIGURATOR = f"fr/{PAGE_PATHS['configurator']['fr']}"
# How long search-later.js waits, after the engine is ready, for a page the reader leaves alone.
QUIET_MS = int(
    re.search(
        r"(?:const|let|var) QUIET_MS = (\d+);",
        (ROOT / "overrides" / "assets" / "javascripts" / "search-later.js").read_text(),
    ).group(1)
)

SEARCH_WORKER_STARTED = """() => {
  const found = performance.getEntriesByType("resource").find((e) => /\\/workers\\/search\\.[^/]*\\.js$/.test(e.name));
  return found ? found.startTime : null;
}"""


def test_on_the_configurator_search_waits_for_the_engine_unless_the_reader_reaches_for_it(browser, server):
    """search-later.js: Material's search worker is not started beside Pyodide's start, and a
    reader who opens search meanwhile gets it at once, with the same results as elsewhere."""
    context = browser.new_context()
    held: list = []
    context.route("**/engine/manifest.json", lambda route: held.append(route))  # the engine's start stops there
    try:
        home = context.new_page()
        home.goto(f"{server}/fr/")
        elsewhere = search(home, "nvlink")
        page = context.new_page()
        page.goto(f"{server}/{CONFIGURATOR}")
        page.wait_for_load_state("load")
        wait_until(lambda: held, 30, "the engine's request for its manifest")
        time.sleep(1.0)
        assert page.get_attribute("[data-engine-status]", "data-engine-status") == "loading"
        assert page.evaluate(SEARCH_WORKER_STARTED) is None
        found = search(page, "nvlink")
        assert page.evaluate(SEARCH_WORKER_STARTED) is not None
        assert found and found == elsewhere
        for route in held:
            route.continue_()
        wait_ready(page)
    finally:
        context.close()


def test_on_the_configurator_search_starts_once_the_engine_is_ready_and_the_page_quiet(browser, server):
    page = browser.new_page()
    try:
        page.goto(f"{server}/{CONFIGURATOR}")
        wait_ready(page)
        started = wait_until(lambda: page.evaluate(SEARCH_WORKER_STARTED), QUIET_MS / 1000 + 10, "the search worker")
        ready = page.evaluate("performance.getEntriesByName('configurator-ready')[0].startTime")
        # The quiet time after ready, the reader having touched nothing (10 ms for the clocks' rounding).
        assert started >= ready + QUIET_MS - 10
    finally:
        page.close()


def test_a_guide_starts_search_as_the_page_loads(browser, server, site):
    # Only the configurator page holds search back: a guide has no engine to wait for.
    assert "search-later.js" not in (site / "fr" / "index.html").read_text()
    assert "search-later.js" in (site / CONFIGURATOR / "index.html").read_text()
    page = browser.new_page()
    try:
        page.goto(f"{server}/fr/")
        wait_until(lambda: page.evaluate(SEARCH_WORKER_STARTED) is not None, 10, "the search worker")
    finally:
        page.close()
