"""The protocol between the engine, the configurator's page and its worker, declared once
(macros/fitengine/protocol.py): the browser's copy is the one it writes, and every request key
it declares is one the engine reads. tests/js/protocol.test.mjs holds the JavaScript side to it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from macros.fitengine import api, protocol, protocol_js
from macros.fitengine.api import evaluate
from macros.fitengine.errors import EngineError

from .conftest import ROOT

BROWSER_COPY = ROOT / "overrides" / "assets" / "javascripts" / "configurator" / "protocol.js"
ENGINE = ROOT / "macros" / "fitengine"


def test_the_browsers_copy_is_the_one_the_declaration_writes():
    assert BROWSER_COPY.read_text(encoding="utf-8") == protocol_js.javascript(), (
        "configurator/protocol.js differs from macros/fitengine/protocol.py: write it again (its first lines say how)"
    )


def test_the_copy_changes_with_the_declaration(monkeypatch):
    monkeypatch.setattr(protocol_js, "TO_WORKER", {**protocol.TO_WORKER, "ping": ("id",)})
    assert "ping: [" in protocol_js.javascript()
    assert protocol_js.javascript() != BROWSER_COPY.read_text(encoding="utf-8")


def test_the_engine_reads_its_keys_from_the_declaration():
    assert api.REQUEST_KEYS is protocol.REQUEST_KEYS
    assert set(protocol.WIDGET_KEYS) <= set(protocol.REQUEST_KEYS)
    assert len(set(protocol.REQUEST_KEYS)) == len(protocol.REQUEST_KEYS)


class Reading(dict):
    """A request that remembers every key the engine looked up."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.read: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)


def test_every_declared_request_key_is_read_by_the_engine(catalog):
    """A key declared but read by nothing would be accepted and ignored: every one is looked up,
    by a request of a model given by its totals (the fullest path through `evaluate`)."""
    a = catalog.assumptions
    request = Reading(
        format="bf16",
        totals={"total": 8e9, "active": 8e9, "layers": 32, "kv_heads": 8, "head_dim": 128},
        context=a.default_context,
        concurrency=a.default_concurrency,
    )
    evaluate(catalog, request)
    assert set(protocol.REQUEST_KEYS) - request.read == set()


@pytest.mark.parametrize("key", ["ping", "minSpeed"])
def test_a_key_the_declaration_lacks_is_refused_with_its_name(catalog, key):
    with pytest.raises(EngineError) as caught:
        evaluate(catalog, {"model": next(iter(catalog.llms)), "format": "bf16", key: 1})
    assert caught.value.code == "unknown_request_key" and key in caught.value.params["request_key"]


def _raised_codes() -> set[str]:
    """The codes the engine's sources give an EngineError or `unknown`: string literals."""
    codes: set[str] = set()
    for path in ENGINE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        codes |= set(re.findall(r'"([a-z][a-z0-9_]+)"', text))
        codes |= {f"unknown_{what}" for what in re.findall(r'unknown\(\s*"([a-z_]+)"', text)}
    return codes


def test_every_code_a_field_is_named_for_is_one_the_engine_raises():
    raised = _raised_codes()
    for field, named in protocol.ERROR_FIELDS.items():
        for code in named["codes"]:
            assert code in raised, f"{field}: {code}"
        for prefix in named["prefixes"]:
            assert any(code.startswith(prefix) and code != prefix for code in raised), f"{field}: {prefix}"
