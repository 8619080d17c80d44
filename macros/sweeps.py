"""The engine held against measured serving sweeps (catalog/validation/sweeps/), and the error band it ships.

Each row of a sweep is one replica of a model at a forced tensor-parallel size, serving a fixed
number of simultaneous requests of fixed lengths; the engine is run with the same layout, lengths
and load (users = the row's concurrency x the replicas the node holds) and its time per output
token and time to first token are set beside the measured ones.

The rows are split in two by a rule fixed in advance (`part`): constants are fitted on the
"fit" part (`macros.fitting`); the "judge" part says how far to trust the engine on what it was
not fitted to. A row is run as its server was started where the benchmark that measured it is
known (`macros.served`: its release, KV cache and CUDA graphs), at vLLM's defaults otherwise; a
row measured with a release before the one the constants hold from is run as that release
(`macros.validation.as_released`).
The error band (`band`) gives, per mechanic (TPOT, TTFT) and per slice (load, TP size, model
kind), the median and 90th percentile of engine / measured on the judge part, and is written to
catalog/validation/error_band.json (`python -m macros.sweeps --write`), which the tests check
against a fresh computation.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from macros.fitengine import Catalog, EngineError
from macros.fitengine.fit import fit_node
from macros.fitengine.trust import load_slice
from macros.fitengine.workloads import workload
from macros.served import UNSTATED, served
from macros.validation import as_released

SWEEPS_DIR = Path(__file__).resolve().parent.parent / "catalog" / "validation" / "sweeps"
BAND_FILE = SWEEPS_DIR.parent / "error_band.json"
TPOT_BAND = (0.9, 1.5)  # engine / measured: errs on the slow side, stays close
TTFT_BAND = (0.8, 2.0)
# The sweep's model names and node, as the catalog knows them.
MODELS = {
    "Qwen/Qwen3-32B": "qwen3-32b",
    "openai/gpt-oss-120b": "gpt-oss-120b",
    "meta-llama/Llama-3.1-70B": "llama-3.3-70b",  # the same architecture
}
NODES = {"vllm-h100-sxm.csv": "8x-h100-sxm"}
RUNTIME = "vllm"  # every sweep here was measured with it


@dataclass(frozen=True)
class Point:
    """One measured row beside the engine's figures (None where the engine gave none, and why)."""

    sweep: str
    row: dict[str, str]
    part: str
    tpot_ratio: float | None
    ttft_ratio: float | None
    refused: str | None = None

    @property
    def tp(self) -> int:
        return int(self.row["tensor_parallel"])

    @property
    def concurrency(self) -> int:
        return int(self.row["concurrency"])

    @property
    def answered(self) -> bool:
        """Whether the engine gave both figures (a refused row has neither)."""
        return self.tpot_ratio is not None and self.ttft_ratio is not None

    @property
    def in_band(self) -> bool:
        return (
            self.tpot_ratio is not None
            and self.ttft_ratio is not None
            and TPOT_BAND[0] <= self.tpot_ratio <= TPOT_BAND[1]
            and TTFT_BAND[0] <= self.ttft_ratio <= TTFT_BAND[1]
        )


def part(row: dict[str, str]) -> str:
    """'fit' or 'judge': a hash of the setup without its TP size, so the TP sizes of one setup stay together."""
    key = "|".join(row[k] for k in ("model", "weights", "input_tokens", "output_tokens", "concurrency"))
    return "fit" if hashlib.sha256(key.encode()).digest()[0] % 2 == 0 else "judge"


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def run(catalog: Catalog, directory: Path = SWEEPS_DIR) -> list[Point]:
    """Every row of every sweep, through the engine."""
    points = []
    for name, node_id in NODES.items():
        node = catalog.node(node_id)
        for row in rows(directory / name):
            points.append(point(catalog, name, node, row))
    return points


