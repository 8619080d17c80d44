"""The engine stays pure: standard library only, nothing from the rest of macros/, no I/O."""

import ast
import sys
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "macros" / "fitengine"
SHIPPED = sorted(p for p in ENGINE.glob("*.py") if p.name != "__main__.py")
FORBIDDEN_CALLS = {"open", "print", "input", "exec", "eval", "__import__"}
FORBIDDEN_MODULES = {"os", "sys", "io", "pathlib", "socket", "subprocess", "random", "time", "datetime", "locale"}


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_engine_module_is_pure(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                assert top in sys.stdlib_module_names, f"{path.name} imports {alias.name}"
                assert top not in FORBIDDEN_MODULES, f"{path.name} imports {alias.name}"
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                top = (node.module or "").split(".")[0]
                assert top in sys.stdlib_module_names, f"{path.name} imports from {node.module}"
                assert top not in FORBIDDEN_MODULES, f"{path.name} imports from {node.module}"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, f"{path.name} calls {node.func.id}()"
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            pytest.fail(f"{path.name} rebinds module state")
