"""Cross-references and physical sense: what JSON Schema cannot say about the catalog.

Runs on the data of the files that passed their schema; a check that needs a file which did
not (or is missing) is skipped, so one broken file does not bury the others under echoes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

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
        return f"{self.file}: {self.entry}: {self.field}: {self.expected}"


PARAMS_TOLERANCE = 0.005  # computed parameter count vs the published total
# Usable memory (what nvidia-smi reports) against memory as sold: the two differ by the
# GB/GiB confusion of marketing and by ECC or reserved pages, never by much more.
USABLE_RANGE = (0.9, 1.15)
REQUIRED_LINKS = ("pcie-gen4-x16", "pcie-gen5-x16", "cross-socket")


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
    return [
        Problem(file, f"{section} {item_id}", "id", f"expected a unique id, found {n} entries with it")
        for item_id, n in counts.items()
        if n > 1
    ]


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
    for model in data["diffusion"]:
        if not any(c["role"] == "transformer" for c in model["components"]):
            yield Problem(
                "catalog/models.yaml",
                f"model {model['id']}",
                "components",
                "expected a denoiser (role: transformer)",
            )