def point(catalog: Catalog, sweep: str, node: Any, row: dict[str, str], model: str = "") -> Point:
    """One row through the engine: its layout (tensor_parallel, and data_parallel and expert_parallel
    where the row has them), lengths and load; `model`: the catalog's id (default: MODELS')."""
    server = served(row, node.id)
    version = server.release if server else row.get("vllm_version") or "unstated"
    catalog = as_released(catalog, RUNTIME, None if version in UNSTATED else version, f"{sweep}: vllm_version")
    tp, dp = int(row["tensor_parallel"]), int(row.get("data_parallel") or 1)
    ep = max(1, int(row.get("expert_parallel") or 1))  # 0 in the source for a dense model
    prompt, answer = int(row["input_tokens"]), int(row["output_tokens"])
    users = int(row["concurrency"]) * (node.count // (tp * dp))
    where = part(row)
    try:
        work = workload(
            catalog,
            model or MODELS[row["model"]],
            row["weights"],
            prompt + answer,
            users,
            input_tokens=prompt,
            output_tokens=answer,
            runtime=RUNTIME,
            layout=(tp, 1, ep, dp),
            kv_cache=server.kv_cache if server else None,
            cuda_graphs=server.cuda_graphs if server else None,
        )
        fit = fit_node(catalog, work, node)
    except EngineError as e:
        return Point(sweep, row, where, None, None, e.code)
    if fit.verdict == "none" or not fit.decode_tok_s_per_user or fit.ttft_s is None:
        return Point(sweep, row, where, None, None, fit.reason.code)
    tpot = 1000 / fit.decode_tok_s_per_user / float(row["tpot_ms"])
    ttft = fit.ttft_s * 1000 / float(row["ttft_ms"])
    return Point(sweep, row, where, tpot, ttft)


def _kind(catalog: Catalog, row: dict[str, str]) -> str:
    return "moe" if catalog.llms[MODELS[row["model"]]].architecture.moe else "dense"


def quantiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p10 = ordered[max(0, math.ceil(0.1 * len(ordered)) - 1)]
    p90 = ordered[min(len(ordered) - 1, math.ceil(0.9 * len(ordered)) - 1)]
    return {
        "p10": round(p10, 3),
        "median": round(statistics.median(ordered), 3),
        "p90": round(p90, 3),
        "points": len(ordered),
    }


def band(catalog: Catalog, points: list[Point], which: str = "judge") -> dict[str, Any]:
    """Median and 90th percentile of engine / measured for TPOT and TTFT, overall and per slice,
    on one part of the rows ('fit', 'judge' or 'all'); a ratio's spread is read as max(r, 1/r)."""
    chosen = [p for p in points if which == "all" or p.part == which]
    answered = [p for p in chosen if p.answered]
    out: dict[str, Any] = {
        "part": which,
        "points": len(chosen),
        "refused": len(chosen) - len(answered),
        "in_band": round(sum(p.in_band for p in chosen) / len(chosen), 3) if chosen else 0.0,
        "tp_pairs_in_order": pairs_in_order(answered),
    }
    slices: dict[str, list[Point]] = defaultdict(list)
    for p in answered:
        slices["all"].append(p)
        slices[load_slice(p.concurrency)].append(p)
        slices[f"tp: {p.tp}"].append(p)
        slices[f"model: {_kind(catalog, p.row)}"].append(p)
    out["slices"] = {
        name: {
            "tpot": quantiles([p.tpot_ratio for p in group if p.tpot_ratio is not None]),
            "ttft": quantiles([p.ttft_ratio for p in group if p.ttft_ratio is not None]),
            "tpot_spread": quantiles([_spread(p.tpot_ratio) for p in group if p.tpot_ratio is not None]),
            "ttft_spread": quantiles([_spread(p.ttft_ratio) for p in group if p.ttft_ratio is not None]),
        }
        for name, group in sorted(slices.items())
    }
    return out


def _spread(ratio: float) -> float:
    return max(ratio, 1 / ratio)


def pairs_in_order(points: list[Point]) -> dict[str, int]:
    """Pairs of TP sizes of one setup whose measured order of TPOT the engine keeps."""
    setups: dict[tuple[str, ...], dict[int, tuple[float, float]]] = defaultdict(dict)
    for p in points:
        r = p.row
        key = tuple(r[k] for k in ("model", "weights", "input_tokens", "output_tokens", "concurrency", "vllm_version"))
        key += (r.get("expert_parallel") or "1", r.get("data_parallel") or "1", r.get("node", ""))
        measured = float(r["tpot_ms"])
        setups[key][p.tp] = (measured, measured * (p.tpot_ratio or 0))
    pairs = kept = 0
    for by_tp in setups.values():
        sizes = sorted(by_tp)
        for i, a in enumerate(sizes):
            for b in sizes[i + 1 :]:
                pairs += 1
                kept += (by_tp[a][0] > by_tp[b][0]) == (by_tp[a][1] > by_tp[b][1])
    return {"pairs": pairs, "kept": kept}


MIN_SLICE_POINTS = 5  # a tensor-parallel size with fewer judged points is not said to be covered


def covers(catalog: Catalog, points: list[Point]) -> dict[str, Any]:
    """The setups the band speaks for (macros/fitengine/trust.py reads it): the sweeps' runtime and
    cards, the tensor-parallel sizes with enough judged points, and the most users per replica measured."""
    judged = [p for p in points if p.part == "judge" and p.answered]
    sizes = sorted({p.tp for p in judged if sum(q.tp == p.tp for q in judged) >= MIN_SLICE_POINTS})
    return {
        "runtime": RUNTIME,
        "gpus": sorted({catalog.node(node).gpu for node in NODES.values()}),
        "tensor_parallel": sizes,
        "max_concurrency": max((p.concurrency for p in judged), default=0),
    }


def report(catalog: Catalog) -> dict[str, Any]:
    """The error band on the judge part, with the same figures on the fit part beside it."""
    points = run(catalog)
    return {
        "source": "catalog/validation/sweeps (see its README); engine / measured, per mechanic",
        # vLLM's serving constants (catalog/runtimes.yaml) come from macros/fitting.py, which reads
        # the fit part of the sweep and the published records, never the judge part.
        "fitted_on": "the fit part of the sweep and catalog/validation/records.yaml (python -m macros.fitting); "
        "the judge part is held out",
        "bands": {"tpot": list(TPOT_BAND), "ttft": list(TTFT_BAND)},
        "covers": covers(catalog, points),
        "judge": band(catalog, points, "judge"),
        "fit": band(catalog, points, "fit"),
    }


def main(argv: list[str] | None = None) -> int:
    from macros.catalog_loader import load_catalog

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {BAND_FILE.name}")
    args = parser.parse_args(argv)
    emit(report(load_catalog()), BAND_FILE if args.write else None)
    return 0


def emit(data: dict[str, Any], path: Path | None) -> None:
    """Print a band as JSON, and write it to `path` too when given (the file the tests compare)."""
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if path is not None:
        path.write_text(text, encoding="utf-8")
    sys.stdout.write(text)


if __name__ == "__main__":
    raise SystemExit(main())
