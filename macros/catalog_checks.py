"""Cross-references and physical sense: what JSON Schema cannot say about the catalog.

(What any entry can get wrong as text, and the `Problem` each check reports, are in
macros/catalog_text.py; `non_finite` and `too_long` are named here too, for the loader.)

Runs on the data of the files that passed their schema; a check that needs a file which did
not (or is missing) is skipped, so one broken file does not bury the others under echoes.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

from macros.catalog_text import Problem, non_finite, too_long, unique_ids
from macros.fitengine.api import LIMITS
from macros.fitengine.architecture import count_params
from macros.fitengine.catalog import architecture_from_dict
from macros.fitengine.units import GB, MIB

PARAMS_TOLERANCE = 0.005  # computed parameter count vs the published total
# Usable memory (what nvidia-smi reports) against memory as sold: the two differ by the
# GB/GiB confusion of marketing and by ECC or reserved pages, never by much more.
USABLE_RANGE = (0.9, 1.15)
REQUIRED_LINKS = ("pcie-gen4-x16", "pcie-gen5-x16", "cross-socket")

# Plausible ranges of single figures (far wider than any real card, link or model, narrow enough
# to catch a unit slip or a digit too many) are in the JSON schemas (catalog/schema/), beside
# each figure's unit. What a schema cannot hold stays here: a node's price per card-hour, which
# needs the card (catalog/gpus.yaml) and the hours in a month (catalog/assumptions.yaml), from
# spot prices to several times list prices, by kind of card (HBM: data-centre boards; GDDR:
# graphics and workstation cards) ...
CARD_HOUR_USD: dict[str, tuple[float, float]] = {"HBM": (0.3, 30.0), "GDDR": (0.05, 10.0)}
# ... and the engine's own limits, which the defaults must stay within (fitengine.api.LIMITS).
ENGINE_LIMITS = {
    "default_context": "context",
    "default_input_tokens": "context",
    "default_output_tokens": "context",
    "default_concurrency": "concurrency",
}

__all__ = ["Problem", "check", "non_finite", "too_long"]


def check(data: dict[str, Any]) -> list[Problem]:
    """Every cross-reference or physical-sense problem in the merged catalog data."""
    problems: list[Problem] = []
    for section, file in (
        ("gpus", "gpus"),
        ("links", "interconnects"),
        ("topologies", "interconnects"),
        ("nodes", "nodes"),
        ("formats", "formats"),
        ("runtimes", "runtimes"),
        ("llms", "models"),
        ("diffusion", "models"),
        ("api_prices", "api_prices"),
        ("image_timings", "image_timings"),
    ):
        problems += unique_ids(data.get(section), f"catalog/{file}.yaml", section)
    if "gpus" in data and "links" in data:
        problems += list(_gpus(data))
    if "links" in data:
        problems += list(_links(data))
    if {"nodes", "gpus", "links", "topologies"} <= data.keys():
        problems += list(_nodes(data))
    if "formats" in data:
        problems += list(_formats(data))
    if "formats" in data and "runtimes" in data:
        problems += list(_runtimes(data))
    if "llms" in data:
        problems += list(_llms(data))
    if "diffusion" in data:
        problems += list(_diffusion(data))
    if {"api_prices", "llms", "formats"} <= data.keys():
        problems += list(_api_prices(data))
    if {"image_timings", "diffusion", "formats", "gpus"} <= data.keys():
        problems += list(_image_timings(data))
    problems += list(_ranges(data))
    if "assumptions" in data and "gpus" in data:
        ref = data["assumptions"]["diffusion_reference_gpu"]["value"]
        if ref not in _ids(data["gpus"]):
            problems.append(
                Problem(
                    "catalog/assumptions.yaml",
                    "diffusion_reference_gpu",
                    "value",
                    f"expected a GPU id of catalog/gpus.yaml, got {ref!r}",
                )
            )
    return problems


def _ids(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["id"]: item for item in items}


def _gpus(data: dict[str, Any]) -> Iterator[Problem]:
    file = "catalog/gpus.yaml"
    links = _ids(data["links"])
    for gpu in data["gpus"]:
        entry = f"gpu {gpu['id']}"
        sold = gpu["memory_sold"]["value"] * GB
        usable = gpu["memory_usable"]["value"] * MIB
        low, high = USABLE_RANGE
        if not low * sold <= usable <= high * sold:
            yield Problem(
                file,
                entry,
                "memory_usable",
                f"expected between {low:g} and {high:g} times the memory sold ({gpu['memory_sold']['value']} GB), got {usable / GB:.1f} GB",
            )
        has_fp8 = gpu["fp8_dense"] is not None
        if gpu["fp8"] != has_fp8:
            yield Problem(file, entry, "fp8_dense", "expected an FP8 throughput exactly when fp8 is true")
        if gpu["fp8"] and gpu["architecture"] == "ampere":
            yield Problem(file, entry, "fp8", "expected false: Ampere cards have no FP8 tensor cores")
        nv = gpu["nvlink"]
        if nv is None:
            continue
        link = links.get(f"nvlink-{nv['generation']}")
        if link is None:
            yield Problem(
                file,
                entry,
                "nvlink.generation",
                f"expected a link nvlink-{nv['generation']} in catalog/interconnects.yaml",
            )
            continue
        ceiling = link["per_link"]["value"] * link["max_links"]
        if nv["per_direction"]["value"] > ceiling:
            yield Problem(
                file,
                entry,
                "nvlink.per_direction",
                f"expected at most {ceiling:g} GB/s per direction for NVLink {nv['generation']} ({link['max_links']} links), got {nv['per_direction']['value']:g}",
            )
        if nv["form"] == "bridge" and "bridge_group" not in nv:
            yield Problem(file, entry, "nvlink.bridge_group", "expected the number of cards one bridge joins (2 or 4)")
        if nv["form"] == "sxm" and gpu["form_factor"] != "sxm":
            yield Problem(file, entry, "nvlink.form", "expected 'bridge': only SXM cards join an NVLink board")


def _links(data: dict[str, Any]) -> Iterator[Problem]:
    file = "catalog/interconnects.yaml"
    links = _ids(data["links"])
    for link_id in REQUIRED_LINKS:
        if link_id not in links:
            yield Problem(file, f"links {link_id}", "id", "expected this link: the engine prices groups over it")
    for link in data["links"]:
        entry = f"link {link['id']}"
        kind = link["kind"]
        if kind == "nvlink":
            for field in ("nvlink_generation", "per_link", "max_links"):
                if field not in link:
                    yield Problem(file, entry, field, "expected on an NVLink link")
            if "nvlink_generation" in link and link["id"] != f"nvlink-{link['nvlink_generation']}":
                yield Problem(file, entry, "id", f"expected 'nvlink-{link['nvlink_generation']}' for its generation")
        else:
            if "per_direction" not in link:
                yield Problem(file, entry, "per_direction", f"expected on a {kind} link")
            if kind == "pcie" and "pcie_generation" not in link:
                yield Problem(file, entry, "pcie_generation", "expected on a PCIe link")


def _nodes(data: dict[str, Any]) -> Iterator[Problem]:
    file = "catalog/nodes.yaml"
    gpus, links, topologies = _ids(data["gpus"]), _ids(data["links"]), _ids(data["topologies"])
    for node in data["nodes"]:
        entry = f"node {node['id']}"
        gpu = gpus.get(node["gpu"])
        if gpu is None:
            yield Problem(file, entry, "gpu", f"expected a GPU id of catalog/gpus.yaml, got {node['gpu']!r}")
        topology = topologies.get(node["topology"])
        if topology is None:
            yield Problem(file, entry, "topology", f"expected one of {', '.join(topologies)}, got {node['topology']!r}")
        link = links.get(node["pcie"])
        if link is None or link["kind"] != "pcie":
            pcie_ids = [x for x, v in links.items() if v["kind"] == "pcie"]
            yield Problem(file, entry, "pcie", f"expected one of {', '.join(pcie_ids)}, got {node['pcie']!r}")
        expected_id = f"{node['count']}x-{node['gpu']}"
        if node["id"] != expected_id:
            yield Problem(file, entry, "id", f"expected {expected_id!r} (<count>x-<gpu id>)")
        if node["count"] % node["sockets"]:
            yield Problem(file, entry, "sockets", f"expected a divisor of the card count {node['count']}")
        if gpu is None or topology is None:
            continue
        if (node["count"] == 1) != (topology["id"] == "single"):
            yield Problem(file, entry, "topology", "expected 'single' for one card, and only for one card")
        if link is not None and link["kind"] == "pcie" and link["pcie_generation"] > gpu["pcie"]["generation"]:
            yield Problem(
                file,
                entry,
                "pcie",
                f"{gpu['name']} is a PCIe Gen{gpu['pcie']['generation']} card; expected a link of that generation or lower, got {node['pcie']}",
            )
        yield from _node_nvlink(file, entry, node, gpu, topology)


def _node_nvlink(
    file: str, entry: str, node: dict[str, Any], gpu: dict[str, Any], topology: dict[str, Any]
) -> Iterator[Problem]:
    wants = topology["nvlink"]
    nv = gpu["nvlink"]
    group = node.get("nvlink_group")
    if wants == "none":
        if group:
            yield Problem(file, entry, "nvlink_group", f"expected no NVLink group on a {topology['id']} node")
        return
    if nv is None:
        yield Problem(
            file,
            entry,
            "topology",
            f"{gpu['name']} has no NVLink; expected a topology without it, got {topology['id']}",
        )
        return
    if nv["form"] != wants:
        yield Problem(
            file,
            entry,
            "topology",
            f"{gpu['name']} takes NVLink as {nv['form']}, not {wants}; expected a matching topology",
        )
        return
    if wants == "bridge":
        if not group:
            yield Problem(file, entry, "nvlink_group", "expected the number of cards each bridge joins")
        elif group > nv.get("bridge_group", 0):
            yield Problem(
                file,
                entry,
                "nvlink_group",
                f"expected at most {nv.get('bridge_group', 0)} ({gpu['name']} bridges), got {group}",
            )
        elif node["count"] % group:
            yield Problem(file, entry, "nvlink_group", f"expected a divisor of the card count {node['count']}")
    elif group:
        yield Problem(file, entry, "nvlink_group", "expected no NVLink group: every card is on the NVLink board")


def _formats(data: dict[str, Any]) -> Iterator[Problem]:
    for fmt in data["formats"]:
        both = set(fmt["native"]) & set(fmt["weight_only"])
        if both:
            yield Problem(
                "catalog/formats.yaml",
                f"format {fmt['id']}",
                "weight_only",
                f"expected an architecture in native or weight_only, not both: {', '.join(sorted(both))}",
            )


def _api_prices(data: dict[str, Any]) -> Iterator[Problem]:
    """Each API price names a catalog model (and format), a real day, and quotes its own figures."""
    file = "catalog/api_prices.yaml"
    for price in data["api_prices"]:
        entry = f"api_price {price['id']}"
        if price["model"] not in _ids(data["llms"]):
            yield Problem(
                file, entry, "model", f"expected a language model id of catalog/models.yaml, got {price['model']!r}"
            )
        served = price.get("served_format")
        if served is not None and served not in _ids(data["formats"]):
            yield Problem(file, entry, "served_format", f"expected a format id of catalog/formats.yaml, got {served!r}")
        yield from _read_day(file, entry, price["read"])
        for part in ("input", "output"):
            value = price[part]["value"]
            if not any(text in price["quote"] for text in (f"{value:g}", f"{value:.2f}")):
                yield Problem(
                    file, entry, f"{part}.value", f"expected the quote to show {value:g}, as the provider wrote it"
                )


def _image_timings(data: dict[str, Any]) -> Iterator[Problem]:
    """Each published image time names a catalog image model, format and card, a real day, and
    quotes its own figure."""
    file = "catalog/image_timings.yaml"
    for timing in data["image_timings"]:
        entry = f"image_timing {timing['id']}"
        for field, section, what in (
            ("model", "diffusion", "an image or video model id of catalog/models.yaml"),
            ("format", "formats", "a format id of catalog/formats.yaml"),
            ("gpu", "gpus", "a GPU id of catalog/gpus.yaml"),
        ):
            if timing[field] not in _ids(data[section]):
                yield Problem(file, entry, field, f"expected {what}, got {timing[field]!r}")
        yield from _read_day(file, entry, timing["read"])
        value = timing["seconds"]["value"]
        if f"{value:g}" not in timing["quote"]:
            yield Problem(file, entry, "seconds.value", f"expected the quote to show {value:g}, as the source wrote it")


def _read_day(file: str, entry: str, day: str) -> Iterator[Problem]:
    try:
        datetime.date.fromisoformat(day)
    except ValueError:
        yield Problem(file, entry, "read", f"expected a real day as YYYY-MM-DD, got {day!r}")


def _runtimes(data: dict[str, Any]) -> Iterator[Problem]:
    """Each runtime runs known formats; each format's default runtime exists and runs it."""
    formats = _ids(data["formats"])
    runtimes = _ids(data["runtimes"])
    for runtime in data["runtimes"]:
        for fmt in runtime["formats"]:
            if fmt not in formats:
                yield Problem(
                    "catalog/runtimes.yaml",
                    runtime["id"],
                    "formats",
                    f"expected one of {', '.join(formats)}, got {fmt!r}",
                )
        if runtime["kind"] == "layer-split" and runtime["parallel"] != ["layer"]:
            yield Problem(
                "catalog/runtimes.yaml", runtime["id"], "parallel", "expected [layer] for a layer-split runtime"
            )
        if runtime["kind"] == "server" and "layer" in runtime["parallel"]:
            yield Problem(
                "catalog/runtimes.yaml", runtime["id"], "parallel", "expected tensor, pipeline or expert for a server"
            )
    for fmt in data["formats"]:
        runtime = runtimes.get(fmt["runtime"])
        if runtime is None:
            yield Problem(
                "catalog/formats.yaml",
                fmt["id"],
                "runtime",
                f"expected one of {', '.join(runtimes)}, got {fmt['runtime']!r}",
            )
        elif fmt["id"] not in runtime["formats"]:
            yield Problem(
                "catalog/formats.yaml",
                fmt["id"],
                "runtime",
                f"expected a runtime that lists {fmt['id']} in its formats",
            )


