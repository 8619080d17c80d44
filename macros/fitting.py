"""The search that sets vLLM's serving constants (catalog/runtimes.yaml), on the fit part of the
measured sweep and the published records, never on the judge part.

`python -m macros.fitting` runs it from the committed constants and prints each constant found
beside the committed one; `--write` puts the values found in catalog/runtimes.yaml (their sources
and explanations stay as written). Then `python -m macros.sweeps --write` gives the error band the
new constants have on the judge part.

The objective, compared as a tuple (larger is better, the first element first):

1. the published records that keep to what catalog/validation/records.yaml states of them: a
   record the engine is held to within a floor's bounds (a speed 1/3 to 1.1 x, a first token 0.9
   to 3 x measured), a record stated as a miss outside them. The search starts where all of them
   are, and a value that loses one never wins;
2. on the fit part of the sweep (`macros.sweeps.part`, a hash rule fixed in advance): the share
   of points whose time per token is within 0.9 to 1.5 x measured and whose first token is
   within 0.8 to 2 x, plus the share of pairs of tensor-parallel sizes of one setup that the
   engine ranks in the measured order;
3. the closeness that separates ties: minus the mean, over the fit points, of the distance of
   log(engine / measured) to the log of the middle of its band (TPOT and TTFT each), rounded,
   and minus one more for each fit point the engine gives no figure for;
4. then the records' own closeness: minus the mean |log(engine / published)| of the records
   held (what sets a constant only records see, such as the share of earlier releases).

The search goes over each constant in turn (`CONSTANTS`: a grid within the range its sources
allow), takes the best value of its grid with the others held, and repeats until a round changes
nothing. A value tied with the one in hand does not replace it, so a rerun from the committed
constants keeps them: they are a local optimum of the objective, each one step of its grid up
or down doing no better (tests/test_fitting.py checks that).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from macros.fitengine import Catalog
from macros.sweeps import NODES, SWEEPS_DIR, TPOT_BAND, TTFT_BAND, Point, pairs_in_order, part, point, rows
from macros.validation import check_record, records

RUNTIME = "vllm"
RUNTIMES_FILE = Path(__file__).resolve().parent.parent / "catalog" / "runtimes.yaml"
_MAX_ROUNDS = 8


@dataclass(frozen=True)
class Constant:
    """One fitted constant: its key in runtimes.yaml, the `Runtime` attribute it sets (the YAML
    value times `scale`), and its grid: `low` to `high` in steps of `step`, in the YAML's unit."""

    key: str
    attribute: str
    scale: float
    low: float
    high: float
    step: float
    why: str  # the range's reason

    def grid(self) -> list[float]:
        count = round((self.high - self.low) / self.step)
        return [self.rounded(self.low + i * self.step) for i in range(count + 1)]

    def rounded(self, value: float) -> float:
        digits = max(0, -math.floor(math.log10(self.step)) + 1)
        return round(value, digits)


CONSTANTS = (
    Constant("bandwidth_efficiency", "bandwidth_efficiency", 1, 0.40, 0.95, 0.01, "a share of the card's bandwidth"),
    Constant(
        "earlier_bandwidth_efficiency",
        "earlier_bandwidth_efficiency",
        1,
        0.30,
        0.95,
        0.01,
        "the same for releases before current_from",
    ),
    Constant(
        "compute_efficiency",
        "compute_efficiency",
        1,
        0.40,
        0.60,
        0.02,
        "0.4 to 0.6 of dense peak in published serving runs (its source)",
    ),
    Constant("layer_overhead", "layer_overhead_s", 1e-6, 0, 100, 2, "launch gaps of a layer: tens of microseconds"),
    Constant("moe_layer_overhead", "moe_layer_overhead_s", 1e-6, 0, 200, 5, "routing and grouped expert kernels"),
    Constant("sequence_overhead", "sequence_overhead_s", 1e-6, 0, 40, 1, "scheduling and sampling per sequence"),
    Constant("request_overhead", "request_overhead_s", 1e-3, 0, 80, 2, "tokenizing and scheduling a request"),
    Constant("arrival_burst", "arrival_burst", 1, 0, 0.5, 0.01, "a share of the other users' prompts"),
    Constant("mla_layer_overhead", "mla_layer_overhead_s", 1e-6, 0, 800, 10, "MLA's projections and kernels"),
    Constant("marlin_moe_layer_overhead", "marlin_moe_layer_overhead_s", 1e-6, 0, 300, 5, "Marlin's MoE kernels"),
    Constant(
        "flashinfer_moe_layer_overhead", "flashinfer_moe_layer_overhead_s", 1e-6, 0, 200, 5, "FlashInfer's MoE kernels"
    ),
    Constant(
        "triton_moe_bandwidth_share", "triton_moe_bandwidth_share", 1, 0.2, 1.0, 0.05, "Triton's FP8 fused_moe reads"
    ),
    Constant(
        "deepgemm_moe_bandwidth_share", "deepgemm_moe_bandwidth_share", 1, 0.2, 1.0, 0.05, "DeepGEMM's FP8 expert reads"
    ),
    Constant("moe_compute_share", "moe_compute_share", 1, 0.4, 1.0, 0.05, "grouped expert products on few rows each"),
)


def fit_rows(directory: Path = SWEEPS_DIR) -> list[tuple[str, dict[str, str]]]:
    """The sweep's rows of the fit part, with their sweep's file name: all the search reads of it."""
    return [(name, row) for name in NODES for row in rows(directory / name) if part(row) == "fit"]


