"""Shared browser set-up: Debian's Chromium through Playwright, never a downloaded browser.

In CI (CI=true) a missing browser fails the tests; elsewhere it skips them with the reason.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from .site_build import ROOT

CHROMIUM = Path("/usr/bin/chromium")
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = ROOT / "test-artifacts"


def require_browser() -> None:
    missing = [str(p) for p in (CHROMIUM, AXE) if not p.exists()]
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests must run in CI, but these are missing: {', '.join(missing)}")
        pytest.skip(f"not installed here: {', '.join(missing)} (apt-get install chromium; npm ci)")


def wait_until(check: Callable[[], object], timeout: float = 60.0, what: str = "condition") -> object:
    """Poll from the test side: page-side waits evaluate strings, which the site's CSP forbids."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def measure(page: Any, node: str, text: str) -> str:
    """Check a pasted output against a node in the page's "measure it yourself" panel; its verdict."""
    page.select_option("#measure-node", node)
    page.fill("#measure-text", text)
    page.click("[data-measure] button[type=submit]")
    return wait_until(lambda: page.get_attribute("[data-measure] [data-result]", "data-verdict"), 90, "the verdict")


PAGE_PATHS = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["extra"]["page_paths"]


def open_page(
    browser: Any,
    server: str,
    locale: str,
    size: tuple[int, int],
    query: str = "",
    path: str = "configurator",
    **options: Any,
) -> tuple[Any, Any, list[str]]:
    """A page of the site in a new context of `size`, with the console's errors and the page's
    exceptions collected in the list returned beside it."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, **options)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/{locale}/{PAGE_PATHS[path][locale]}{query}")
    return context, page, errors
