"""Cross-references and physical sense: what JSON Schema cannot say about the catalog.

Runs on the data of the files that passed their schema; a check that needs a file which did
not (or is missing) is skipped, so one broken file does not bury the others under echoes.
"""

from __future__ import annotations

import datetime
import math
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from macros.fitengine.api import LIMITS
from macros.fitengine.architecture import count_params
from macros.fitengine.catalog import architecture_from_dict
from macros.fitengine.units import GB, MIB


@dataclass(frozen=True)
class Problem:
    """One thing wrong in the catalog: where (file, entry, field) and what was expected."""

    file: str
    entry: str
    field: str
    expected: str

    def __str__(self) -> str:
        expected = self.expected if len(self.expected) <= MESSAGE_LIMIT else self.expected[:MESSAGE_LIMIT] + "…"
        return f"{self.file}: {self.entry[:80]}: {self.field[:80]}: {expected}"


MESSAGE_LIMIT = 300  # characters of one problem: a message names a value, never echoes a whole one


PARAMS_TOLERANCE = 0.005  # computed parameter count vs the published total
# Usable memory (what nvidia-smi reports) against memory as sold: the two differ by the
# GB/GiB confusion of marketing and by ECC or reserved pages, never by much more.
USABLE_RANGE = (0.9, 1.15)
REQUIRED_LINKS = ("pcie-gen4-x16", "pcie-gen5-x16", "cross-socket")

# Plausible ranges, by section and field, in the unit the schema requires. Far wider than any
# real card, link or model, narrow enough to catch a unit slip (TB/s typed as GB/s, a monthly
# price typed as hourly) or a digit too many. GPU figures depend on the kind of card: HBM
# (data-centre boards) or GDDR (graphics and workstation cards).
RANGES: dict[tuple[str, str], tuple[float, float, str]] = {
    ("gpus", "memory_sold"): (8, 1024, "GB"),
    ("gpus", "bf16_dense"): (10, 20_000, "TFLOPS"),
    ("gpus", "fp8_dense"): (20, 40_000, "TFLOPS"),
    ("gpus", "tdp"): (25, 3_000, "W"),
    ("gpus", "nvlink.per_direction"): (10, 5_000, "GB/s"),
    ("links", "per_direction"): (1, 1_000, "GB/s"),
    ("links", "per_link"): (1, 500, "GB/s"),
    ("links", "latency"): (0.1, 1_000, "us"),
    ("llms", "params_total"): (1e7, 1e14, "parameters"),
    ("diffusion", "components.params"): (1e5, 1e13, "parameters"),
    ("diffusion", "activation"): (0.01, 1_000, "GB"),
    ("formats", "bits_per_weight"): (1, 32, "bit"),
    ("assumptions", "usable_fraction"): (0.5, 1, "ratio"),
    ("assumptions", "hours_per_month"): (672, 744, "hours"),
    ("assumptions", "kv_bytes"): (0.5, 8, "bytes"),
    ("assumptions", "activation_bytes"): (0.5, 8, "bytes"),
    ("assumptions", "gradient_bytes"): (0.5, 8, "bytes"),
    ("assumptions", "allreduces_per_layer"): (1, 16, "count"),
    ("assumptions", "default_context"): (1, LIMITS["context"], "tokens"),
    ("assumptions", "default_concurrency"): (1, LIMITS["concurrency"], "users"),
    ("assumptions", "kv_bytes_fp8"): (0.5, 8, "bytes"),
    ("assumptions", "default_input_tokens"): (1, LIMITS["context"], "tokens"),
    ("assumptions", "default_output_tokens"): (1, LIMITS["context"], "tokens"),
    ("runtimes", "memory_utilization"): (0.05, 1, "ratio"),
    ("runtimes", "batched_tokens"): (16, 1_048_576, "tokens"),
    ("runtimes", "batched_tokens_large"): (16, 1_048_576, "tokens"),
    ("runtimes", "large_card_memory"): (1, 4096, "GiB"),
    ("runtimes", "max_sequences"): (1, 65_536, "sequences"),
    ("runtimes", "max_sequences_large"): (1, 65_536, "sequences"),
    ("runtimes", "activation_per_vocab_token"): (0.5, 64, "bytes"),
    ("runtimes", "activation_per_hidden_token"): (0, 1024, "bytes"),
    ("runtimes", "fixed_per_card"): (0, 64, "GiB"),
    ("runtimes", "fixed_per_card_split"): (0, 64, "GiB"),
    ("runtimes", "bandwidth_efficiency"): (0.05, 1, "ratio"),
    ("runtimes", "earlier_bandwidth_efficiency"): (0.05, 1, "ratio"),
    ("runtimes", "compute_efficiency"): (0.05, 1, "ratio"),
    ("runtimes", "layer_overhead"): (0, 10_000, "us"),
    ("runtimes", "moe_layer_overhead"): (0, 10_000, "us"),
    ("runtimes", "request_overhead"): (0, 10_000, "ms"),
    ("runtimes", "mla_layer_overhead"): (0, 10_000, "us"),
    ("runtimes", "marlin_moe_layer_overhead"): (0, 10_000, "us"),
    ("runtimes", "sequence_overhead"): (0, 10_000, "us"),
    ("runtimes", "arrival_burst"): (0, 1, "ratio"),
    ("runtimes", "custom_allreduce_max"): (0, 1024, "MiB"),
    ("runtimes", "custom_allreduce_latency"): (0, 10_000, "us"),
    ("runtimes", "custom_allreduce_latency_per_card"): (0, 1_000, "us"),
    ("runtimes", "custom_allreduce_efficiency"): (0.01, 1, "ratio"),
    ("formats", "expert_pad"): (1, 4096, "weights"),
    ("api_prices", "input"): (0.001, 1_000, "USD/Mtok"),
    ("api_prices", "output"): (0.001, 1_000, "USD/Mtok"),
    ("image_timings", "seconds"): (0.01, 36_000, "s"),
}
# By kind of card: memory bandwidth (GB/s) and price per card-hour (USD), from the slowest GDDR
# card to far beyond the fastest HBM board, and from spot prices to several times list prices.
CARD_RANGES: dict[str, dict[str, tuple[float, float]]] = {
    "HBM": {"memory_bandwidth": (1_000, 30_000), "card_hour_usd": (0.3, 30.0)},
    "GDDR": {"memory_bandwidth": (100, 3_000), "card_hour_usd": (0.05, 10.0)},
}


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
        problems += _unique_ids(data.get(section), f"catalog/{file}.yaml", section)
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


