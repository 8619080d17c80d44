"""The engine held against published measurements (catalog/validation/records.yaml).

Each mapped record is run through the engine with the record's card, count, layout, users and
request lengths; the result is the engine's figure beside the published one, their ratio and
whether it keeps within the bounds a floor must keep: a speed at most 1.1 x the measured one
and at least a third of it; a time to first token at least 0.9 x the measured one and at most
three times it; a fit or an out-of-memory report agreed with.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from macros.file_stamps import read_when_changed, stamps
from macros.fitengine import Catalog, EngineError, Llm, from_hf_config

# Records name synthetic nodes (a catalog card at another count) and compare replica-level
# figures (a prefill, one decode step), so this harness calls the engine below its entry point.
from macros.fitengine.fit import fit_node, replica
from macros.fitengine.layout import Layout
from macros.fitengine.workloads import workload
from macros.messages import catalog_texts

VALIDATION_DIR = Path(__file__).resolve().parent.parent / "catalog" / "validation"
SPEED_BOUNDS = (1 / 3, 1.1)
TIME_BOUNDS = (0.9, 3.0)
SPEEDS = ("per_user", "total", "total_per_gpu", "best_total_per_gpu", "batch_latency_ms", "tpot_ms")
VERDICTS = ("fits", "oom")


@dataclass(frozen=True)
class Check:
    """One record: the published figure, the engine's, and whether they agree."""

    id: str
    measure: str | None
    published: float | str
    unit: str
    engine: float | None
    ratio: float | None
    ok: bool
    source: str
    what: str
    note: str
    unmapped: str | None = None
    superseded_by: str | None = None
    engine_row: dict[str, Any] | None = None
    miss: dict[str, str] | None = None  # a record the engine misses, with the cause (a CatalogText: text[locale])


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when PyYAML has it


def _parse_records(text: str) -> list[dict[str, Any]]:
    # A record's `miss` ({en: English}) gives its other languages from the message catalogs.
    return catalog_texts(yaml.load(text, Loader=_LOADER))["records"]


def records(directory: Path = VALIDATION_DIR) -> list[dict[str, Any]]:
    """The records file, as data (read again only when the file changed: the pages ask twice)."""
    return copy.deepcopy(read_when_changed(directory / "records.yaml", _parse_records))


def _model(catalog: Catalog, ref: str, directory: Path) -> Llm:
    if ref.startswith("config:"):
        name = ref.removeprefix("config:")
        config = json.loads((directory / "configs" / f"{name}.json").read_text(encoding="utf-8"))
        return from_hf_config(config, name=name)
    return catalog.llms[ref]


def _node(catalog: Catalog, gpu: str, count: int) -> Any:
    """A node of `count` cards of `gpu`, wired like the catalog's smallest node that has as many."""
    nodes = sorted((n for n in catalog.nodes if n.gpu == gpu and n.count >= count), key=lambda n: n.count)
    if not nodes:
        raise EngineError(f"no catalog node has {count} x {gpu}")
    node = nodes[0]
    return dataclasses.replace(
        node, id=f"{count}x-{gpu}", count=count, sockets=1 if count <= node.count // node.sockets else node.sockets
    )


def release(version: str, where: str = "runtime_version") -> tuple[int, ...]:
    """A release number ("0.8.5.post1", "0.11") as a tuple of its leading numbers, or a clear error."""
    numbers = []
    for part in str(version).split("."):
        if not part.isdigit():
            break
        numbers.append(int(part))
    if not numbers:
        raise ValueError(f"{where}: expected a release number such as 0.8.5, got {version!r}")
    return tuple(numbers)


def as_released(catalog: Catalog, runtime_id: str, version: str | None, where: str = "runtime_version") -> Catalog:
    """The catalog as a measurement taken with release `version` of the runtime saw it: a release
    before the one the runtime's constants hold from (`current_from`) decodes at the share of
    earlier releases; a later release, or one not stated, at today's."""
    runtime = catalog.runtimes.get(runtime_id)
    if version is None or runtime is None or not runtime.current_from:
        return catalog
    if release(version, where) >= runtime.current_from:
        return catalog
    earlier = dataclasses.replace(runtime, bandwidth_efficiency=runtime.earlier_bandwidth_efficiency)
    return dataclasses.replace(catalog, runtimes={**catalog.runtimes, runtime_id: earlier})


