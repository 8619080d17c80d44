"""What an editor can get wrong that JSON Schema lets through: NaN and infinities, figures out of
any plausible range (a unit slip, a price per hour typed as per month), YAML aliases that expand
to gigabytes, and values too long to quote. Each is refused by `check` naming file, entry, field
and, for ranges, the range."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from macros.catalog_checks import CARD_RANGES, RANGES
from macros.catalog_loader import CatalogError, load_catalog

from .conftest import ROOT
from .test_catalog_loader import edit, problems

H100_BANDWIDTH = 'memory_bandwidth: {value: 3350, unit: GB/s, source: "NVIDIA H100 datasheet (SXM column'
H100_NODE_PRICE = "price_month: {value: 16878,"


def check(directory):
    return subprocess.run(
        [sys.executable, "-m", "macros.fitengine", "check", "--catalog", str(directory)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("value", [".nan", ".NaN", ".inf", "-.inf"])
def test_nan_and_infinities_are_refused(catalog_copy, value):
    edit(catalog_copy, "gpus", H100_BANDWIDTH, H100_BANDWIDTH.replace("3350", value))
    found = problems(catalog_copy)
    assert any(
        p.startswith("catalog/gpus.yaml: gpus[") and " h100-sxm: memory_bandwidth.value: expected a finite number" in p
        for p in found
    ), found
    run = check(catalog_copy)
    assert run.returncode == 1 and "expected a finite number" in run.stderr and "Traceback" not in run.stderr


def test_a_nan_price_never_reaches_a_page(catalog_copy):
    edit(catalog_copy, "nodes", H100_NODE_PRICE, "price_month: {value: .nan,")
    with pytest.raises(CatalogError, match=r"price_month\.value: expected a finite number"):
        load_catalog(catalog_copy)


@pytest.mark.parametrize("value", ["3.35", "33500"])  # TB/s typed as GB/s; a digit too many
def test_an_h100_bandwidth_out_of_range_names_the_range(catalog_copy, value):
    edit(catalog_copy, "gpus", H100_BANDWIDTH, H100_BANDWIDTH.replace("3350", value))
    low, high = CARD_RANGES["HBM"]["memory_bandwidth"]
    expected = f"between {low:,g} and {high:,g} GB/s for an HBM card, got {float(value):,g}"
    assert f"catalog/gpus.yaml: gpu h100-sxm: memory_bandwidth.value: expected {expected}" in problems(catalog_copy)


def test_a_node_for_one_dollar_a_month_is_refused(catalog_copy, catalog_data):
    edit(catalog_copy, "nodes", H100_NODE_PRICE, "price_month: {value: 1,")
    [message] = problems(catalog_copy)
    hours = catalog_data["assumptions"]["hours_per_month"]["value"]
    low = round(CARD_RANGES["HBM"]["card_hour_usd"][0] * hours * 8)
    assert message.startswith(f"catalog/nodes.yaml: node 8x-h100-sxm: price_month.value: expected between {low:,g}")
    assert message.endswith("got 1")


def test_a_tensor_throughput_in_the_wrong_unit_is_refused(catalog_copy):
    edit(catalog_copy, "gpus", "bf16_dense: {value: 989,", "bf16_dense: {value: 989000,")
    low, high, unit = RANGES[("gpus", "bf16_dense")]
    assert problems(catalog_copy) == [
        f"catalog/gpus.yaml: gpu h100-sxm: bf16_dense.value: expected between {low:,g} and {high:,g} {unit}, got 989,000"
    ]


def test_an_assumption_out_of_range(catalog_copy):
    edit(
        catalog_copy,
        "assumptions",
        "  default_concurrency:\n    value: 1\n",
        "  default_concurrency:\n    value: 100000\n",
    )
    low, high, unit = RANGES[("assumptions", "default_concurrency")]
    assert problems(catalog_copy) == [
        f"catalog/assumptions.yaml: default_concurrency: value: expected between {low:,g} and {high:,g} {unit}, got 100,000"
    ]


def test_a_runtime_figure_out_of_range(catalog_copy):
    # A per-layer cost typed in nanoseconds instead of microseconds.
    edit(
        catalog_copy, "runtimes", "    layer_overhead:\n      value: 40\n", "    layer_overhead:\n      value: 40000\n"
    )
    low, high, unit = RANGES[("runtimes", "layer_overhead")]
    assert problems(catalog_copy) == [
        f"catalog/runtimes.yaml: runtime vllm: layer_overhead.value: expected between {low:,g} and {high:,g} {unit}, got 40,000"
    ]


def test_the_real_catalog_is_inside_every_range(catalog):
    assert catalog.nodes  # loading it ran every range check


BOMB = """
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
"""


def test_an_alias_bomb_is_refused_at_once_in_one_short_line(catalog_copy):
    path = catalog_copy / "formats.yaml"
    path.write_text(path.read_text() + BOMB)
    start = time.monotonic()
    found = problems(catalog_copy)
    assert time.monotonic() - start < 10
    assert found[0] == (
        "catalog/formats.yaml: line "
        + str(path.read_text().split("\n").index("b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]") + 1)
        + ", column 8: (alias): expected no YAML alias (*a): write the value out where it is needed"
    )
    run = check(catalog_copy)
    assert run.returncode == 1 and len(run.stderr) < 2000


def test_a_single_alias_is_refused_too(catalog_copy):
    edit(catalog_copy, "gpus", "    memory_type: HBM3\n", "    memory_type: &kind HBM3\n", 1)
    edit(catalog_copy, "gpus", "    memory_type: HBM3e\n", "    memory_type: *kind\n", 1)
    assert any("(alias): expected no YAML alias (*kind)" in p for p in problems(catalog_copy))


def _append(directory, name: str, text: str) -> int:
    """Append text to a catalog file; the line number of its first line."""
    path = directory / f"{name}.yaml"
    before = path.read_text()
    path.write_text(before + text)
    return before.count("\n") + 1


# What stopped `check` with a traceback: int() refusing 5,000 digits, a list as a mapping key
# (unhashable), and nesting deep enough to exhaust the stack of the NaN walk.
HOSTILE_YAML = [
    ("tdp_digits: " + "9" * 5000 + "\n", 1, 13, "expected a number of at most 30 digits"),
    ("? [a, b]\n: 1\n", 1, 3, "expected valid YAML: expected a key that is a name, got list"),
    ("deep: " + "[" * 1000 + "]" * 1000 + "\n", 1, 38, "expected lists and mappings nested at most 32 deep"),
]


@pytest.mark.parametrize(("text", "line", "column", "why"), HOSTILE_YAML)
def test_check_refuses_what_yaml_cannot_build_with_file_line_and_reason(catalog_copy, text, line, column, why):
    at = _append(catalog_copy, "gpus", text) + line - 1
    run = check(catalog_copy)
    assert run.returncode == 1, run.stderr[-500:]
    assert "Traceback" not in run.stderr
    assert f"catalog/gpus.yaml: line {at}, column {column}: (syntax): {why}" in run.stderr, run.stderr[-500:]


@pytest.mark.parametrize(("text", "why"), [(t, w) for t, _, _, w in HOSTILE_YAML])
def test_the_build_names_the_file_too(catalog_copy, text, why):
    _append(catalog_copy, "gpus", text)
    run = subprocess.run(
        [sys.executable, "-m", "macros.build.build_site", str(catalog_copy.parent / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GUIDE_CATALOG": str(catalog_copy)},
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "catalog/gpus.yaml: line " in run.stderr and why in run.stderr, run.stderr[-800:]
    assert not (catalog_copy.parent / "site").exists()


def test_a_long_value_is_never_echoed_whole(catalog_copy):
    long = "x" * 100_000
    edit(catalog_copy, "nodes", "    gpu: b200\n", f"    gpu: {long}\n")
    edit(catalog_copy, "gpus", "memory_type: GDDR6\n", f"memory_type: [{long}]\n", 1)
    run = check(catalog_copy)
    assert run.returncode == 1
    assert all(len(line) < 500 for line in run.stderr.splitlines()), max(map(len, run.stderr.splitlines()))
    assert "catalog/gpus.yaml: gpus[0] l4: memory_type" in run.stderr


# --- API prices (catalog/api_prices.yaml) ----------------------------------------------------

CF = "cloudflare-llama-3.3-70b-fp8"


def test_api_prices_quote_their_own_figures(catalog_data):
    """Each price is read off the provider's words: the quote shows both figures, with a day read."""
    assert catalog_data["api_prices"]
    for price in catalog_data["api_prices"]:
        for part in ("input", "output"):
            assert f"{price[part]['value']:.2f}" in price["quote"], (price["id"], part)
        assert price["url"].startswith("https://") and price["input"]["source"] == price["url"]


