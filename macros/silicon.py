"""The engine judged on measured points it never saw: the vLLM rows of the silicon measurements
NVIDIA's AIConfigurator publishes, on the cards of the catalog other than the project's sweep's.

The project's sweep (catalog/validation/sweeps/vllm-h100-sxm.csv) holds that source's H100 SXM
rows; the same file holds rows measured on other cards (H200, B200 and newer), which the project
does not copy: they are the engine's test on cards it was not fitted to. `python -m macros.silicon
PATH` reads a copy of the source file (github.com/ai-dynamo/aiconfigurator,
`aic-core/src/aiconfigurator_core/systems/silicon_sample.csv`, Apache-2.0), runs each row with
backend vLLM and mode "agg" whose card (`SYSTEMS`) and model (`MODELS`) the catalog holds through
the engine with the row's layout, lengths and load, as macros/sweeps.py does, and prints the error
band; `--write` keeps that summary, never a row, in catalog/validation/silicon_band.json, which the
methodology page shows. Nothing here fits a constant: the constants come from macros/fitting.py.

How a row is read: `batch_size` is the requests served at once by one replica (the source's
silicon_concurrency); a replica spans max(tp_size x attention_dp_size, moe_tp_size x moe_ep_size)
cards, with data-parallel attention where the attention's tensor-parallel size is smaller; the
experts are dealt whole where moe_ep_size is above 1. The source labels gpt-oss's weights
"nvfp4": vLLM serves a model published in MXFP4 from that checkpoint. Where the benchmark that measured a row
is known, the row runs as its server was started (macros/served.py, matched on the model, the
card, the release the source states and the day it gives: `measured`).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

from macros.fitengine import Catalog
from macros.served import measured_day
from macros.sweeps import BAND_FILE, TPOT_BAND, TTFT_BAND, Point, emit, pairs_in_order, point, quantiles

SILICON_BAND_FILE = BAND_FILE.parent / "silicon_band.json"
SOURCE = "github.com/ai-dynamo/aiconfigurator, aic-core/src/aiconfigurator_core/systems/silicon_sample.csv"
# The source's cards the catalog rents, but the sweep's own (H100 SXM, already in the project).
SYSTEMS = {"h200_sxm": "8x-h200-sxm", "b200_sxm": "8x-b200"}
# The source's models the catalog holds (the same architecture under another name where noted).
MODELS = {
    "meta-llama/Llama-3.1-70B": "llama-3.3-70b",  # Llama 3.3 70B has Llama 3.1 70B's shapes
    "nvidia/Llama-3.1-8B-Instruct-FP8": "llama-3.1-8b",
    "Qwen/Qwen3-32B": "qwen3-32b",
    "Qwen/Qwen3-235B-A22B-FP8": "qwen3-235b-a22b",
    "openai/gpt-oss-120b": "gpt-oss-120b",
}
QUANT = {"": "bf16", "bf16": "bf16", "fp8": "fp8", "nvfp4": "nvfp4"}


class SiliconFileError(ValueError):
    """The file is not the source's table: the message names the file and what is missing."""


