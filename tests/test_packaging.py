"""Packaging: no build output in git, every direct import declared, the whole set pinned with hashes."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
LOCK = ROOT / "requirements.lock"
# Build and install output: never tracked, always ignored, removed by `make clean`.
OUTPUTS = ("site", "build", "dist", "gpu_guide_site.egg-info", ".venv", "node_modules", ".cache", "test-artifacts")
# Import name -> distribution, where they differ.
DISTRIBUTIONS = {
    "yaml": "pyyaml",
    "jinja2": "jinja2",
    "mkdocs": "mkdocs",
    "babel": "babel",
    "mkdocs_macros": "mkdocs-macros-plugin",
}


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.lower())


def test_no_build_output_is_tracked_and_all_of_it_is_ignored():
    tracked = git("ls-files").splitlines()
    for output in OUTPUTS:
        assert not [f for f in tracked if f.startswith(output + "/")], f"{output}/ is tracked"
        # check-ignore answers for a path whether or not it exists.
        assert git("check-ignore", "--no-index", f"{output}/x").strip(), f"{output}/ is not in .gitignore"
    assert not [f for f in tracked if ".egg-info/" in f]


def test_make_clean_removes_every_output():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    clean = re.search(r"^clean:\n\trm -rf (.*)$", makefile, re.MULTILINE)
    assert clean, "make clean is missing"
    removed = clean.group(1).split()
    for output in ("site", "build", "dist", "*.egg-info", "$(VENV)", "node_modules", ".cache"):
        assert output in removed, f"make clean leaves {output}"


def test_every_third_party_import_of_the_site_is_declared():
    declared = {normal(Requirement(spec).name) for spec in PYPROJECT["project"]["dependencies"]}
    imported: set[str] = set()
    for path in (ROOT / "macros").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {name for name in imported if name not in sys.stdlib_module_names and name != "macros"}
    assert third_party >= {"yaml", "jsonschema", "referencing", "babel", "jinja2", "mkdocs"}
    missing = sorted(name for name in third_party if DISTRIBUTIONS.get(name, name) not in declared)
    assert not missing, f"imported by macros/ but not declared in pyproject.toml: {missing}"


def lock_entries() -> dict[str, tuple[str, list[str]]]:
    """name -> (version, hashes) of every package requirements.lock pins."""
    entries: dict[str, tuple[str, list[str]]] = {}
    text = LOCK.read_text(encoding="utf-8").replace("\\\n", " ")
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, _, version = line.split(";")[0].split(" --hash")[0].strip().partition("==")
        entries[normal(name)] = (version, re.findall(r"--hash=sha256:([0-9a-f]{64})", line))
    return entries


def test_the_lock_pins_every_declared_package_with_hashes():
    entries = lock_entries()
    assert len(entries) > 20  # the declared packages and what they pull in
    declared = [*PYPROJECT["project"]["dependencies"], *PYPROJECT["project"]["optional-dependencies"]["test"]]
    for spec in declared:
        wanted = Requirement(spec)
        name = normal(wanted.name)
        assert name in entries, f"{name} is declared but not in requirements.lock: run `make lock`"
        locked = entries[name][0]
        assert wanted.specifier.contains(locked), (
            f"{name}: pyproject.toml wants {wanted.specifier}, the lock has {locked}"
        )
    for name, (version, hashes) in entries.items():
        assert re.fullmatch(r"[0-9][0-9A-Za-z.+!-]*", version), f"{name} is not pinned to one version"
        assert hashes, f"{name} has no hash"


@pytest.mark.parametrize("target", ["$(STAMP)"])
def test_make_installs_from_the_lock_with_hashes(target):
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]
    assert "--require-hashes -r $(LOCK)" in recipe
    assert "LOCK := requirements.lock" in makefile
    assert not re.search(r"pip install[^\n]*(\"\.|'\.| \.)", recipe), (
        "the project itself is installed (writes *.egg-info)"
    )