@pytest.mark.parametrize(
    ("old", "new", "field", "expected"),
    [
        ("model: llama-3.3-70b\n    served", "model: llama-9\n    served", "model", "a language model id"),
        ("served_format: fp8", "served_format: fp9", "served_format", "a format id"),
        ('read: "2026-12-02"', 'read: "2026-02-30"', "read", "a real day"),
        ("value: 2.25", "value: 22.5", "output.value", "the quote to show 22.5"),
    ],
)
def test_a_wrong_api_price_is_refused(catalog_copy, old, new, field, expected):
    edit(catalog_copy, "api_prices", old, new)
    found = problems(catalog_copy)
    assert any(p.startswith(f"catalog/api_prices.yaml: api_price {CF}: {field}: expected {expected}") for p in found), (
        found
    )


def test_an_api_price_per_thousand_tokens_typed_per_million_is_out_of_range(catalog_copy):
    edit(catalog_copy, "api_prices", "value: 2.25", "value: 2250", 1)
    edit(catalog_copy, "api_prices", "$2.25 per M", "$2250 per M")
    low, high, unit = RANGES[("api_prices", "output")]
    assert (
        f"catalog/api_prices.yaml: api_price {CF}: output.value: expected between {low:,g} and {high:,g} {unit}, got 2,250"
        in problems(catalog_copy)
    )


