"""The widgets' JavaScript: its Node tests (`node --test tests/js/`) pass, and no module outgrows one concern."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from .conftest import ROOT


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_tests_pass():
    run = subprocess.run(["node", "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


MODULE_LINES = 400  # a JavaScript module longer than this holds more than one concern


def test_no_javascript_module_is_over_its_length():
    scripts = ROOT / "overrides" / "assets" / "javascripts"
    files = [p for p in scripts.rglob("*.js") if "lunr" not in p.relative_to(scripts).parts]
    files += list((ROOT / "macros").rglob("*.mjs"))
    assert len(files) > 10
    long = {
        str(p.relative_to(ROOT)): n
        for p in files
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
    }
    assert long == {}, f"split by concern: {long}"