def _llms(data: dict[str, Any]) -> Iterator[Problem]:
    file = "catalog/models.yaml"
    formats = _ids(data.get("formats", []))
    for model in data["llms"]:
        entry = f"model {model['id']}"
        if formats and model["native_format"] not in formats:
            yield Problem(
                file, entry, "native_format", f"expected one of {', '.join(formats)}, got {model['native_format']!r}"
            )
        seen: set[str] = set()
        for i, checkpoint in enumerate(model.get("checkpoints", ())):
            if formats and checkpoint["format"] not in formats:
                yield Problem(
                    file,
                    entry,
                    f"checkpoints[{i}].format",
                    f"expected one of {', '.join(formats)}, got {checkpoint['format']!r}",
                )
            if checkpoint["format"] in seen:
                yield Problem(file, entry, f"checkpoints[{i}].format", "expected one checkpoint per format")
            seen.add(checkpoint["format"])
        a = model["architecture"]
        if a["heads"] % a["kv_heads"]:
            yield Problem(
                file, entry, "architecture.kv_heads", f"expected a divisor of heads ({a['heads']}), got {a['kv_heads']}"
            )
        local = a.get("local_layers", 0)
        if local > a["layers"]:
            yield Problem(
                file, entry, "architecture.local_layers", f"expected at most layers ({a['layers']}), got {local}"
            )
        if bool(local) != bool(a.get("sliding_window", 0)):
            yield Problem(
                file, entry, "architecture.sliding_window", "expected a window exactly when some layers are local"
            )
        moe = a.get("moe")
        if moe and moe["top_k"] > moe["experts"]:
            yield Problem(
                file,
                entry,
                "architecture.moe.top_k",
                f"expected at most experts ({moe['experts']}), got {moe['top_k']}",
            )
        if moe and moe.get("dense_layers", 0) >= a["layers"]:
            yield Problem(file, entry, "architecture.moe.dense_layers", f"expected fewer than layers ({a['layers']})")
        published = model["params_total"]["value"]
        counted = count_params(architecture_from_dict(a)).total
        if abs(counted - published) > PARAMS_TOLERANCE * published:
            yield Problem(
                file,
                entry,
                "params_total",
                f"expected within {PARAMS_TOLERANCE:.1%} of the {counted:,} parameters its architecture implies, got {published:,}",
            )