def test_an_unquoted_read_date_is_refused_by_the_schema(catalog_copy):
    """YAML reads 2026-12-02 as a date object, which the site's JSON export could not write."""
    edit(catalog_copy, "api_prices", 'read: "2026-12-02"', "read: 2026-12-02")
    found = problems(catalog_copy)
    assert any(
        p.startswith("catalog/api_prices.yaml: api_prices[0] " + CF + ": read: expected a value of type string")
        for p in found
    ), found


# --- published image times (catalog/image_timings.yaml) ----------------------------------------

PRO = "gigagpu-flux-schnell-rtx-pro-6000"


@pytest.mark.parametrize(
    ("old", "new", "field", "expected"),
    [
        ("gpu: rtx-pro-6000", "gpu: rtx-pro-9000", "gpu", "a GPU id of catalog/gpus.yaml"),
        (
            "model: flux.1-dev\n    format: bf16\n    gpu: rtx-pro",
            "model: llama-3.3-70b\n    format: bf16\n    gpu: rtx-pro",
            "model",
            "an image or video model id",
        ),
        ("value: 0.6", "value: 0.5", "seconds.value", "the quote to show 0.5"),
    ],
)
def test_a_wrong_image_timing_is_refused(catalog_copy, old, new, field, expected):
    edit(catalog_copy, "image_timings", old, new)
    found = problems(catalog_copy)
    assert any(
        p.startswith(f"catalog/image_timings.yaml: image_timing {PRO}: {field}: expected {expected}") for p in found
    ), found


def test_an_image_time_in_milliseconds_typed_as_seconds_is_out_of_range(catalog_copy):
    edit(catalog_copy, "image_timings", "value: 0.6", "value: 60000")
    edit(catalog_copy, "image_timings", "~0.6s", "~60000s")
    assert any(
        "image_timing " + PRO + ": seconds.value: expected between 0.01 and 36,000 s" in p
        for p in problems(catalog_copy)
    )


FLUX_NATIVE = "  - id: flux.1-dev\n    name: FLUX.1 [dev]\n    kind: image\n    native_format: bf16\n"


def test_an_image_model_in_a_format_image_pipelines_do_not_run_is_refused(catalog_copy, catalog_data):
    assert not catalog_data["formats"][[f["id"] for f in catalog_data["formats"]].index("awq-int4")]["diffusion"]
    edit(catalog_copy, "models", FLUX_NATIVE, FLUX_NATIVE.replace("bf16", "awq-int4"))
    found = problems(catalog_copy)
    assert any(
        p.startswith("catalog/models.yaml") and "flux.1-dev: native_format: expected a format image and video" in p
        for p in found
    ), found


def test_an_image_models_native_format_needs_its_source(catalog_copy):
    text = (catalog_copy / "models.yaml").read_text()
    start = text.index(FLUX_NATIVE) + len(FLUX_NATIVE)
    assert text[start:].startswith("    native_source: ")
    end = text.index("\n", start) + 1
    (catalog_copy / "models.yaml").write_text(text[:start] + text[end:])
    found = problems(catalog_copy)
    assert any(p.startswith("catalog/models.yaml") and "native_source" in p for p in found), found


def test_image_models_native_formats_are_image_formats(catalog):
    image_formats = {f.id for f in catalog.formats.values() if f.diffusion}
    natives = {m.id: m.native_format for m in catalog.diffusion.values()}
    assert natives["flux.1-dev"] == "bf16" and natives["sdxl"] is None
    assert {n for n in natives.values() if n} <= image_formats
