"""The worker's entry into the engine (macros/fitengine/browser.py), run here in CPython."""

import json

from macros.catalog_loader import read_catalog
from macros.fitengine import answer
from macros.fitengine.browser import Session
from macros.messages import every_engine_words_json

from .conftest import FIXTURES


def session(catalog):
    data, problems = read_catalog()
    assert not problems
    return Session(json.dumps(data), every_engine_words_json())


def plain(x):
    return f"{x:.1f}"


def test_an_answer_crosses_as_json_and_equals_the_engines(catalog):
    s = session(catalog)
    request = {"model": "llama-3.3-70b", "format": "bf16", "context": 8192, "concurrency": 4}
    out = json.loads(s.answer_json(json.dumps(request), "en", plain))
    assert out["ok"]
    assert out["result"] == json.loads(json.dumps(answer(catalog, request, None, plain)))


def test_a_readers_error_comes_back_as_a_message(catalog):
    out = json.loads(session(catalog).answer_json(json.dumps({"model": "gpt-9", "format": "bf16"}), "fr", plain))
    assert out["ok"] is False and "gpt-9" in out["error"]
    assert set(out) == {"ok", "error", "code", "params"}  # the code lets the page word it


def test_python_writes_numbers_only_when_they_match_intl(catalog):
    s = session(catalog)
    samples = [1234.5, 0.25, 1_000_000.0]
    # What the worker's Intl.NumberFormat("fr", {minimumFractionDigits: 1, maximumFractionDigits: 1}) writes.
    assert s.use_separators(
        "\u202f", ",", json.dumps(samples), json.dumps(["1\u202f234,5", "0,3", "1\u202f000\u202f000,0"])
    )
    assert s.number is not None
    assert not s.use_separators("\u202f", ",", json.dumps(samples), json.dumps(["1234.5", "0.3", "1000000.0"]))
    assert s.number is None


def test_a_pasted_measurement_is_judged(catalog):
    text = (FIXTURES / "measure" / "topo-8x-h100-nvswitch.txt").read_text(encoding="utf-8")
    out = json.loads(session(catalog).check_json("topo", text, "8x-h100-sxm", "en", plain))
    assert out["ok"] and out["result"]["verdict"] in {"ok", "warning", "fault"}


def test_the_warm_up_asks_every_model_and_format_and_each_is_answered(catalog):
    s = session(catalog)
    requests = json.loads(s.warm_requests_json())
    assert {r["model"] for r in requests} == {*catalog.llms, *catalog.diffusion}
    # Each of one node, and every node asked every question (a short hold of the worker each).
    questions = {json.dumps({k: v for k, v in r.items() if k != "node"}, sort_keys=True) for r in requests}
    assert len(requests) == len(questions) * len(catalog.nodes)
    assert {r["node"] for r in requests} == {n.id for n in catalog.nodes}
    assert {r["format"] for r in requests if r["model"] in catalog.llms} == set(catalog.formats)
    assert len({json.dumps(r, sort_keys=True) for r in requests}) == len(requests)  # no question twice
    for request in requests:
        if request["model"] in catalog.llms:
            assert 1 <= request["context"] <= catalog.llms[request["model"]].max_context
            assert request["concurrency"] >= 1
        out = json.loads(s.answer_json(json.dumps(request), "en", plain))
        assert out["ok"], (request, out)
