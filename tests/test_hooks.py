"""The build hooks' state: one object that outlives `mkdocs serve`'s reloads of the config."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(script: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_hooks_and_their_state_survive_a_reload_of_each_locales_config():
    # `mkdocs serve` loads the config again on every edit; the state must be the same object.
    out = _run(
        """
        from mkdocs.config import load_config
        from macros.locales import locales
        configs = [load_config(str(locale.config)) for locale in locales()] * 2
        modules = {id(hooks) for c in configs for hooks in c["hooks"].values()}
        states = {id(hooks.STATE) for c in configs for hooks in c["hooks"].values()}
        print(len(configs), len(modules), len(states))
        """
    )
    configs, modules, states = map(int, out.split())
    assert configs >= 4 and modules == 1 and states == 1


def test_edited_macros_are_forgotten_and_unchanged_ones_kept():
    out = _run(
        """
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location("hooks", "macros/build_hooks.py")
        hooks = sys.modules["hooks"] = importlib.util.module_from_spec(spec)  # as MkDocs loads hooks
        spec.loader.exec_module(hooks)
        state = hooks.BuildState(command="serve")
        import macros.guide_macros
        first = hooks.forget_changed_macros(state, (("a", 1, 1),))
        kept = "macros.guide_macros" in sys.modules
        same = hooks.forget_changed_macros(state, (("a", 1, 1),))
        kept_again = "macros.guide_macros" in sys.modules
        edited = hooks.forget_changed_macros(state, (("a", 2, 1),))
        gone = not any(m == "macros" or m.startswith("macros.") for m in sys.modules)
        print(first, kept, same, kept_again, edited, gone)
        """
    )
    assert out.split() == ["False", "True", "False", "True", "True", "True"]


def test_the_hooks_keep_no_state_in_the_config_or_the_macros_package():
    source = (ROOT / "macros" / "build_hooks.py").read_text(encoding="utf-8")
    assert "global " not in source
    assert 'config["extra"][' not in source
    assert "get_env =" not in source  # the theme's environment is adjusted in on_env, not patched
