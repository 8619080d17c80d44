"""The build hooks keep no state: each build is read from its config, the theme's listing kept on disk."""

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


def _hooks_module() -> str:
    return """
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location("hooks", "macros/build/build_hooks.py")
        hooks = sys.modules["hooks"] = importlib.util.module_from_spec(spec)  # as MkDocs loads hooks
        spec.loader.exec_module(hooks)
        """


def test_the_hooks_keep_no_state_between_builds():
    """MkDocs loads the hooks file once per process and `mkdocs serve` loads the config again on
    every edit: the hooks hold nothing that could outlive a build (no module-level container or
    object, nothing declared global); each build's settings come from its own config."""
    source = (ROOT / "macros" / "build" / "build_hooks.py").read_text(encoding="utf-8")
    assert "global " not in source
    assert 'config["extra"][' not in source
    assert "get_env =" not in source  # the theme's environment is adjusted in on_env, not patched
    out = _run(
        _hooks_module()
        + """
        import inspect, types
        from pathlib import Path
        kept = [
            name
            for name, value in vars(hooks).items()
            if not name.startswith("__")
            and not isinstance(value, (str, int, float, tuple, frozenset, Path, type, types.ModuleType))
            and not inspect.isfunction(value)
            and not (hasattr(value, "__module__") and value.__module__ != "hooks")  # what it imports
        ]
        print(kept)
        """
    )
    assert out.strip() == "[]", f"the hooks keep {out.strip()} between builds"


def test_the_preview_is_told_from_its_config():
    """`mkdocs serve` sets site_url to its own address (dev_addr) before each build: that config
    is the preview's (one locale at its root, the shared files inside it); a build's is not."""
    out = _run(
        _hooks_module()
        + """
        from mkdocs.config import load_config
        def read(**changes):
            config = load_config("mkdocs.yml", site_dir="/tmp/site/fr", **changes)
            for key, value in changes.items():
                config[key] = value
            h = hooks.HooksConfig.read(config)
            return h.serving, str(h.shared), h.snapshot and not h.serving or not h.snapshot
        print(read())
        print(read(site_url="http://127.0.0.1:8000/"))
        print(read(site_url="http://127.0.0.1:8001/"))
        print(read(site_url="https://guides.example.com/fr/"))
        """
    )
    assert out.splitlines() == [
        "(False, '/tmp/site', True)",
        "(True, '/tmp/site/fr', True)",
        "(False, '/tmp/site', True)",
        "(False, '/tmp/site', True)",
    ]


def test_edited_macros_are_forgotten_and_unchanged_ones_kept():
    out = _run(
        _hooks_module()
        + """
        import macros.guides
        first = hooks.forget_changed_macros()
        kept = "macros.guides" in sys.modules
        # As after an edit: a source whose time or size is not the one the package was imported from.
        path, time, size = macros.IMPORTED_FROM[0]
        macros.IMPORTED_FROM = ((path, time - 1, size), *macros.IMPORTED_FROM[1:])
        edited = hooks.forget_changed_macros()
        gone = not any(m == "macros" or m.startswith("macros.") for m in sys.modules)
        import macros.guides
        again = hooks.forget_changed_macros()
        print(first, kept, edited, gone, again)
        """
    )
    assert out.split() == ["False", "True", "True", "True", "False"]


def test_the_package_records_every_source_it_was_imported_from():
    import macros

    listed = {Path(path) for path, _, _ in macros.IMPORTED_FROM}
    assert listed == set((ROOT / "macros").rglob("*.py")) - set((ROOT / "macros").rglob("__pycache__/*.py"))
    assert macros.sources() == macros.IMPORTED_FROM  # nothing edited while the tests run


def test_the_theme_files_listed_once_are_the_ones_mkdocs_lists(tmp_path):
    """MkDocs lists the theme's static files on every build (some 14,500 names, Material's icons);
    the hooks list them once and keep the listing on disk, which a later process reads. What they
    add is what MkDocs' own listing adds; a file added to the theme's overrides is seen on the next
    build; a file of the pages' folder is never replaced by the theme's; a damaged listing is
    listed again."""
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
        hooks.CACHE = Path({str(tmp_path)!r}) / "cache"

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

        # Another process: the hooks loaded afresh read the listing from disk.
        again = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(again)
        again._add_files_from_theme = hooks._add_files_from_theme
        again.CACHE = hooks.CACHE
        read = files(again.add_theme_files)
        for kept in (hooks.CACHE / "theme-files").glob("*.json"):
            kept.write_text("[[1")
        damaged = files(again.add_theme_files)
        print(len(listed), read == added, damaged == added)
        """
    )
    lines = [line.split() for line in out.splitlines()]
    assert int(lines[0][0]) > 20 and lines[0][1:] == ["True", "True"]
    assert lines[1] == ["2", "True", "True"]  # listed once, then once more after the overrides changed
    assert lines[2] == ["3", "True", "True"]  # read from disk; listed again once damaged


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