def _unique_ids(items: list[dict[str, Any]] | None, file: str, section: str) -> list[Problem]:
    if not items:
        return []
    counts = Counter(item["id"] for item in items)
    problems = [
        Problem(file, f"{section} {item_id}", "id", f"expected a unique id, found {n} entries with it")
        for item_id, n in counts.items()
        if n > 1
    ]
    for field in ("id", "name"):  # ids and names a reader could not tell apart from another's
        seen: dict[str, str] = {}
        for item in items:
            value = item.get(field)
            if not isinstance(value, str) or counts.get(value, 0) > 1:
                continue
            key = skeleton(value)
            if key in seen:
                problems.append(
                    Problem(
                        file,
                        f"{section} {item['id']}",
                        field,
                        f"expected {'an id' if field == 'id' else 'a name'} a reader can tell from the others,"
                        f" got {value[:MAX_NAME]!r},"
                        f" which reads as {seen[key][:MAX_NAME]!r}",
                    )
                )
            seen.setdefault(key, value)
    return problems


# Letters of other scripts that print as Latin ones (as capitals, since names are capitalized,
# and as small letters), once case folded, and digits that print as letters: a subset of
# Unicode's confusables (UTS #39, confusables.txt) for the scripts an editor may paste from.
_CONFUSABLE = str.maketrans(
    {
        **dict(zip("авекмнорстухѕіјһԁԛԝӏ", "abekmhopctyxsijhdqwl", strict=True)),  # Cyrillic
        **dict(zip("αβεζηικμνορτυχ", "abezhikmnoptyx", strict=True)),  # Greek
        "0": "o",
        "1": "l",
        "ı": "i",
        "ſ": "s",
    }
)


def skeleton(value: str) -> str:
    """What a value looks like: NFKC, case folded, invisible characters and whitespace runs
    dropped, and look-alike letters of other scripts read as the Latin ones."""
    folded = unicodedata.normalize("NFKC", value).casefold()
    shown = "".join(c for c in folded if unicodedata.category(c) not in ("Cf", "Mn", "Cc"))
    return " ".join(shown.translate(_CONFUSABLE).split())


MAX_NAME = 80  # characters of an id or a name: the longest today has 39
MAX_TEXT = 600  # of any other text (sources, notes, explanations): the longest today has 452


