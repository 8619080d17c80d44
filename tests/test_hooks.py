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
        spec = importlib.util.spec_from_file_location("hooks", "macros/build/build_hooks.py")
        hooks = sys.modules["hooks"] = importlib.util.module_from_spec(spec)  # as MkDocs loads hooks
        spec.loader.exec_module(hooks)
        state = hooks.BuildState(command="serve")
        import macros.guides
        first = hooks.forget_changed_macros(state, (("a", 1, 1),))
        kept = "macros.guides" in sys.modules
        same = hooks.forget_changed_macros(state, (("a", 1, 1),))
        kept_again = "macros.guides" in sys.modules
        edited = hooks.forget_changed_macros(state, (("a", 2, 1),))
        gone = not any(m == "macros" or m.startswith("macros.") for m in sys.modules)
        print(first, kept, same, kept_again, edited, gone)
        """
    )
    assert out.split() == ["False", "True", "False", "True", "True", "True"]


def test_the_hooks_keep_no_state_in_the_config_or_the_macros_package():
    source = (ROOT / "macros" / "build" / "build_hooks.py").read_text(encoding="utf-8")
    assert "global " not in source
    assert 'config["extra"][' not in source
    assert "get_env =" not in source  # the theme's environment is adjusted in on_env, not patched


def test_the_theme_files_listed_once_a_process_are_the_ones_mkdocs_lists(tmp_path):
    """MkDocs lists the theme's static files on every build (some 14,500 names, Material's icons);
    the hooks list them once a process. What they add is what MkDocs' own listing adds; a file
    added to the theme's overrides is seen on the next build; a file of the pages' folder is
    never replaced by the theme's."""
    out = _run(
        f"""
        import importlib.util, shutil, sys
        from pathlib import Path
        from mkdocs.config import load_config
        from mkdocs.structure.files import File, Files

        own = Files.add_files_from_theme  # MkDocs' own, before any hook replaces it
        spec = importlib.util.spec_from_file_location("hooks", "macros/build/build_hooks.py")
        hooks = sys.modules["hooks"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(hooks)
        listed = []
        hooks._add_files_from_theme = lambda files, env, config: listed.append(1) or own(files, env, config)

        custom = Path({str(tmp_path)!r}) / "overrides"
        shutil.copytree("overrides", custom)
        config = load_config(
            "mkdocs.yml", theme={{"name": "material", "custom_dir": str(custom)}}, site_dir={str(tmp_path / "site")!r}
        )
        env = config.theme.get_env()

        def files(add):
            found = Files([File("assets/stylesheets/site.css", config.docs_dir, config.site_dir, True)])
            add(found, env, config)
            return [(f.src_uri, f.abs_src_path, f.dest_uri, f.url) for f in found]

        mkdocs_lists = files(own)
        first, second = files(hooks.add_theme_files), files(hooks.add_theme_files)
        (custom / "assets" / "added.txt").write_text("new")
        added, mkdocs_lists_added = files(hooks.add_theme_files), files(own)
        shadow = [f for f in first if f[0] == "assets/stylesheets/site.css"]
        print(len(mkdocs_lists), first == second == mkdocs_lists, added == mkdocs_lists_added != first)
        print(len(listed), shadow[0][1].startswith(config.docs_dir), any(f[0] == "assets/added.txt" for f in added))
        """
    )
    lines = [line.split() for line in out.splitlines()]
    assert int(lines[0][0]) > 20 and lines[0][1:] == ["True", "True"]
    assert lines[1] == ["2", "True", "True"]  # listed once, then once more after the overrides changed


def test_the_hooks_file_run_again_after_replacing_the_listing_still_calls_mkdocs_own():
    """Should a second loader run the hooks file in a process where the first copy already put
    add_theme_files on MkDocs' Files, the second copy must call MkDocs' listing, not the first
    copy's (which would call it back without end)."""
    out = _run(
        """
        import importlib.util, sys
        from mkdocs.structure.files import Files

        own = Files.add_files_from_theme

        def load(name):
            spec = importlib.util.spec_from_file_location(name, "macros/build/build_hooks.py")
            module = sys.modules[name] = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module

        first = load("first_hooks")
        Files.add_files_from_theme = first.add_theme_files
        second = load("second_hooks")
        print(first._add_files_from_theme is own, second._add_files_from_theme is own)
        """
    )
    assert out.split() == ["True", "True"]