def sweep_row(catalog: Catalog, row: dict[str, str]) -> tuple[str, dict[str, str]] | str:
    """A source row as (model id, a row of the project's sweep format with its catalog `node`), or
    why it is left out."""
    if row.get("backend") != "vllm" or row.get("mode") != "agg":
        return "another runtime or disaggregated serving"
    if row.get("system") not in SYSTEMS:
        return "a card the catalog does not rent, or the sweep's own"
    model = MODELS.get(row.get("model_path", ""))
    if model is None:
        return "a model the catalog does not hold"
    fmt = QUANT.get(row.get("gemm_quant_mode", ""))
    if fmt is not None and catalog.llms[model].native_format == "mxfp4":
        fmt = "mxfp4"  # its published checkpoint, whatever the source calls it
    if fmt is None or fmt not in catalog.formats:
        return "weights in a format the catalog does not hold"
    tp, attention_dp = int(row["tp_size"]), int(row.get("attention_dp_size") or 1)
    moe_tp, moe_ep = int(row.get("moe_tp_size") or 1), int(row.get("moe_ep_size") or 1)
    cards = max(tp * attention_dp, moe_tp * moe_ep)
    return (
        model,
        {
            "model": row["model_path"],
            "weights": fmt,
            "vllm_version": row.get("backend_version", ""),
            "input_tokens": row["isl"],
            "output_tokens": row["osl"],
            "concurrency": row["batch_size"],
            "tensor_parallel": str(tp),
            "data_parallel": str(cards // tp),
            "expert_parallel": str(moe_ep if moe_ep > 1 else 1),
            "ttft_ms": row["silicon_ttft_ms"],
            "tpot_ms": row["silicon_tpot_ms"],
            "node": SYSTEMS[row["system"]],
            "measured": measured_day(row.get("silicon_data_source", "")),
        },
    )


REQUIRED = ("backend", "mode", "system", "model_path", "isl", "osl", "batch_size", "tp_size")
REQUIRED += ("silicon_ttft_ms", "silicon_tpot_ms")


def read(path: Path) -> list[dict[str, str]]:
    try:
        with path.open(encoding="utf-8", newline="") as f:
            table = list(csv.DictReader(f))
    except OSError as e:
        raise SiliconFileError(f"{path}: cannot be read ({e.strerror})") from e
    missing = [c for c in REQUIRED if not table or c not in table[0]]
    if missing:
        raise SiliconFileError(f"{path}: not the source's table (no column {', '.join(missing)})")
    return table


def run(catalog: Catalog, table: list[dict[str, str]]) -> tuple[list[Point], Counter[str]]:
    """The rows the catalog can answer, through the engine, and how many were left out, by reason.
    A row whose figures are not numbers stops the run, named by its line."""
    points, left_out = [], Counter()
    for line, row in enumerate(table, start=2):  # the header is line 1
        try:
            mapped = sweep_row(catalog, row)
            if isinstance(mapped, str):
                left_out[mapped] += 1
                continue
            model, sweep = mapped
            points.append(point(catalog, "silicon_sample.csv", catalog.node(sweep["node"]), sweep, model))
        except (KeyError, ValueError) as e:
            raise SiliconFileError(f"line {line}: {e}") from e
    return points, left_out


def _in_band(points: list[Point]) -> float:
    return round(sum(p.in_band for p in points) / len(points), 3) if points else 0.0


def _ratios(answered: list[Point]) -> dict[str, dict[str, float]]:
    """Engine / measured for the time per token and the first token: median, 10th and 90th percentiles."""
    if not answered:
        return {"tpot": {}, "ttft": {}}
    return {
        "tpot": quantiles([p.tpot_ratio for p in answered if p.tpot_ratio is not None]),
        "ttft": quantiles([p.ttft_ratio for p in answered if p.ttft_ratio is not None]),
    }


def _setup(catalog: Catalog, node: str, model: str, fmt: str, group: list[Point]) -> dict[str, Any]:
    """One card, model and format: its points, their share in band, and engine / measured (the
    median, and the 10th and 90th percentiles macros/fitengine/trust.py shows beside a figure),
    with the layouts and loads measured (what that band speaks for)."""
    answered = [p for p in group if p.answered]
    return {
        "node": node,
        "gpu": catalog.node(node).gpu,
        "model": MODELS[model],
        "format": fmt,
        "points": len(group),
        "in_band": _in_band(group),
        **_ratios(answered),
        "tensor_parallel": sorted({p.tp for p in answered if p.row["data_parallel"] == "1"}),
        "max_concurrency": max((p.concurrency for p in answered), default=0),
    }


def report(catalog: Catalog, path: Path) -> dict[str, Any]:
    table = read(path)
    try:
        points, left_out = run(catalog, table)
    except SiliconFileError as e:
        raise SiliconFileError(f"{path}: {e}") from e
    answered = [p for p in points if p.answered]
    setups: dict[tuple[str, str, str], list[Point]] = {}
    for p in points:
        setups.setdefault((p.row["node"], p.row["model"], p.row["weights"]), []).append(p)
    return {
        "source": SOURCE,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "computed": date.today().isoformat(),
        "rule": "backend vLLM, mode agg, cards " + ", ".join(SYSTEMS) + "; never used to fit",
        "bands": {"tpot": list(TPOT_BAND), "ttft": list(TTFT_BAND)},
        "points": len(points),
        "refused": len(points) - len(answered),
        "in_band": _in_band(points),
        **_ratios(answered),
        "tp_pairs_in_order": pairs_in_order(answered),
        "setups": [
            _setup(catalog, node, model, fmt, group)
            for (node, model, fmt), group in sorted(setups.items())
            if any(p.answered for p in group)
        ],
        "left_out": dict(sorted(left_out.items())),
    }


def main(argv: list[str] | None = None) -> int:
    from macros.catalog_loader import load_catalog

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="a copy of the source's silicon_sample.csv")
    parser.add_argument("--write", action="store_true", help=f"write {SILICON_BAND_FILE.name}")
    parser.add_argument("--check", action="store_true", help=f"fail if {SILICON_BAND_FILE.name} says otherwise")
    args = parser.parse_args(argv)
    try:
        data = report(load_catalog(), args.path)
    except SiliconFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.check:
        kept = json.loads(SILICON_BAND_FILE.read_text(encoding="utf-8"))
        stale = sorted(k for k in data if k != "computed" and kept.get(k) != data[k])
        if stale:
            print(f"error: {SILICON_BAND_FILE.name} differs in {', '.join(stale)}: rerun with --write", file=sys.stderr)
            return 1
    emit(data, SILICON_BAND_FILE if args.write else None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