def check_record(catalog: Catalog, record: dict[str, Any], directory: Path = VALIDATION_DIR) -> Check:
    """Run one record through the engine (as the runtime's release it names ran, if it names one)."""
    base = {
        "id": record["id"],
        "published": record["value"],
        "unit": record["unit"],
        "source": record["source"],
        "what": record["what"],
        "note": record.get("note", ""),
        "miss": record.get("miss"),
    }
    if "unmapped" in record:
        return Check(
            measure=None,
            engine=None,
            ratio=None,
            ok=True,
            unmapped=record["unmapped"],
            superseded_by=record.get("superseded_by"),
            **base,
        )
    catalog = as_released(catalog, record["runtime"], record.get("runtime_version"), f"{record['id']}: runtime_version")
    model = _model(catalog, record["model"], directory)
    node = _node(catalog, record["gpu"], record["count"])
    users = record.get("concurrency") or 1
    prompt, answer = record.get("input"), record.get("output")
    measure = record["measure"]
    if measure in SPEEDS and prompt and answer:
        # A paged KV cache holds the tokens in flight, not every sequence at the longest context.
        context = prompt + answer
    else:
        context = record.get("context") or min(model.max_context, max(4096, (prompt or 0) + (answer or 0)))
    work = workload(
        catalog,
        model,
        record["format"],
        context,
        users,
        input_tokens=prompt,
        output_tokens=answer,
        runtime=record["runtime"],
        layout=tuple(record["layout"]),
    )
    row = fit_node(catalog, work, node)
    compared = record.get("compared") or {}
    value = compared.get("value", record["value"])
    engine: float | None
    if measure in VERDICTS:
        fits = row.verdict != "none"
        ok = fits if measure == "fits" else not fits
        return Check(measure=measure, engine=None, ratio=None, ok=ok, engine_row=row.to_dict(), **base)
    if row.verdict == "none":  # a figure of a setup the engine refuses is not held (a TTFT neither)
        return Check(measure=measure, engine=None, ratio=None, ok=False, engine_row=row.to_dict(), **base)
    if measure == "per_user":
        engine = row.decode_tok_s_per_user
    elif measure == "total":
        engine = row.decode_tok_s_total
    elif measure == "total_per_gpu":
        engine = row.decode_tok_s_total / node.count
    elif measure == "best_total_per_gpu":
        best = fit_node(catalog, dataclasses.replace(work, concurrency=max(1, row.best_concurrency)), node)
        engine = best.decode_tok_s_total / node.count
    elif measure == "batch_latency_ms":
        serving = replica(catalog, work, node, Layout(*record["layout"]))
        prompts = users * work.input_tokens
        latency = (
            serving.prefill_seconds(prompts)
            + work.output_tokens * serving.decode_step(users, work.input_tokens + work.output_tokens / 2).seconds
        )
        engine = work.output_tokens / latency  # per-user speed over the batch's life
        seconds = float(value) / (1 if record["unit"].startswith("s ") else 1000)
        value = work.output_tokens / seconds
    elif measure == "tpot_ms":
        engine = row.decode_tok_s_per_user
        value = 1000 / float(value)
    elif measure == "ttft_ms":
        # The engine holds the setup (a refused one returned above); only the prefill is compared.
        serving = replica(catalog, work, node, Layout(*record["layout"]))
        runtime = catalog.runtimes[record["runtime"]]
        engine = (runtime.request_overhead_s + serving.prefill_seconds(work.input_tokens)) * 1000
    else:
        raise ValueError(f"unknown measure {measure!r} in {record['id']}")
    ratio = engine / float(value)
    low, high = TIME_BOUNDS if measure == "ttft_ms" else SPEED_BOUNDS
    return Check(
        measure=measure,
        engine=engine,
        ratio=ratio,
        ok=low <= ratio <= high,
        engine_row=row.to_dict(),
        **{**base, "published": value},
    )


def check_all(catalog: Catalog, directory: Path = VALIDATION_DIR) -> tuple[Check, ...]:
    """Every record of the file, in its order; run once per catalog while the records and the
    configs they read are unchanged (the page's two tables and both locales ask)."""
    from macros.build.engine_cache import kept

    files = [directory / "records.yaml", *sorted((directory / "configs").glob("*.json"))]
    return kept(
        catalog,
        ("validation", str(directory.resolve()), stamps(files)),
        lambda: tuple(check_record(catalog, r, directory) for r in records(directory)),
    )


COPIED_KEYS = ("value", "unit", "source", "quote", "what", "kind")


def compare_upstream(upstream: list[dict[str, Any]], ours: list[dict[str, Any]] | None = None) -> list[str]:
    """What differs between the records copied from an upstream file of published measurements
    (`origin: shared`) and that file: records missing on either side, and each field changed."""
    mine = {r["id"]: r for r in (records() if ours is None else ours) if r.get("origin") == "shared"}
    theirs = {r["id"]: r for r in upstream}
    problems = [f"{rid}: in the upstream file, not copied" for rid in sorted(theirs.keys() - mine.keys())]
    problems += [f"{rid}: copied, not in the upstream file" for rid in sorted(mine.keys() - theirs.keys())]
    for rid in sorted(theirs.keys() & mine.keys()):
        for key in COPIED_KEYS:
            if mine[rid].get(key) != theirs[rid].get(key):
                problems.append(f"{rid}: {key} differs from the upstream file")
    return problems


def main(argv: list[str] | None = None) -> int:
    """`python -m macros.validation --upstream FILE`: compare the copied records with their upstream file."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(description=compare_upstream.__doc__.splitlines()[0])
    parser.add_argument("--upstream", type=Path, required=True, help="the upstream measurements.yaml")
    args = parser.parse_args(argv)
    try:
        upstream = yaml.load(args.upstream.read_text(encoding="utf-8"), Loader=_LOADER)
    except (OSError, yaml.YAMLError) as e:
        sys.stderr.write(f"{args.upstream}: {e}\n")
        return 2
    problems = compare_upstream(upstream)
    for line in problems:
        sys.stdout.write(line + "\n")
    sys.stdout.write("the copy matches its upstream file\n" if not problems else f"{len(problems)} differences\n")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