def values(catalog: Catalog) -> dict[str, float]:
    """The fitted constants of the catalog's vLLM, in runtimes.yaml's units."""
    runtime = catalog.runtimes[RUNTIME]
    return {c.key: c.rounded(getattr(runtime, c.attribute) / c.scale) for c in CONSTANTS}


def with_values(catalog: Catalog, chosen: dict[str, float]) -> Catalog:
    """The catalog with vLLM's fitted constants set to `chosen` (runtimes.yaml's units)."""
    by_key = {c.key: c for c in CONSTANTS}
    changes = {by_key[k].attribute: v * by_key[k].scale for k, v in chosen.items()}
    runtime = dataclasses.replace(catalog.runtimes[RUNTIME], **changes)
    return dataclasses.replace(catalog, runtimes={**catalog.runtimes, RUNTIME: runtime})


def records_kept(catalog: Catalog, published: list[dict[str, Any]] | None = None) -> tuple[int, float]:
    """Published records that keep to what the records file states (held, or a stated miss), and
    minus the mean |log(engine / published)| of those held with a figure."""
    kept, logs = 0, []
    for record in records() if published is None else published:
        if "measure" not in record:
            continue
        check = check_record(catalog, record)
        kept += check.ok != ("miss" in record)
        if check.ok and check.ratio:
            logs.append(abs(math.log(check.ratio)))
    return kept, -round(sum(logs) / max(1, len(logs)), 6)


def objective(
    catalog: Catalog, fit: list[tuple[str, dict[str, str]]], published: list[dict[str, Any]] | None = None
) -> tuple[int, float, float, float]:
    """The documented objective (module docstring) of the catalog's constants on `fit` rows."""
    points = [point(catalog, name, catalog.node(NODES[name]), row) for name, row in fit]
    kept, closeness = records_kept(catalog, published)
    return (*score(points, kept), closeness)


def score(points: list[Point], kept: int) -> tuple[int, float, float]:
    """The objective's first three elements: records kept, sweep shares, sweep closeness."""
    answered = [p for p in points if p.answered]
    in_band = sum(p.in_band for p in points) / len(points) if points else 0.0
    pairs = pairs_in_order(answered)
    ordered = pairs["kept"] / pairs["pairs"] if pairs["pairs"] else 0.0
    centre_tpot, centre_ttft = math.sqrt(TPOT_BAND[0] * TPOT_BAND[1]), math.sqrt(TTFT_BAND[0] * TTFT_BAND[1])
    distance = sum(
        abs(math.log(p.tpot_ratio / centre_tpot)) + abs(math.log(p.ttft_ratio / centre_ttft))  # type: ignore[operator]
        for p in answered
    ) / max(1, 2 * len(answered))
    return kept, round(in_band + ordered, 9), -round(distance + (len(points) - len(answered)), 6)


def search(catalog: Catalog, fit: list[tuple[str, dict[str, str]]] | None = None, log: Any = None) -> dict[str, float]:
    """Coordinate search from the catalog's constants; returns the values found (runtimes.yaml units)."""
    fit = fit_rows() if fit is None else fit
    published = records()
    current = values(catalog)
    best = objective(catalog, fit, published)
    for round_ in range(1, _MAX_ROUNDS + 1):
        changed = False
        for constant in CONSTANTS:
            for value in constant.grid():
                if value == current[constant.key]:
                    continue
                trial = {**current, constant.key: value}
                found = objective(with_values(catalog, trial), fit, published)
                if found > best:
                    best, current, changed = found, trial, True
            if log:
                log(f"round {round_}: {constant.key} = {current[constant.key]}  {best}")
        if not changed:
            break
    return current


def neighbours(constant: Constant, value: float) -> Iterator[float]:
    """The values one step of the grid below and above `value`, within the grid's range."""
    for step in (-constant.step, constant.step):
        other = constant.rounded(value + step)
        if constant.low - 1e-12 <= other <= constant.high + 1e-12:
            yield other


def write(found: dict[str, float], path: Path = RUNTIMES_FILE) -> str:
    """runtimes.yaml with vLLM's fitted constants set to `found` (only their `value:` lines change)."""
    text = path.read_text(encoding="utf-8")
    start = text.index(f"  - id: {RUNTIME}\n")
    end = text.find("\n  - id: ", start + 1)
    block = text[start : end if end > 0 else len(text)]
    for key, value in found.items():
        shown = f"{value:g}" if value != int(value) else str(int(value))
        block, count = re.subn(rf"(\n    {key}:\n      value: )[^\n]+", rf"\g<1>{shown}", block)
        if count != 1:
            raise ValueError(f"{path.name}: runtime {RUNTIME} has no single '{key}' constant with a value line")
    return text[:start] + block + (text[end:] if end > 0 else "")


def main(argv: list[str] | None = None) -> int:
    from macros.catalog_loader import load_catalog

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write the values found in {RUNTIMES_FILE.name}")
    parser.add_argument("--quiet", action="store_true", help="print the result only")
    args = parser.parse_args(argv)
    catalog = load_catalog()
    fit = fit_rows()
    log = None if args.quiet else (lambda line: print(line, file=sys.stderr))
    committed = values(catalog)
    found = search(catalog, fit, log)
    for key, value in found.items():
        mark = "" if value == committed[key] else f"  (committed: {committed[key]})"
        print(f"{key}: {value}{mark}")
    print(f"objective: {objective(with_values(catalog, found), fit)}")
    if args.write:
        RUNTIMES_FILE.write_text(write(found), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