def too_long(file: str, document: Any) -> list[Problem]:
    """Every text of a parsed file longer than a name (ids, names) or a note may be."""
    found: list[Problem] = []

    def walk(value: Any, entry: str, path: list[str]) -> None:
        if isinstance(value, str):
            limit = MAX_NAME if path and path[-1] in ("id", "name") else MAX_TEXT
            if len(value) > limit:
                found.append(
                    Problem(
                        file,
                        entry,
                        ".".join(path) or "value",
                        f"expected at most {limit} characters, got {len(value):,}",
                    )
                )
        elif isinstance(value, dict):
            for key, child in value.items():
                walk(child, entry, [*path, str(key)])
        elif isinstance(value, list):
            for child in value:
                walk(child, entry, path)

    _each_entry(document, walk)
    return found


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


SECTION_FILES = {
    "gpus": "gpus",
    "links": "interconnects",
    "topologies": "interconnects",
    "nodes": "nodes",
    "formats": "formats",
    "runtimes": "runtimes",
    "llms": "models",
    "diffusion": "models",
    "assumptions": "assumptions",
    "api_prices": "api_prices",
    "image_timings": "image_timings",
}


def _figures(item: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every {value, unit} figure inside an entry, with its dotted path."""
    if isinstance(item, dict):
        if "value" in item and "unit" in item:
            yield path, item
        for key, child in item.items():
            yield from _figures(child, f"{path}.{key}" if path else str(key))
    elif isinstance(item, list):
        for child in item:
            yield from _figures(child, path)


def _ranges(data: dict[str, Any]) -> Iterator[Problem]:
    """Figures outside the range a card, link, model or constant of their kind can have."""
    for section, file in SECTION_FILES.items():
        items = data.get(section)
        if items is None:
            continue
        entries = items.items() if isinstance(items, dict) else ((item.get("id", "?"), item) for item in items)
        for entry_id, item in entries:
            label = entry_id if section == "assumptions" else f"{section.rstrip('s')} {entry_id}"
            for path, figure in _figures(item):
                key = (section, str(entry_id)) if section == "assumptions" else (section, path)
                value = figure["value"]
                if key not in RANGES or isinstance(value, bool) or not isinstance(value, (int, float)):
                    continue
                low, high, unit = RANGES[key]
                if figure["unit"] == unit and not low <= value <= high:
                    yield Problem(
                        f"catalog/{file}.yaml",
                        label,
                        f"{path}.value" if path else "value",
                        f"expected {_range_text(low, high, unit)}, got {value:,g}",
                    )
    yield from _card_ranges(data)


def _card_ranges(data: dict[str, Any]) -> Iterator[Problem]:
    gpus = {gpu["id"]: gpu for gpu in data.get("gpus", [])}
    for gpu in gpus.values():
        kind = card_kind(gpu)
        low, high = CARD_RANGES[kind]["memory_bandwidth"]
        figure = gpu["memory_bandwidth"]
        if figure["unit"] == "GB/s" and not low <= figure["value"] <= high:
            yield Problem(
                "catalog/gpus.yaml",
                f"gpu {gpu['id']}",
                "memory_bandwidth.value",
                f"expected {_range_text(low, high, 'GB/s')} for an {kind} card, got {figure['value']:,g}",
            )
    hours = data.get("assumptions", {}).get("hours_per_month", {}).get("value")
    if not isinstance(hours, (int, float)) or not hours > 0:
        return
    for node in data.get("nodes", []):
        gpu = gpus.get(node["gpu"])
        price = node["price_month"]
        if gpu is None or price["unit"] != "USD/month" or not node["count"] > 0:
            continue
        kind = card_kind(gpu)
        low, high = CARD_RANGES[kind]["card_hour_usd"]
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


def non_finite(file: str, document: Any) -> list[Problem]:
    """Every NaN or infinity in a parsed file (YAML's .nan and .inf pass JSON Schema's bounds)."""
    found: list[Problem] = []

    def walk(value: Any, entry: str, path: list[str]) -> None:
        if isinstance(value, float) and not math.isfinite(value):
            found.append(Problem(file, entry, ".".join(path) or "value", f"expected a finite number, got {value}"))
        elif isinstance(value, dict):
            for key, child in value.items():
                walk(child, entry, [*path, str(key)])
        elif isinstance(value, list):
            for index, child in enumerate(value):
                walk(child, entry, [*path, str(index)])

    _each_entry(document, walk)
    return found


def _each_entry(document: Any, walk: Any) -> None:
    """Call walk(value, entry, []) on each entry of a parsed file, named as problems name them."""
    if not isinstance(document, dict):
        walk(document, "(file)", [])
        return
    for key, value in document.items():
        if not isinstance(value, list):
            walk(value, str(key), [])
            continue
        for index, child in enumerate(value):
            named = isinstance(child, dict) and isinstance(child.get("id"), str)
            walk(child, f"{key}[{index}]" + (f" {child['id'][:40]}" if named else ""), [])
