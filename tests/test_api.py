"""The configurator's entry point: the summary that names the answer, the changes offered when
nothing fits, and refusals a page can word in its own language."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from macros.fitengine import EngineError
from macros.fitengine.api import raw_answer
from macros.i18n import WIDGET

ENGINE = Path(__file__).resolve().parent.parent / "macros" / "fitengine"


def test_the_summary_names_the_cheapest_fitting_node_the_best_price_per_million_and_the_fastest(catalog):
    result = raw_answer(catalog, {"model": "llama-3.3-70b", "format": "bf16", "context": 8192, "concurrency": 20})
    fits = [r for r in result["rows"] if r["verdict"] != "none"]
    s = result["summary"]
    assert s["fits"] == len(fits) > 0
    assert s["recommended"] == s["cheapest_any"]
    recommended = next(r for r in fits if r["node"] == s["recommended"])
    assert recommended["price_month_usd"] == min(r["price_month_usd"] for r in fits)
    best = next(r for r in fits if r["node"] == s["best_per_mtok"])
    assert best["usd_per_million_output_tokens"] == min(r["usd_per_million_output_tokens"] for r in fits)
    fastest = next(r for r in fits if r["node"] == s["fastest"])
    assert fastest["decode_tok_s_per_user"] == max(r["decode_tok_s_per_user"] for r in fits)
    assert result["workload"] == {"context": 8192, "concurrency": 20}
    assert "suggestions" not in result


def test_nothing_fits_offers_formats_and_a_shorter_context_that_do(catalog):
    # DeepSeek V3 is published in FP8 (its native format); in BF16 it holds on no node.
    assert catalog.llms["deepseek-v3"].native_format == "fp8"
    result = raw_answer(catalog, {"model": "deepseek-v3", "format": "bf16"})
    assert result["summary"]["recommended"] is None
    offered = result["suggestions"]
    assert any(s["format"] == "fp8" and s["context"] is None for s in offered)
    for s in offered:
        # Each offered change is one the engine itself answers with the node it names.
        request = {"model": "deepseek-v3", "format": s["format"]}
        if s["context"] is not None:
            request["context"] = s["context"]
        again = raw_answer(catalog, request)
        assert again["summary"]["recommended"] == s["node"]
        assert next(r for r in again["rows"] if r["node"] == s["node"])["price_month_usd"] == s["price_month_usd"]


def test_a_dense_model_given_by_its_totals_needs_no_active_count(catalog):
    # Llama 3.1 8B (Meta's model card): 8.03 B parameters, 32 layers, 8 KV heads of 128.
    totals = {"total": 8.03e9, "layers": 32, "kv_heads": 8, "head_dim": 128}
    result = raw_answer(catalog, {"totals": totals, "format": "bf16"})
    assert result["model_read"]["params_active"] == result["model_read"]["params_total"] == pytest.approx(8.03e9)


def test_refusals_carry_a_code_and_their_parameters(catalog):
    with pytest.raises(EngineError) as refused:
        raw_answer(catalog, {"model": "llama-3.3-70b", "format": "bf16", "context": 2_000_000})
    assert refused.value.code == "context_too_long"
    assert refused.value.params["context"] == 2_000_000
    assert refused.value.params["maximum"] == catalog.llms["llama-3.3-70b"].max_context
    with pytest.raises(EngineError) as refused:
        raw_answer(catalog, {"totals": {"layers": 32}, "format": "bf16"})
    assert refused.value.code == "missing_totals"
    assert set(refused.value.params["fields"]) == {"total", "active", "kv_heads", "head_dim"}


def test_every_refusal_code_has_words_in_every_locale():
    codes = set()
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "EngineError"
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
            ):
                codes.add(node.args[1].value)
    assert len(codes) >= 10
    for locale, words in WIDGET.items():
        assert not [c for c in codes if f"err_{c}" not in words], locale
