"""Bounds an editor or a reader may cross: text too long to be a name or a note, a name that
reads as another's (Unicode look-alikes), a YAML number that is not what it looks, a model of
almost no parameters, and settings of a serving runtime asked of an image model. Each is refused
with what is wrong and where: `check` for the catalog, the browser's Session and the command line
for a request."""

from __future__ import annotations

import json

import pytest

from macros.catalog_text import MAX_NAME, MAX_TEXT

from .test_catalog_checks import check
from .test_catalog_loader import edit, problems
from .test_fuzz import run_cli

H100_NAME = "    name: NVIDIA H100 SXM5 80GB\n"
RTX_4090_NAME = "    name: NVIDIA GeForce RTX 4090\n"


def test_a_source_note_of_thousands_of_characters_is_refused(catalog_copy):
    note = "datasheet " * 500
    edit(catalog_copy, "gpus", 'source: "NVIDIA L40S datasheet (733 sparse / 2)"', f'source: "{note}"')
    run = check(catalog_copy)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    expected = f"catalog/gpus.yaml: gpus[3] l40s: bf16_dense.source: expected at most {MAX_TEXT} characters, got 5,000"
    assert expected in run.stderr, run.stderr[-500:]


def test_a_name_longer_than_a_name_is_refused(catalog_copy):
    edit(catalog_copy, "gpus", RTX_4090_NAME, f"    name: {'RTX ' * 50}\n")
    assert f"catalog/gpus.yaml: gpus[1] rtx-4090: name: expected at most {MAX_NAME} characters, got 199" in problems(
        catalog_copy
    )


@pytest.mark.parametrize(
    "look_alike",
    [
        "NVIDIA \u041d100 SXM5 80GB",  # Cyrillic capital EN for the H
        "NVIDIA H100 SXM5 80GB\u200b",  # a zero-width space after it
        "ＮＶＩＤＩＡ H100 SXM5 80GB",  # fullwidth letters (NFKC reads them as ASCII)
        "nvidia h1OO sxm5 8OGB",  # another case, letters O for the zeros
    ],
)
def test_a_gpu_name_that_reads_as_another_gpus_is_refused(catalog_copy, look_alike):
    edit(catalog_copy, "gpus", RTX_4090_NAME, f'    name: "{look_alike}"\n')
    found = [p for p in problems(catalog_copy) if ": name: " in p]
    assert len(found) == 1, found
    assert found[0].startswith("catalog/gpus.yaml: gpus ")
    assert "a name a reader can tell from the others" in found[0] and "'NVIDIA H100 SXM5 80GB'" in found[0]
    run = check(catalog_copy)
    assert run.returncode == 1 and "Traceback" not in run.stderr


def test_an_id_that_reads_as_another_is_refused(catalog_copy):
    # h1oo-sxm (letters o) beside h100-sxm: the schema's id pattern allows both.
    edit(catalog_copy, "gpus", "  - id: rtx-4090\n", "  - id: h1oo-sxm\n")
    edit(catalog_copy, "nodes", "gpu: rtx-4090", "gpu: h1oo-sxm", 99)
    found = [p for p in problems(catalog_copy) if ": id: expected an id a reader can tell" in p]
    assert len(found) == 1 and "'h100-sxm'" in found[0] and "'h1oo-sxm'" in found[0], problems(catalog_copy)


@pytest.mark.parametrize("written", ["0x8", "010", "0b1000", "8_0", "0:8"])
def test_a_count_yaml_reads_as_another_number_is_refused(catalog_copy, written):
    # YAML 1.1, as PyYAML reads it: 0x8, 010 and 0b1000 are 8, 8_0 is 80, 0:8 is 8 (base 60).
    before = (catalog_copy / "nodes.yaml").read_text()
    line = before[: before.index("    count: 8\n")].count("\n") + 1
    edit(catalog_copy, "nodes", "    count: 8\n", f"    count: {written}\n")
    run = check(catalog_copy)
    assert run.returncode == 1
    assert (
        f"catalog/nodes.yaml: line {line}, column 12: (syntax): expected a number in decimal digits, got '{written}'"
        in run.stderr
    ), run.stderr[-400:]


# --- requests -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def session():
    from macros.catalog_loader import read_catalog
    from macros.fitengine.browser import Session
    from macros.messages import every_engine_words_json

    data, problems_ = read_catalog()
    assert not problems_
    return Session(json.dumps(data), every_engine_words_json())


@pytest.mark.parametrize("billions", [1e-10, 0.0001])
def test_a_model_of_almost_no_parameters_is_refused(session, billions):
    # The page sends the totals it reads in billions as parameters (configurator.js: x 1e9).
    totals = {"total": billions * 1e9, "active": billions * 1e9, "layers": 32, "kv_heads": 8, "head_dim": 128}
    reply = json.loads(session.answer_json(json.dumps({"totals": totals, "format": "bf16"}), "fr", str))
    assert not reply["ok"] and reply["code"] == "totals_range" and reply["params"]["key"] == "total", reply
    # A million parameters (TinyStories-1M's size) is answered.
    totals = {**totals, "total": 1e6, "active": 1e6, "layers": 8, "kv_heads": 4, "head_dim": 16}
    assert json.loads(session.answer_json(json.dumps({"totals": totals, "format": "bf16"}), "fr", str))["ok"]


@pytest.mark.parametrize(
    ("key", "value"), [("tensor_parallel", 2), ("input", 1024), ("memory_utilization", "0.5"), ("kv_cache", "fp8")]
)
def test_a_runtime_setting_asked_of_an_image_model_is_refused_with_a_sentence(session, catalog, key, value):
    model = next(iter(catalog.diffusion))
    request = {"model": model, "format": "bf16", key: value}
    reply = json.loads(session.answer_json(json.dumps(request), "en", str))
    assert not reply["ok"] and reply["code"] == "image_option"
    assert reply["params"] == {"key": key, "model": catalog.diffusion[model].name}
    # The context and users the page's form always sends are ignored, not refused.
    plain = {"model": model, "format": "bf16", "context": 4096, "concurrency": 1}
    assert json.loads(session.answer_json(json.dumps(plain), "en", str))["ok"]


@pytest.mark.parametrize("flag", [("--tensor-parallel", "2"), ("--input", "1024"), ("--memory-utilization", "0.5")])
def test_the_command_line_refuses_them_naming_the_flag(catalog, flag):
    model = next(iter(catalog.diffusion))
    code, out, err = run_cli("fit", "--model", model, "--format", "bf16", *flag)
    assert code == 2 and out == ""
    assert err.startswith(f"error: {flag[0]} does not apply to {catalog.diffusion[model].name}, an image model")
    assert err.count("\n") == 1
