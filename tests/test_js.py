"""The widgets' pure JavaScript (input bounds, replacements), run with `node --test tests/js/`."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from .conftest import ROOT


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_tests_pass():
    run = subprocess.run(["node", "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
