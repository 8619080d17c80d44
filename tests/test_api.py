"""The configurator's entry point: the summary that names the answer, the changes offered when
nothing fits, and refusals a page can word in its own language."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from macros.fitengine import EngineError
from macros.fitengine.api import raw_answer
from macros.i18n import MEASURE, WIDGET
from macros.locales import codes

from .test_guides import english_words, typography_faults

ENGINE = Path(__file__).resolve().parent.parent / "macros" / "fitengine"


def test_the_summary_names_the_cheapest_node_within_the_target_the_best_price_per_million_and_the_fastest(catalog):
    result = raw_answer(catalog, {"model": "llama-3.3-70b", "format": "bf16", "context": 8192, "concurrency": 20})
    fits = [r for r in result["rows"] if r["verdict"] != "none"]
    meeting = [r for r in fits if r["meets_target"]]
    s = result["summary"]
    assert s["fits"] == len(fits) > s["meets"] == len(meeting) > 0
    recommended = next(r for r in fits if r["node"] == s["recommended"])
    assert recommended["price_month_usd"] == min(r["price_month_usd"] for r in meeting)
    assert s["cheapest_any"] == min(fits, key=lambda r: r["price_month_usd"])["node"]
    assert [r["node"] for r in result["rows"] if r["recommended"]] == [s["recommended"]]
    best = next(r for r in fits if r["node"] == s["best_per_mtok"])
    assert best["usd_per_million_tokens_workload"] == min(r["usd_per_million_tokens_workload"] for r in meeting)
    fastest = next(r for r in fits if r["node"] == s["fastest"])
    assert fastest["decode_tok_s_per_user"] == max(r["decode_tok_s_per_user"] for r in fits)
    a = catalog.assumptions
    assert result["workload"] == {
        "context": 8192,
        "concurrency": 20,
        "input": a.default_input_tokens,
        "output": a.default_output_tokens,
        "min_speed": a.target_tok_s,
        "max_ttft": a.target_ttft_s,
    }
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
        # Its values set the fields they name; None leaves a field as it was.
        changes = {k: v for k, v in s.items() if k not in ("node", "price_month_usd") and v is not None}
        again = raw_answer(catalog, {"model": "deepseek-v3", "format": "bf16", **changes})
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


# Refusals of a pasted measurement are worded by the measure panel (MEASURE), the others by the
# configurator (WIDGET).
PASTE_PARSERS = ("nvidia_smi.py", "nccl_tests.py")


def _refusals() -> dict[str, tuple[set[str], str]]:
    """Every code the engine can refuse with, the parameters it gives each and its file, read
    from the engine's source.

    A code is a constant (`EngineError(message, "code", key=…)`), or, for a forced layout the
    runtime refuses, the code and parameters of a `Reason` that layout.py returns.
    """
    codes: dict[str, tuple[set[str], str]] = {}
    for path in sorted(ENGINE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            if getattr(node.func, "id", None) == "unknown" and path.name != "errors.py":
                # errors.unknown("model", …): code unknown_model, parameters model and choices.
                what = node.args[0].value
                codes[f"unknown_{what}"] = ({what, "choices"}, path.name)
                continue
            if getattr(node.func, "id", None) not in ("EngineError", "Reason"):
                continue
            if node.func.id == "Reason":
                if path.name == "layout.py":
                    assert isinstance(node.args[1], ast.Dict)
                    codes[node.args[0].value] = ({k.value for k in node.args[1].keys}, path.name)
                continue
            code = node.args[1] if len(node.args) > 1 else None
            if isinstance(code, ast.Constant) and code.value is not None:
                codes[code.value] = ({k.arg for k in node.keywords if k.arg}, path.name)
            elif code is not None:
                # The codes that are not constants: the layout refusal's own (layout.py), and
                # errors.unknown's, read at its call sites above.
                assert (path.name, ast.unparse(code)) in (
                    ("workloads.py", "why.code"),
                    ("errors.py", "f'unknown_{what}'"),
                ), ast.unparse(node)
    return codes


def test_every_refusal_code_has_words_in_every_locale_naming_only_its_parameters():
    codes = _refusals()
    assert {"layout_heads", "layout_no_tp", "runtime_format", "kv_cache_runtime", "parallel_range"} <= set(codes)
    assert {"topo_no_header", "nvlink_no_links", "allreduce_no_rows"} <= set(codes)
    assert {"unknown_model", "unknown_format", "unknown_runtime", "unknown_node"} <= set(codes)

    def table(where: str) -> dict[str, dict[str, str]]:
        return MEASURE if where in PASTE_PARSERS else WIDGET

    for code, (params, where) in codes.items():
        for locale, words in table(where).items():
            assert f"err_{code}" in words, (locale, code)
            named = set(re.findall(r"\{(\w+)\}", words[f"err_{code}"]))
            assert named <= params, (locale, code, named - params)
        text = table(where)["fr"][f"err_{code}"]
        assert not typography_faults(text), (code, text)
        assert not english_words(re.sub(r"\{\w+\}", "", text)), (code, text)


@pytest.mark.parametrize("name", ["fit.py", "workloads.py", "sizing.py", "load.py", *PASTE_PARSERS])
def test_workload_and_paste_refusals_all_carry_a_code(name):
    # Every refusal of a workload (fit.py, workloads.py, sizing.py, load.py) or of a pasted output is worded by the page, none only in English.
    tree = ast.parse((ENGINE / name).read_text())
    bare = [
        ast.unparse(n)[:80]
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "EngineError" and len(n.args) < 2
    ]
    assert not bare, bare


def test_a_forced_layout_the_runtime_refuses_is_refused_with_its_reason(catalog):
    heads = catalog.llms["llama-3.3-70b"].architecture.heads
    tp = next(n for n in range(2, 9) if heads % n)
    with pytest.raises(EngineError) as refused:
        raw_answer(catalog, {"model": "llama-3.3-70b", "format": "bf16", "tensor_parallel": tp})
    assert (refused.value.code, refused.value.params) == ("layout_heads", {"tp": tp, "heads": heads})
    gguf = next(f.id for f in catalog.formats.values() if catalog.runtimes[f.runtime].kind == "layer-split")
    with pytest.raises(EngineError) as refused:
        raw_answer(catalog, {"model": "llama-3.1-8b", "format": gguf, "tensor_parallel": "2"})
    assert refused.value.code == "layout_no_tp"
    assert refused.value.params == {"runtime": catalog.runtimes[catalog.formats[gguf].runtime].name}
    # A layout the runtime accepts answers, on that layout wherever it fits.
    result = raw_answer(catalog, {"model": "llama-3.1-8b", "format": "bf16", "tensor_parallel": 2})
    fits = [r for r in result["rows"] if r["verdict"] != "none"]
    assert fits and all(r["tensor_parallel"] == 2 for r in fits)
    # The runtime a format cannot run on, and an FP8 KV cache on a runtime without one.
    vllm = next(r for r in catalog.runtimes.values() if r.kind == "server")
    with pytest.raises(EngineError) as refused:
        raw_answer(catalog, {"model": "llama-3.1-8b", "format": gguf, "runtime": vllm.id})
    assert refused.value.code == "runtime_format" and refused.value.params["runtime"] == vllm.name
    with pytest.raises(EngineError) as refused:
        raw_answer(catalog, {"model": "llama-3.1-8b", "format": gguf, "kv_cache": "fp8"})
    assert refused.value.code == "kv_cache_runtime"


# --- one entry point for every caller ------------------------------------------------------

ROOT = ENGINE.parent.parent
# The engine's functions below its entry point: a caller that sizes a workload itself could
# read a request differently from the browser.
BELOW_THE_ENTRY_POINT = {"fit_all", "fit_nodes", "fit_node", "unpriced_fit", "price_fit", "workload", "fit_diffusion"}


@pytest.mark.parametrize("caller", ["macros/cli.py", "macros/guides/", "macros/fitengine/browser.py"])
def test_the_command_line_the_guides_and_the_worker_go_through_the_entry_point(caller):
    # A package (the guides' macros) is read whole: every module in it.
    paths = sorted((ROOT / caller).glob("*.py")) if (ROOT / caller).is_dir() else [ROOT / caller]
    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in paths]
    nodes = [node for tree in trees for node in ast.walk(tree)]
    imported = {alias.name for node in nodes if isinstance(node, ast.ImportFrom) for alias in node.names}
    called = {
        node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        for node in nodes
        if isinstance(node, ast.Call)
    }
    assert not (imported | called) & BELOW_THE_ENTRY_POINT, caller
    assert {"evaluate", "answer", "raw_answer", "answer_json"} & called, f"{caller} calls no entry point"


def test_a_request_for_one_node_answers_that_node_as_the_whole_answer_does(catalog):
    from macros.fitengine.api import evaluate

    request = {"model": "llama-3.3-70b", "format": "fp8", "context": 8192, "concurrency": 20}
    whole = {r.node: r for r in evaluate(catalog, request).fits}
    for node in catalog.nodes[:: max(1, len(catalog.nodes) // 6)]:
        (one,) = evaluate(catalog, {**request, "node": node.id}).fits
        assert one.to_dict() == whole[node.id].to_dict()
    with pytest.raises(EngineError, match="unknown node 'nowhere'"):
        evaluate(catalog, {**request, "node": "nowhere"})


def test_a_forced_layout_and_memory_share_are_read_from_the_request(catalog):
    from macros.fitengine.api import evaluate

    eight = next(n for n in catalog.nodes if n.count == 8)
    request = {"model": "llama-3.1-8b", "format": "bf16", "node": eight.id}
    (chosen,) = evaluate(catalog, request).fits
    (forced,) = evaluate(catalog, {**request, "tensor_parallel": 2}).fits
    assert forced.tensor_parallel == 2 != chosen.tensor_parallel
    # One user: the layout chosen is the one that answers that user fastest (the most tokens an hour).
    assert chosen.decode_tok_s_per_user > forced.decode_tok_s_per_user
    (tight,) = evaluate(catalog, {**request, "tensor_parallel": 2, "memory_utilization": "0.5"}).fits
    assert tight.max_concurrency < forced.max_concurrency
    for bad in ("half", float("nan"), True):
        with pytest.raises(EngineError, match=r"memory.utilization"):
            evaluate(catalog, {**request, "memory_utilization": bad})


@pytest.mark.parametrize("locale", codes())
def test_the_widget_reads_its_limits_and_link_classes_from_the_engine(catalog, monkeypatch, locale):
    import re

    from macros.fitengine import api
    from macros.render import configurator_html

    # Change the engine's contract: the widget must follow it, whatever the values are.
    monkeypatch.setattr(configurator_html, "LIMITS", {"context": 123_457, "concurrency": 77})
    monkeypatch.setattr(configurator_html, "LINK_CLASSES", ("pcie", "nvlink"))
    html = configurator_html.ConfiguratorHtml(catalog, locale).render("/", "llama-3.1-8b", "bf16")
    assert re.search(r'name="context"[^>]*max="123457"', html)
    assert re.search(r'name="concurrency"[^>]*max="77"', html)
    links = re.search(r'data-filter="link">(.*?)</select>', html, re.S).group(1)
    assert re.findall(r'value="([^"]*)"', links) == ["", "pcie", "nvlink"]
    assert {api.link_class(catalog, n) for n in catalog.nodes} <= set(api.LINK_CLASSES)


def test_the_reasons_decimals_are_the_engines_in_the_build_and_the_worker():
    import json

    from macros.catalog_loader import read_catalog
    from macros.fitengine.browser import Session
    from macros.fitengine.reasons import REASON_DIGITS
    from macros.messages import every_engine_words_json

    worker = (ROOT / "overrides" / "assets" / "javascripts" / "configurator-worker.js").read_text(encoding="utf-8")
    assert not re.search(r"FractionDigits:\s*\d", worker), "the worker types the reasons' decimals"
    assert 'pyodide.globals.get("reason_digits")' in worker
    data, _ = read_catalog()
    session = Session(json.dumps(data), every_engine_words_json())
    assert session.digits == REASON_DIGITS
    # The worker's Python writer follows the same count: Intl's output for it is accepted.
    sample = 1234.5
    assert session.use_separators(",", ".", json.dumps([sample]), json.dumps([f"{sample:,.{REASON_DIGITS}f}"]))
