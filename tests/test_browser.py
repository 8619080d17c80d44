"""Every page of both locales in Debian's Chromium: local requests only, no console error,
the language switcher, and axe-core with no serious or critical violation."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

from .site_build import ROOT
from .test_site import LOCALES, PAGE_PATHS

CHROMIUM = "/usr/bin/chromium"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = pytest.mark.browser


def _require_browser() -> None:
    missing = [str(p) for p in (Path(CHROMIUM), AXE) if not p.exists()]
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests must run in CI, but these are missing: {', '.join(missing)}")
        pytest.skip(f"not installed here: {', '.join(missing)} (apt-get install chromium; npm ci)")
    if shutil.which("node") is None and os.environ.get("CI") == "true":
        pytest.fail("node is missing")


@pytest.fixture(scope="module")
def server(site):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))

    class Quiet(handler.func):  # type: ignore[name-defined]
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.mark.parametrize("locale", LOCALES)
def test_every_page_loads_locally_without_errors_and_passes_axe(browser, server, locale, tmp_path):
    context = browser.new_context()
    page = context.new_page()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    axe = AXE.read_text()
    for key in PAGE_PATHS:
        url = f"{server}/{locale}/{PAGE_PATHS[key][locale]}"
        response = page.goto(url)
        assert response is not None and response.ok, url
        assert page.get_attribute("html", "lang") == locale
        page.add_script_tag(content=axe)
        result = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
        bad = [
            (v["id"], v["impact"], len(v["nodes"]))
            for v in result["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        assert not bad, f"{url}: {bad}"
    page.screenshot(path=str(tmp_path / f"{locale}.png"))
    context.close()
    assert requests and all(u.startswith(server) for u in requests), [u for u in requests if not u.startswith(server)]
    assert not errors, errors


def test_language_switch_keeps_the_page(browser, server):
    page = browser.new_page()
    page.goto(f"{server}/fr/{PAGE_PATHS['nvlink']['fr']}")
    page.hover(".md-header__option .md-select")
    page.click("a.md-select__link[hreflang=en]")
    page.wait_for_url(f"{server}/en/{PAGE_PATHS['nvlink']['en']}")
    assert page.url == f"{server}/en/{PAGE_PATHS['nvlink']['en']}"
    assert page.get_attribute("html", "lang") == "en"
    page.close()


def test_root_sends_the_reader_to_their_language(browser, server):
    for language, expected in (("en-GB", "en"), ("fr-FR", "fr"), ("de-DE", "fr")):
        context = browser.new_context(locale=language)
        page = context.new_page()
        page.goto(f"{server}/")
        page.wait_for_url(f"{server}/{expected}/")
        context.close()
