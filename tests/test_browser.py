"""Every page of both locales in Debian's Chromium, under the site's Content Security Policy:
local requests only, no console error, the language switcher, and axe-core with no serious or
critical violation."""

from __future__ import annotations

import pytest

from .browser import ARTIFACTS, AXE
from .test_site import LOCALES, PAGE_PATHS

pytestmark = pytest.mark.browser


def watch(page, server):
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    return requests, errors


# The reader's system setting, which the site's color scheme follows until they use the toggle.
SCHEMES = {"light": "default", "dark": "slate"}


# A phone's width and a desktop's.
SIZES = {"phone": (390, 844), "desktop": (1440, 900)}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("locale", LOCALES)
def test_every_page_loads_locally_without_errors_and_passes_axe(browser, server, locale, scheme, size):
    width, height = SIZES[size]
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": height})
    page = context.new_page()
    requests, errors = watch(page, server)
    # axe is injected through the DevTools protocol, which the page's CSP does not govern.
    axe = AXE.read_text()
    for key in PAGE_PATHS:
        url = f"{server}/{locale}/{PAGE_PATHS[key][locale]}"
        response = page.goto(url)
        assert response is not None and response.ok, url
        assert page.get_attribute("html", "lang") == locale
        assert page.get_attribute("body", "data-md-color-scheme") == SCHEMES[scheme], url
        page.evaluate(axe + "\n;0")
        result = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
        # Every finding, whatever its impact (a landmark two regions share, an empty header).
        bad = [(v["id"], v["impact"], len(v["nodes"]), v["nodes"][0]["target"]) for v in result["violations"]]
        assert not bad, f"{url}: {bad}"
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(f"{server}/{locale}/{PAGE_PATHS['nvlink'][locale]}")
    suffix = ("" if scheme == "light" else "-dark") + ("" if size == "desktop" else f"-{size}")
    page.screenshot(path=str(ARTIFACTS / f"nvlink-{locale}{suffix}.png"))
    context.close()
    assert requests and all(u.startswith(server) for u in requests), [u for u in requests if not u.startswith(server)]
    assert not errors, errors


def test_language_switch_keeps_the_page(browser, server):
    page = browser.new_page()
    page.goto(f"{server}/fr/{PAGE_PATHS['nvlink']['fr']}")
    page.hover(".md-header__option .md-select")
    page.click("a.md-select__link[hreflang=en]")
    page.wait_for_url(f"{server}/en/{PAGE_PATHS['nvlink']['en']}")
    assert page.get_attribute("html", "lang") == "en"
    page.close()


def test_root_sends_the_reader_to_their_language(browser, server):
    for language, expected in (("en-GB", "en"), ("fr-FR", "fr"), ("de-DE", "fr")):
        context = browser.new_context(locale=language)
        page = context.new_page()
        page.goto(f"{server}/")
        page.wait_for_url(f"{server}/{expected}/")
        context.close()


def test_pages_work_without_javascript(browser, server, catalog):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server}/fr/{PAGE_PATHS['configurator']['fr']}")
    assert page.locator("tr[data-node]").count() == len(catalog.nodes)
    assert page.get_attribute("[data-engine-status]", "data-engine-status") == "static"
    context.close()


@pytest.mark.parametrize("system", ("light", "dark"))
def test_the_color_scheme_toggle_switches_and_is_remembered(browser, server, system):
    # Under the site's CSP (no inline script): the scheme is set before Material's bundle runs.
    context = browser.new_context(color_scheme=system)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    url = f"{server}/en/{PAGE_PATHS['configurator']['en']}"
    page.goto(url)
    shown, other = ("default", "slate") if system == "light" else ("slate", "default")
    assert page.get_attribute("body", "data-md-color-scheme") == shown
    # Following the system, the first click switches to the other scheme, as the toggle names it.
    label = page.locator("[data-md-component=palette] label:visible")
    assert label.get_attribute("title") == ("Switch to dark mode" if system == "light" else "Switch to light mode")
    label.click()
    assert page.get_attribute("body", "data-md-color-scheme") == other
    switched_bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.reload()
    assert page.get_attribute("body", "data-md-color-scheme") == other
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == switched_bg
    # The configurator's own colors follow: the memory bar's free part is the scheme's own.
    free = page.eval_on_selector(".bar__free", "el => getComputedStyle(el).fill")
    assert (free == "rgb(224, 224, 224)") == (other == "default"), free
    # Then round the options: on a light system, dark and the system's (light) in turn; on a dark
    # one, light, dark, then the system's (dark again: the toggle then says it follows the system).
    seen = [other]
    for _ in range(3):
        page.locator("[data-md-component=palette] label:visible").click()
        seen.append(page.get_attribute("body", "data-md-color-scheme"))
    cycle = ["slate", "default"] * 2 if system == "light" else ["default", "slate", "slate", "default"]
    assert seen == cycle, seen
    assert not errors, errors
    context.close()


@pytest.mark.parametrize("script", [True, False], ids=["javascript", "no-javascript"])
def test_no_page_is_wider_than_a_phone(browser, server, script):
    # Material's language menu, centered on its button at the header's right edge, once reached
    # 21 px past a 390 px screen; wide tables scroll inside their own box.
    context = browser.new_context(java_script_enabled=script, viewport={"width": 390, "height": 844})
    page = context.new_page()
    wider = []
    for locale in LOCALES:
        for paths in PAGE_PATHS.values():
            page.goto(f"{server}/{locale}/{paths[locale]}")
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > 390:
                wider.append((locale, paths[locale], width))
    context.close()
    assert not wider, wider
