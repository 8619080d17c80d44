"""What an editor can get wrong that JSON Schema lets through: NaN and infinities, figures out of
any plausible range (a unit slip, a price per hour typed as per month), YAML aliases that expand
to gigabytes, and values too long to quote. Each is refused by `check` naming file, entry, field
and, for ranges, the bound crossed. A single figure's range is in its JSON schema (catalog/schema/),
its one home: the tests read the bounds there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from macros.catalog_checks import CARD_HOUR_USD
from macros.catalog_loader import CatalogError, load_catalog
from macros.fitengine.api import LIMITS

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


def schema(name: str) -> dict:
    return json.loads((ROOT / "catalog" / "schema" / f"{name}.schema.json").read_text(encoding="utf-8"))


def value_bounds(figure: dict) -> dict:
    """The bounds a figure's schema puts on its value (the part of its allOf that names them)."""
    for part in figure.get("allOf", [figure]):
        value = part.get("properties", {}).get("value", {})
        if "maximum" in value:
            return value
    raise AssertionError(f"no bounds in {figure}")


def one(found: list[str], start: str, end: str) -> str:
    """The one problem that names this file and entry and ends so (entries are named by position and id)."""
    matching = [p for p in found if p.startswith(start) and p.endswith(end)]
    assert len(matching) == 1, found
    return matching[0]


GPU_ITEMS = schema("gpus")["properties"]["gpus"]["items"]


@pytest.mark.parametrize("value", ["3.35", "33500"])  # TB/s typed as GB/s; a digit too many
def test_an_h100_bandwidth_out_of_range_names_the_bound(catalog_copy, value):
    edit(catalog_copy, "gpus", H100_BANDWIDTH, H100_BANDWIDTH.replace("3350", value))
    bounds = GPU_ITEMS["then"]["properties"]["memory_bandwidth"]["properties"]["value"]  # an HBM card's
    crossed = f"at least {bounds['minimum']}" if float(value) < 3350 else f"at most {bounds['maximum']}"
    one(
        problems(catalog_copy),
        "catalog/gpus.yaml: gpus[",
        f" h100-sxm: memory_bandwidth.value: expected {crossed}, got {value}",
    )


def test_a_graphics_card_is_held_to_the_graphics_cards_bandwidth(catalog_copy, catalog_data):
    """An HBM board's bandwidth on a GDDR card (RTX 4090) is refused: the schema's range depends on
    the memory type."""
    hbm_low = GPU_ITEMS["then"]["properties"]["memory_bandwidth"]["properties"]["value"]["minimum"]
    gddr_high = GPU_ITEMS["else"]["then"]["properties"]["memory_bandwidth"]["properties"]["value"]["maximum"]
    assert hbm_low < gddr_high + 1 < 30_000  # a value only an HBM card may have
    rtx = next(g for g in catalog_data["gpus"] if g["id"] == "rtx-4090")
    old = f"memory_bandwidth: {{value: {rtx['memory_bandwidth']['value']:g},"
    edit(catalog_copy, "gpus", old, f"memory_bandwidth: {{value: {gddr_high + 1},")
    one(
        problems(catalog_copy),
        "catalog/gpus.yaml: gpus[",
        f" rtx-4090: memory_bandwidth.value: expected at most {gddr_high}, got {gddr_high + 1}",
    )


def test_a_node_for_one_dollar_a_month_is_refused(catalog_copy, catalog_data):
    edit(catalog_copy, "nodes", H100_NODE_PRICE, "price_month: {value: 1,")
    [message] = problems(catalog_copy)
    hours = catalog_data["assumptions"]["hours_per_month"]["value"]
    low = round(CARD_HOUR_USD["HBM"][0] * hours * 8)
    assert message.startswith(f"catalog/nodes.yaml: node 8x-h100-sxm: price_month.value: expected between {low:,g}")
    assert message.endswith("got 1")


def test_a_tensor_throughput_in_the_wrong_unit_is_refused(catalog_copy):
    edit(catalog_copy, "gpus", "bf16_dense: {value: 989,", "bf16_dense: {value: 989000,")
    high = value_bounds(GPU_ITEMS["properties"]["bf16_dense"])["maximum"]
    [message] = problems(catalog_copy)
    assert message.startswith("catalog/gpus.yaml: gpus[")
    assert message.endswith(f" h100-sxm: bf16_dense.value: expected at most {high}, got 989000")


@pytest.mark.parametrize(("name", "limit"), [("default_concurrency", "concurrency"), ("default_context", "context")])
def test_a_default_beyond_the_engines_limit_is_refused(catalog_copy, catalog_data, name, limit):
    value = catalog_data["assumptions"][name]["value"]
    edit(
        catalog_copy, "assumptions", f"  {name}:\n    value: {value}\n", f"  {name}:\n    value: {LIMITS[limit] + 1}\n"
    )
    assert problems(catalog_copy) == [
        f"catalog/assumptions.yaml: {name}: value: expected at most {LIMITS[limit]:,} (the engine's limit on {limit}),"
        f" got {LIMITS[limit] + 1:,}"
    ]


def test_a_runtime_figure_out_of_range(catalog_copy):
    # A per-layer cost typed in nanoseconds instead of microseconds.
    edit(
        catalog_copy, "runtimes", "    layer_overhead:\n      value: 40\n", "    layer_overhead:\n      value: 40000\n"
    )
    items = schema("runtimes")["properties"]["runtimes"]["items"]
    high = value_bounds(items["properties"]["layer_overhead"])["maximum"]
    [message] = problems(catalog_copy)
    assert message.startswith("catalog/runtimes.yaml: runtimes[")
    assert message.endswith(f" vllm: layer_overhead.value: expected at most {high}, got 40000")


def test_a_runtime_constant_shared_by_several_units_is_bounded_in_its_own_unit(catalog_copy, catalog_data):
    """The runtimes' constants share one schema: a bound applies to a constant in the unit the
    range is for (custom_allreduce_latency in µs)."""
    items = schema("runtimes")["properties"]["runtimes"]["items"]
    rule = items["properties"]["custom_allreduce_latency"]["allOf"][-1]
    unit, high = rule["if"]["properties"]["unit"]["const"], rule["then"]["properties"]["value"]["maximum"]
    vllm = next(r for r in catalog_data["runtimes"] if r["id"] == "vllm")
    latency = vllm["custom_allreduce_latency"]
    assert latency["unit"] == unit
    old = f"    custom_allreduce_latency:\n      value: {latency['value']:g}\n"
    edit(catalog_copy, "runtimes", old, f"    custom_allreduce_latency:\n      value: {high * 10:g}\n")
    one(
        problems(catalog_copy),
        "catalog/runtimes.yaml: runtimes[",
        f" vllm: custom_allreduce_latency.value: expected at most {high}, got {high * 10:g}",
    )


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
    high = schema("api_prices")["$defs"]["price"]["properties"]["value"]["maximum"]
    assert f"catalog/api_prices.yaml: api_prices[0] {CF}: output.value: expected at most {high}, got 2250" in problems(
        catalog_copy
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
    items = schema("image_timings")["properties"]["image_timings"]["items"]
    high = value_bounds(items["properties"]["seconds"])["maximum"]
    one(
        problems(catalog_copy),
        "catalog/image_timings.yaml: image_timings[",
        f" {PRO}: seconds.value: expected at most {high}, got 60000",
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