def _diffusion(data: dict[str, Any]) -> Iterator[Problem]:
    image_formats = [f["id"] for f in data.get("formats", []) if f.get("diffusion")]
    for model in data["diffusion"]:
        native = model.get("native_format")
        if native is not None and "formats" in data and native not in image_formats:
            yield Problem(
                "catalog/models.yaml",
                f"model {model['id']}",
                "native_format",
                f"expected a format image and video models run in ({', '.join(image_formats)}), got {native!r}",
            )
        gpus = _ids(data["gpus"]) if "gpus" in data else None
        for i, report in enumerate(model.get("memory_reports", ())):
            where = f"memory_reports[{i}]"
            gpu = report.get("gpu")
            if gpu is None and "capacity" not in report:
                yield Problem(
                    "catalog/models.yaml",
                    f"model {model['id']}",
                    where,
                    "expected a catalog card (gpu) or the card's total as the report gives it (capacity)",
                )
            elif gpu is not None and gpus is not None and gpu not in gpus:
                yield Problem(
                    "catalog/models.yaml",
                    f"model {model['id']}",
                    f"{where}.gpu",
                    f"expected a GPU id of catalog/gpus.yaml, got {gpu!r}",
                )
        if not any(c["role"] == "transformer" for c in model["components"]):
            yield Problem(
                "catalog/models.yaml",
                f"model {model['id']}",
                "components",
                "expected a denoiser (role: transformer)",
            )


