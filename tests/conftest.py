"""Shared fixtures: the real catalog, loaded once, and a writable copy for tests that break it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from macros.catalog_loader import CATALOG_DIR, load_catalog, read_catalog
from macros.fitengine import Catalog

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="session")
def catalog_data() -> dict:
    data, problems = read_catalog()
    assert not problems
    return data


@pytest.fixture()
def catalog_copy(tmp_path: Path) -> Path:
    """A copy of catalog/ that a test may edit."""
    target = tmp_path / "catalog"
    shutil.copytree(CATALOG_DIR, target)
    return target


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both locales built once for the whole run, as `make site` builds them."""
    from .site_build import build_site

    return build_site(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="session")
def playwright():
    """Playwright itself, for the tests that need a browser profile on disk (a reader's own)."""
    from playwright.sync_api import sync_playwright

    from .browser import require_browser

    require_browser()
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright):
    """Debian's Chromium, driven by Playwright (see tests/browser.py)."""
    from .browser import CHROMIUM, FLAGS

    chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
    yield chromium
    chromium.close()


@pytest.fixture(scope="session")
def server(site):
    """The built site on 127.0.0.1, under the Content Security Policy it must live with."""
    from .static_server import serve

    with serve(site) as url:
        yield url


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say it loudly when the browser tests did not run (outside CI; in CI they fail instead)."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "browser" in getattr(r, "keywords", {})]
    if skipped:
        terminalreporter.write_sep(
            "!",
            f"{len(skipped)} BROWSER TESTS SKIPPED: Chromium or axe-core is missing "
            "(apt-get install chromium; npm ci). CI runs them and fails without them.",
            red=True,
            bold=True,
        )
