"""The developer's commands say what went wrong in one line, and never skip silently."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_serve_on_a_busy_port_says_so_in_one_line():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = subprocess.run(
            ["make", "--no-print-directory", "-s", "serve", f"PORT={port}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert out.returncode != 0
    lines = (out.stdout + out.stderr).strip().splitlines()
    assert len(lines) == 1, lines
    assert (
        f"make serve: port {port} on 127.0.0.1 is already in use; stop what holds it or choose another: "
        "make serve PORT=8001" in lines[0]
    )


def test_skipped_browser_tests_are_announced_outside_ci(tmp_path):
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_terminal_summary  # noqa: F401\n")
    (tmp_path / "test_x.py").write_text(
        "import pytest\n\n@pytest.mark.browser\ndef test_page():\n    pytest.skip('no chromium')\n\n"
        "def test_engine():\n    pass\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CI": "false"}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-W", "ignore", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "1 passed, 1 skipped" in out.stdout, out.stdout
    assert "1 BROWSER TESTS SKIPPED" in out.stdout, out.stdout
