"""The engine's entry point refuses, with its own error and a code the page words, any request
value that is not a whole decimal number (or a bounded fraction), whoever calls it: the page and
the command line filter their fields, but the contract is the engine's."""

from __future__ import annotations

import json

import pytest

from macros.catalog_loader import read_catalog
from macros.fitengine import EngineError
from macros.fitengine.api import LAYOUT_KEYS, evaluate
from macros.fitengine.browser import Session
from macros.messages import every_engine_words_json

REQUEST = {"model": "llama-3.1-8b", "format": "bf16"}
WHOLE_KEYS = ("context", "concurrency", "input", "output", *LAYOUT_KEYS)
# Text that starts with digits and is not a whole decimal number: int() refuses some of it
# (ValueError), and reads none of it as what it says.
NOT_WHOLE = ("12abc", "1e3", "0x10", "12 34", "4.0", "+8", "1_000", "٣")


@pytest.fixture(scope="module")
def session() -> Session:
    data, problems = read_catalog()
    assert not problems
    return Session(json.dumps(data), every_engine_words_json())


@pytest.mark.parametrize("key", WHOLE_KEYS)
@pytest.mark.parametrize("value", NOT_WHOLE)
def test_text_that_is_not_a_whole_number_is_refused_with_the_engines_error(catalog, key, value):
    with pytest.raises(EngineError) as refused:
        evaluate(catalog, {**REQUEST, key: value})
    assert type(refused.value) is EngineError
    assert refused.value.code == "not_whole" and refused.value.params == {"key": key}
    assert key in str(refused.value)


@pytest.mark.parametrize("key", WHOLE_KEYS)
def test_a_whole_number_in_digits_is_read_with_the_spaces_around_it(catalog, key):
    value = {"context": 8192, "concurrency": 4, "input": 512, "output": 128}.get(key, 1)
    assert evaluate(catalog, {**REQUEST, key: f" {value} "}).fits == evaluate(catalog, {**REQUEST, key: value}).fits


@pytest.mark.parametrize("value", [10**400, -(10**400), "1e3", "0x1", "inf", "nan", "0.9.1", "9" * 400, float("inf")])
def test_a_memory_share_that_is_no_bounded_fraction_is_refused_with_the_engines_error(catalog, value):
    with pytest.raises(EngineError) as refused:
        evaluate(catalog, {**REQUEST, "memory_utilization": value})
    assert type(refused.value) is EngineError
    assert refused.value.code in ("not_a_number", "memory_utilization_range")


def test_a_memory_share_in_decimal_digits_is_read(catalog):
    assert evaluate(catalog, {**REQUEST, "memory_utilization": ".5"}).fits == (
        evaluate(catalog, {**REQUEST, "memory_utilization": 0.5}).fits
    )


@pytest.mark.parametrize("request_", [{"context": "12abc"}, {"concurrency": "1e3"}, {"memory_utilization": 10**400}])
def test_the_browsers_session_answers_such_a_request_with_a_refusal(session, request_):
    reply = json.loads(session.answer_json(json.dumps({**REQUEST, **request_}), "fr", str))
    assert reply["ok"] is False and reply["code"] in ("not_whole", "not_a_number")


@pytest.mark.parametrize("key", ["concurency", "Context", "tensor-parallel", "__proto__", ""])
def test_an_undeclared_request_key_is_refused_by_name(catalog, key):
    """A misspelled field would otherwise be answered with its default, silently."""
    with pytest.raises(EngineError) as caught:
        evaluate(catalog, {**REQUEST, key: 4})
    assert caught.value.code == "unknown_request_key" and repr(key) in caught.value.params["request_key"]
