"""An ES module run once under Node, its input given as JSON on standard input: how the tests ask
the widget's own modules for what they write, apart from the build's Node process."""

from __future__ import annotations

import json
import subprocess
from typing import Any


def run_module(script: str, payload: Any) -> str:
    """What `script` (an ES module's source) prints, given `payload` as JSON on its standard input."""
    done = subprocess.run(
        ["node", "--no-warnings", "--input-type=module", "-e", script],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout
