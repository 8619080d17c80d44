"""One test per class of bad catalog: each names the file, the entry, the field and what was expected."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from macros.catalog_loader import CATALOG_DIR, CatalogError, load_catalog, read_catalog

from .conftest import ROOT


def edit(directory: Path, name: str, old: str, new: str, count: int = 1) -> None:
    path = directory / f"{name}.yaml"
    text = path.read_text()
    assert old in text, f"{old!r} not in {name}.yaml"
    path.write_text(text.replace(old, new, count))


def problems(directory: Path) -> list[str]:
    return [str(p) for p in read_catalog(directory)[1]]


def test_the_real_catalog_is_valid(catalog, catalog_data):
    assert [node.id for node in catalog.nodes] == [node["id"] for node in catalog_data["nodes"]]
    assert len(catalog.gpus) == 14
    assert set(catalog.formats) == {
        "bf16",
        "fp8",
        "awq-int4",
        "gptq-int4",
        "gguf-q4_k_m",
        "gguf-q8_0",
        "mxfp4",
        "nvfp4",
        "nf4",
    }


def test_every_figure_has_a_source_and_a_unit(catalog_data):
    def walk(value, path):
        if isinstance(value, dict):
            if "value" in value and not isinstance(value["value"], (dict, list)):
                assert value.get("unit") and value.get("source"), path
            for key, child in value.items():
                walk(child, f"{path}.{key}")
        elif isinstance(value, list):
            for i, child in enumerate(value):
                walk(child, f"{path}[{i}]")

    walk(catalog_data, "catalog")


def test_missing_field(catalog_copy):
    edit(catalog_copy, "gpus", "    memory_type: GDDR6\n", "", 1)
    assert problems(catalog_copy) == ["catalog/gpus.yaml: gpus[0] l4: (entry): expected 'memory_type' to be present"]


def test_wrong_type(catalog_copy):
    edit(catalog_copy, "gpus", "memory_bandwidth: {value: 300,", "memory_bandwidth: {value: fast,")
    assert problems(catalog_copy) == [
        "catalog/gpus.yaml: gpus[0] l4: memory_bandwidth.value: expected a value of type number, got 'fast'"
    ]


def test_wrong_unit(catalog_copy):
    edit(catalog_copy, "gpus", 'unit: GB/s, source: "yobitel', 'unit: TB/s, source: "yobitel')
    assert problems(catalog_copy) == [
        "catalog/gpus.yaml: gpus[0] l4: memory_bandwidth.unit: expected 'GB/s', got 'TB/s'"
    ]


def test_unknown_reference(catalog_copy):
    edit(catalog_copy, "nodes", "    gpu: b200\n", "    gpu: b300\n")
    found = problems(catalog_copy)
    assert "catalog/nodes.yaml: node 8x-b200: gpu: expected a GPU id of catalog/gpus.yaml, got 'b300'" in found


def test_impossible_value(catalog_copy):
    edit(catalog_copy, "gpus", "memory_usable: {value: 23034,", "memory_usable: {value: 230340,")
    [message] = problems(catalog_copy)
    assert message.startswith(
        "catalog/gpus.yaml: gpu l4: memory_usable: expected between 0.9 and 1.15 times the memory sold"
    )


def test_negative_price(catalog_copy):
    edit(catalog_copy, "nodes", "price_month: {value: 358,", "price_month: {value: -358,")
    [message] = problems(catalog_copy)
    assert message == "catalog/nodes.yaml: nodes[0] 1x-l4: price_month.value: expected more than 0, got -358"


def test_pcie_generation_above_the_card(catalog_copy):
    # The seed's mistake: an A100 PCIe node on PCIe 5.0.
    old = "  - id: 4x-a100-pcie-80gb\n    gpu: a100-pcie-80gb\n    count: 4\n    topology: pcie\n    sockets: 1\n    pcie: pcie-gen4-x16"
    edit(catalog_copy, "nodes", old, old.replace("gen4", "gen5"))
    assert problems(catalog_copy) == [
        "catalog/nodes.yaml: node 4x-a100-pcie-80gb: pcie: NVIDIA A100 80GB PCIe is a PCIe Gen4 card; "
        "expected a link of that generation or lower, got pcie-gen5-x16"
    ]


def test_nvlink_on_a_card_without_it(catalog_copy):
    edit(
        catalog_copy,
        "nodes",
        "  - id: 2x-l40s\n    gpu: l40s\n    count: 2\n    topology: pcie",
        "  - id: 2x-l40s\n    gpu: l40s\n    count: 2\n    topology: nvswitch",
    )
    assert problems(catalog_copy) == [
        "catalog/nodes.yaml: node 2x-l40s: topology: NVIDIA L40S has no NVLink; expected a topology without it, got nvswitch"
    ]


def test_nvlink_faster_than_its_generation(catalog_copy):
    edit(
        catalog_copy,
        "gpus",
        'per_direction: {value: 450, unit: GB/s, source: "NVIDIA H100 datasheet (900',
        'per_direction: {value: 900, unit: GB/s, source: "NVIDIA H100 datasheet (900',
    )
    [message] = problems(catalog_copy)
    assert message.startswith(
        "catalog/gpus.yaml: gpu h100-sxm: nvlink.per_direction: expected at most 450 GB/s per direction"
    )


def test_duplicate_id_and_node_count(catalog_copy):
    edit(catalog_copy, "nodes", "  - id: 2x-l4\n", "  - id: 1x-l4\n")
    found = problems(catalog_copy)
    assert "catalog/nodes.yaml: nodes 1x-l4: id: expected a unique id, found 2 entries with it" in found
    assert "catalog/nodes.yaml: node 1x-l4: id: expected '2x-l4' (<count>x-<gpu id>)" in found


def test_the_catalog_decides_how_many_nodes_there_are(catalog_copy, catalog):
    path = catalog_copy / "nodes.yaml"
    text = path.read_text()
    path.write_text(text[: text.index("  - id: 8x-b200")])
    assert problems(catalog_copy) == []
    assert len(load_catalog(catalog_copy).nodes) == len(catalog.nodes) - 1


def test_parameter_count_that_contradicts_the_shapes(catalog_copy):
    edit(catalog_copy, "models", "params_total: {value: 8030261248,", "params_total: {value: 9030261248,")
    [message] = problems(catalog_copy)
    assert message.startswith(
        "catalog/models.yaml: model llama-3.1-8b: params_total: expected within 0.5% of the 8,030,261,248"
    )


def test_yaml_syntax_error_and_duplicate_key(catalog_copy):
    edit(catalog_copy, "formats", "  - id: bf16\n", "  - id: bf16\n    id: bf16b\n")
    edit(catalog_copy, "assumptions", "  usable_fraction:\n", "  usable_fraction: [\n")
    found = problems(catalog_copy)
    assert any(p.startswith("catalog/formats.yaml: line") and "appears twice" in p for p in found)
    assert any(p.startswith("catalog/assumptions.yaml: line") and "(syntax)" in p for p in found)


def test_all_problems_are_reported_at_once(catalog_copy):
    edit(catalog_copy, "nodes", "    gpu: b200\n", "    gpu: b300\n")
    edit(catalog_copy, "formats", "bits_per_weight: {value: 4.25,", "bits_per_weight: {value: 0.25,")
    with pytest.raises(CatalogError) as error:
        load_catalog(catalog_copy)
    files = {p.file for p in error.value.problems}
    assert files == {"catalog/nodes.yaml", "catalog/formats.yaml"}
    assert str(error.value).startswith(f"The catalog has {len(error.value.problems)} problems:")


def test_missing_file(catalog_copy):
    (catalog_copy / "formats.yaml").unlink()
    assert problems(catalog_copy)[0].startswith("catalog/formats.yaml: (file): (file): expected the file formats.yaml")


def test_check_command_reports_without_a_traceback(catalog_copy):
    edit(catalog_copy, "nodes", "    gpu: b200\n", "    gpu: b300\n")
    run = subprocess.run(
        [sys.executable, "-m", "macros.fitengine", "check", "--catalog", str(catalog_copy)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1
    assert "node 8x-b200: gpu: expected a GPU id" in run.stderr
    assert "Traceback" not in run.stderr


def test_an_edit_of_one_file_is_read_and_the_others_are_kept(tmp_path):
    """`mkdocs serve` reads the catalog after each edit: the edited file again, the others as kept."""
    folder = tmp_path / "catalog"
    shutil.copytree(CATALOG_DIR, folder)
    data, problems = read_catalog(folder)
    assert not problems
    nodes = folder / "nodes.yaml"
    first = data["nodes"][0]
    text = nodes.read_text()
    price = f"price_month: {{value: {first['price_month']['value']},"
    assert price in text
    nodes.write_text(text.replace(price, "price_month: {value: 1234,", 1))
    edited, problems = read_catalog(folder)
    assert not problems and edited is not data
    assert edited["nodes"][0]["price_month"]["value"] == 1234
    assert data["nodes"][0]["price_month"]["value"] == first["price_month"]["value"]  # the old data is untouched
    assert edited["gpus"] is data["gpus"]  # an unchanged file is not read again
    nodes.write_text(text.replace(price, "price_month: {value: -1,", 1))
    _, problems = read_catalog(folder)
    assert any(p.file == "catalog/nodes.yaml" and "price_month" in p.field for p in problems)


def test_api_prices_are_typed_in_the_catalog(catalog, catalog_data):
    """Each per-token API price of api_prices.yaml reaches the typed catalog, with its bill per
    million output tokens for requests of given lengths (the prompts billed at the input rate)."""
    assert set(catalog.api_prices) == {p["id"] for p in catalog_data["api_prices"]}
    for entry in catalog_data["api_prices"]:
        price = catalog.api_prices[entry["id"]]
        assert price.model in catalog.llms and price.read == str(entry["read"])
        inp, out = entry["input"]["value"], entry["output"]["value"]
        assert price.per_output_mtok(1024, 256) == pytest.approx(out + inp * 4)
        assert price.per_output_mtok(256, 256) == pytest.approx(out + inp)