def card_kind(gpu: dict[str, Any]) -> str:
    """HBM for data-centre boards, GDDR for graphics and workstation cards."""
    return "HBM" if str(gpu.get("memory_type", "")).upper().startswith("HBM") else "GDDR"


def _range_text(low: float, high: float, unit: str) -> str:
    return f"between {low:,g} and {high:,g} {unit}"


def _ranges(data: dict[str, Any]) -> Iterator[Problem]:
    """Figures outside a range that needs another figure or the engine's limits."""
    for name, limit in ENGINE_LIMITS.items():
        value = data.get("assumptions", {}).get(name, {}).get("value")
        if isinstance(value, int) and not isinstance(value, bool) and value > LIMITS[limit]:
            yield Problem(
                "catalog/assumptions.yaml",
                name,
                "value",
                f"expected at most {LIMITS[limit]:,} (the engine's limit on {limit}), got {value:,}",
            )
    hours = data.get("assumptions", {}).get("hours_per_month", {}).get("value")
    if not isinstance(hours, (int, float)) or not hours > 0:
        return
    gpus = {gpu["id"]: gpu for gpu in data.get("gpus", [])}
    for node in data.get("nodes", []):
        gpu = gpus.get(node["gpu"])
        price = node["price_month"]
        if gpu is None or price["unit"] != "USD/month" or not node["count"] > 0:
            continue
        kind = card_kind(gpu)
        low, high = CARD_HOUR_USD[kind]
        per_month = (low * hours * node["count"], high * hours * node["count"])
        if not per_month[0] <= price["value"] <= per_month[1]:
            yield Problem(
                "catalog/nodes.yaml",
                f"node {node['id']}",
                "price_month.value",
                f"expected {_range_text(round(per_month[0]), round(per_month[1]), 'USD/month')} "
                f"({low:g} to {high:g} USD per {kind} card-hour x {node['count']} cards x {hours:g} h), "
                f"got {price['value']:,g}",
            )
