"""The import graph of macros/: the engine at the bottom, nothing of the site under it, no cycle.

`import macros.fitengine` must load nothing of the site: anything that only wants the engine
(scripts, the bench, a notebook) pays for the engine alone.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MACROS = ROOT / "macros"
ENGINE = "macros.fitengine"
# The engine's command-line launcher (`python -m macros.fitengine`) calls the site's CLI, which
# reads files and YAML; it is not shipped to the browser and not run by `import macros.fitengine`.
LAUNCHER = ("macros.fitengine.__main__", "macros.cli")
SITE_LIBRARIES = ("yaml", "jsonschema", "referencing", "babel", "jinja2", "mkdocs", "markdown", "material")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(MACROS.rglob("*.py"))}


def imports_of(name: str) -> set[str]:
    """Every module of macros/ that `name` imports, at the top or inside a function.

    Imports under `if TYPE_CHECKING:` are for type checkers only and never run: they are left out.
    """
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    typing_only = {
        id(child)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
        for child in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            # `from macros.build import pyodide_dist` imports a module; `from x import name` imports x.
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES else module for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def test_the_walk_sees_the_imports_it_must():
    # Guards the walker itself: these edges exist, so a walker that finds none is broken.
    assert "macros.fitengine.catalog" in GRAPH["macros.catalog_loader"]
    assert "macros.fitengine.api" in GRAPH["macros.fitengine"]
    assert "macros.catalog_loader" in GRAPH["macros"]
    assert LAUNCHER[1] in GRAPH[LAUNCHER[0]]


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith(ENGINE)))
def test_the_engine_imports_nothing_of_the_site(name):
    outside = {m for m in GRAPH[name] if m != ENGINE and not m.startswith(ENGINE + ".")}
    if name == LAUNCHER[0]:
        outside.discard(LAUNCHER[1])
    # The package `macros` itself runs first on any import of the engine: it must stay empty too.
    assert not outside, f"{name} imports {sorted(outside)}"


def test_no_module_reaches_back_up():
    """No cycle among macros/'s modules, and nothing imports the mkdocs-macros entry point."""
    importers = [name for name, targets in GRAPH.items() if "macros" in targets]
    assert not importers, f"{importers} import the entry point macros/__init__.py"
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            cycle = " -> ".join([*path[path.index(name) :], name])
            pytest.fail(f"import cycle: {cycle}")
        if name in done:
            return
        for target in sorted(GRAPH[name]):
            if (name, target) != LAUNCHER and not (name.startswith(target + ".") and target == ENGINE):
                visit(target, (*path, name))
        done.add(name)

    for name in sorted(GRAPH):
        visit(name, ())


# The site's rooms (macros/guides/, macros/render/, macros/build/) and what each may reach of the
# others: the guides the rendering helpers and the engine's answers kept per catalog; the
# rendering helpers no guide, and of the build only Pyodide's version (which the widgets name)
# and the answers kept per catalog (the configurator's markup shows the build's answer).
MAY_REACH_INTO_BUILD = {
    "macros.guides": {"macros.build.engine_cache"},
    "macros.render": {"macros.build.pyodide_dist", "macros.build.engine_cache"},
}


def _in(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


@pytest.mark.parametrize("room", sorted(MAY_REACH_INTO_BUILD))
def test_the_guides_and_the_rendering_helpers_reach_little_of_the_build(room):
    for name in (n for n in GRAPH if _in(n, room)):
        into_build = {t for t in GRAPH[name] if _in(t, "macros.build")}
        assert into_build <= MAY_REACH_INTO_BUILD[room], f"{name} imports {sorted(into_build)}"


def test_only_the_entry_point_reaches_the_guides():
    """The guides' macros are the top of the site: the entry point registers them, nothing of
    the build or the rendering helpers imports them."""
    importers = {n for n, targets in GRAPH.items() if any(_in(t, "macros.guides") for t in targets)}
    assert {n for n in importers if not _in(n, "macros.guides")} == {"macros"}


def test_the_site_package_imports_nothing_at_import_time():
    tree = ast.parse(MODULES["macros"].read_text(encoding="utf-8"))
    top = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert all(node.module in ("__future__", "os", "typing") for node in top if isinstance(node, ast.ImportFrom))
    assert all(alias.name in ("os",) for node in top if isinstance(node, ast.Import) for alias in node.names)


def test_importing_the_engine_loads_nothing_of_the_site():
    code = "import json, sys; import macros.fitengine; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    assert ENGINE in loaded and f"{ENGINE}.api" in loaded
    site = sorted(m for m in loaded if m.startswith("macros.") and not m.startswith(ENGINE))
    assert not site, f"import macros.fitengine loaded {site}"
    libraries = sorted(m for m in loaded if m.split(".")[0] in SITE_LIBRARIES)
    assert not libraries, f"import macros.fitengine loaded {libraries}"


def test_the_command_line_still_runs_as_documented():
    out = subprocess.run(
        [sys.executable, "-m", "macros.fitengine", "check"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("catalog OK:")


MODULE_LINES = 500  # a Python module longer than this holds more than one concern


def test_no_python_module_of_the_site_holds_more_than_one_concern_s_lines():
    long = {
        name: n for name, path in MODULES.items() if (n := len(path.read_text("utf-8").splitlines())) > MODULE_LINES
    }
    assert not long, f"modules over {MODULE_LINES} lines: {long}"
