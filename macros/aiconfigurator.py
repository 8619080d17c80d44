"""The engine and NVIDIA's AIConfigurator side by side, on the measured sweep points both predict.

catalog/validation/sweeps/aiconfigurator-h100-sxm.csv holds AIConfigurator's outputs (a source, run
once by the script beside it, its version in the file's first line) for the Llama 3.1 70B FP8 rows
of the measured sweep (vllm-h100-sxm.csv). The engine's figures are computed here, live from the
catalog, as macros/sweeps.py computes them for its error band. On the rows both predict, each
mechanic (time per output token, time to first token) gets, for each predictor, the geometric
mean of predicted / measured (its bias), the geometric mean of max(r, 1/r) (the factor it is
off by, whichever side), the median and the 10th and 90th percentiles of the ratio, the 90th
percentile of the factor, and the share of rows within the sweep's band (TPOT [0.9, 1.5] x,
TTFT [0.8, 2.0] x).

`python -m macros.aiconfigurator` prints the comparison.
"""

from __future__ import annotations

import csv
import json
import math
import re
import statistics
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from macros.fitengine import Catalog
from macros.sweeps import NODES, SWEEPS_DIR, TPOT_BAND, TTFT_BAND, point, rows

AIC_FILE = SWEEPS_DIR / "aiconfigurator-h100-sxm.csv"
SWEEP = "vllm-h100-sxm.csv"  # the measured rows the file predicts
KEYS = ("model", "weights", "input_tokens", "output_tokens", "concurrency", "tensor_parallel")
COLUMNS = (*KEYS, "aic_ttft_ms", "aic_tpot_ms", "aic_backend_version", "refused")
PYPI = "https://pypi.org/project/aiconfigurator/"


class PredictionFileError(ValueError):
    """The predictions file is not what this module reads: the message names the file, line and field."""


@dataclass(frozen=True)
class Prediction:
    """One row of the predictions file: a measured setup and AIConfigurator's figures (or its refusal)."""

    key: tuple[str, ...]
    ttft_ms: float | None
    tpot_ms: float | None
    refused: str
    database: str  # the vLLM release of the tool's kernel measurements


@dataclass(frozen=True)
class Factors:
    """How far one predictor's figures are from measured ones, on the same points."""

    points: int
    geomean_ratio: float  # geometric mean of predicted / measured: above 1, slower than measured
    geomean_factor: float  # geometric mean of max(r, 1/r): the factor it is off by, either way
    median_ratio: float
    p10_ratio: float
    p90_ratio: float
    p90_factor: float
    in_band: float  # share of points with the ratio inside the band


def header(path: Path = AIC_FILE) -> str:
    """The file's first line, without its `#`: the tool, its version, when and how it was run."""
    with path.open(encoding="utf-8") as f:
        first = f.readline()
    if not first.startswith("#"):
        raise PredictionFileError(f"{path.name}: line 1: expected a `#` line naming the tool and its version")
    return first.lstrip("#").strip()


def tool_version(path: Path = AIC_FILE) -> str:
    """The aiconfigurator release the file's first line names ("aiconfigurator 0.12.0, ...")."""
    found = re.search(r"\baiconfigurator (\d+(?:\.\d+)+)", header(path))
    if found:
        return found.group(1)
    raise PredictionFileError(f"{path.name}: line 1: expected `aiconfigurator <version>`")


def _number(text: str, path: Path, line: int, field: str) -> float | None:
    if text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        raise PredictionFileError(f"{path.name}: line {line}: {field}: expected a number of ms, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise PredictionFileError(f"{path.name}: line {line}: {field}: expected a positive time, got {text!r}")
    return value


def predictions(path: Path = AIC_FILE) -> dict[tuple[str, ...], Prediction]:
    """The file's rows by setup (model, weights, lengths, concurrency, TP size), checked."""
    header(path)
    with path.open(encoding="utf-8", newline="") as f:
        f.readline()
        reader = csv.DictReader(f)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise PredictionFileError(f"{path.name}: line 2: missing columns {', '.join(missing)}")
        out: dict[tuple[str, ...], Prediction] = {}
        for line, row in enumerate(reader, start=3):
            key = tuple(row[k] or "" for k in KEYS)
            if key in out:
                raise PredictionFileError(f"{path.name}: line {line}: the setup {key} appears twice")
            ttft = _number(row["aic_ttft_ms"] or "", path, line, "aic_ttft_ms")
            tpot = _number(row["aic_tpot_ms"] or "", path, line, "aic_tpot_ms")
            refused = (row["refused"] or "").strip()
            if (ttft is None or tpot is None) != bool(refused):
                raise PredictionFileError(
                    f"{path.name}: line {line}: expected both aic_ttft_ms and aic_tpot_ms, or neither and a `refused` reason"
                )
            out[key] = Prediction(key, ttft, tpot, refused, (row["aic_backend_version"] or "").strip())
    return out


def database_version(path: Path = AIC_FILE) -> str:
    """The vLLM release of the kernel measurements AIConfigurator's figures come from (one for the file)."""
    versions = {p.database for p in predictions(path).values() if p.database}
    if len(versions) != 1:
        raise PredictionFileError(f"{path.name}: aic_backend_version: expected one version, got {sorted(versions)}")
    return versions.pop()


def factors(ratios: list[float], band: tuple[float, float]) -> Factors:
    """The spread of predicted / measured ratios (at least one, each positive) against `band`."""
    if not ratios or any(not math.isfinite(r) or r <= 0 for r in ratios):
        raise ValueError(f"expected positive predicted / measured ratios, got {ratios!r}")
    ordered = sorted(ratios)
    off = sorted(max(r, 1 / r) for r in ratios)

    def rank(values: list[float], q: float) -> float:  # nearest rank, as macros/sweeps.py
        return values[min(len(values) - 1, max(0, math.ceil(q * len(values)) - 1))]

    return Factors(
        points=len(ratios),
        geomean_ratio=math.exp(statistics.fmean(math.log(r) for r in ratios)),
        geomean_factor=math.exp(statistics.fmean(math.log(r) for r in off)),
        median_ratio=statistics.median(ordered),
        p10_ratio=rank(ordered, 0.1),
        p90_ratio=rank(ordered, 0.9),
        p90_factor=rank(off, 0.9),
        in_band=sum(band[0] <= r <= band[1] for r in ratios) / len(ratios),
    )


@dataclass(frozen=True)
class Row:
    """One measured point with both predictors' ratios (None where that one gave no figure)."""

    key: tuple[str, ...]
    measured_tpot_ms: float
    measured_ttft_ms: float
    engine_tpot: float | None
    engine_ttft: float | None
    aic_tpot: float | None
    aic_ttft: float | None
    aic_refused: str
    engine_refused: str | None
    part: str  # the sweep's split (macros.sweeps.part): "fit" rows were used to fit the engine's constants


def compare_rows(catalog: Catalog, path: Path = AIC_FILE) -> list[Row]:
    """Every measured row the predictions file names, with the engine's and AIConfigurator's ratios."""
    predicted = predictions(path)
    node = catalog.node(NODES[SWEEP])
    measured = {tuple(r[k] for k in KEYS): r for r in rows(path.parent / SWEEP)}
    out = []
    for key, aic in predicted.items():
        row = measured.get(key)
        if row is None:
            raise PredictionFileError(f"{path.name}: the setup {key} is not a row of {SWEEP}")
        engine = point(catalog, SWEEP, node, row)
        tpot, ttft = float(row["tpot_ms"]), float(row["ttft_ms"])
        out.append(
            Row(
                key=key,
                measured_tpot_ms=tpot,
                measured_ttft_ms=ttft,
                engine_tpot=engine.tpot_ratio,
                engine_ttft=engine.ttft_ratio,
                aic_tpot=aic.tpot_ms / tpot if aic.tpot_ms else None,
                aic_ttft=aic.ttft_ms / ttft if aic.ttft_ms else None,
                aic_refused=aic.refused,
                engine_refused=engine.refused,
                part=engine.part,
            )
        )
    return out


def comparison(catalog: Catalog, path: Path = AIC_FILE, which: str = "all") -> dict[str, Any]:
    """Both predictors' factors, per mechanic, on the rows both predict, of one part of the sweep
    ('all', or 'judge': the rows the engine's constants were not fitted on); who is closer on each
    row; and the engine's ratios on the rows AIConfigurator refuses."""
    if which not in ("all", "judge", "fit"):
        raise ValueError(f"which: expected 'all', 'judge' or 'fit', got {which!r}")
    compared = [r for r in compare_rows(catalog, path) if which == "all" or r.part == which]
    both = [
        r
        for r in compared
        if None not in (r.engine_tpot, r.engine_ttft, r.aic_tpot, r.aic_ttft)  # both gave both figures
    ]
    if not both:
        raise PredictionFileError(f"{path.name}: no row that both the engine and AIConfigurator predict")

    def closer(mine: float, theirs: float) -> bool:
        return abs(math.log(mine)) < abs(math.log(theirs))

    def in_both(tpot: float, ttft: float) -> bool:
        return TPOT_BAND[0] <= tpot <= TPOT_BAND[1] and TTFT_BAND[0] <= ttft <= TTFT_BAND[1]

    out: dict[str, Any] = {
        "part": which,
        "tool": header(path),
        "version": tool_version(path),
        "rows": len(compared),
        "points": len(both),
        "database": database_version(path),
        "aic_refused_points": sum(bool(r.aic_refused) for r in compared),
        "aic_refused": [list(r.key) for r in compared if r.aic_refused],
        "engine_refused": [list(r.key) for r in compared if r.engine_refused],
        "bands": {"tpot": list(TPOT_BAND), "ttft": list(TTFT_BAND)},
    }
    for mechanic, band in (("tpot", TPOT_BAND), ("ttft", TTFT_BAND)):
        engine = [getattr(r, f"engine_{mechanic}") for r in both]
        aic = [getattr(r, f"aic_{mechanic}") for r in both]
        out[mechanic] = {
            "engine": asdict(factors(engine, band)),
            "aiconfigurator": asdict(factors(aic, band)),
            "engine_closer": sum(closer(m, t) for m, t in zip(engine, aic, strict=True)),
            "aiconfigurator_closer": sum(closer(t, m) for m, t in zip(engine, aic, strict=True)),
        }
        for who, ratios in (("engine", engine), ("aiconfigurator", aic)):
            users = [int(r.key[4]) for r in both]  # KEYS: the row's concurrency
            out[mechanic][f"{who}_users_below_band"] = _span(
                [u for u, x in zip(users, ratios, strict=True) if x < band[0]]
            )
            out[mechanic][f"{who}_users_above_band"] = _span(
                [u for u, x in zip(users, ratios, strict=True) if x > band[1]]
            )
    out["in_both_bands"] = {
        "engine": sum(in_both(r.engine_tpot or 0, r.engine_ttft or 0) for r in both) / len(both),
        "aiconfigurator": sum(in_both(r.aic_tpot or 0, r.aic_ttft or 0) for r in both) / len(both),
    }
    only_engine = [r for r in compared if r.aic_refused and r.engine_tpot and r.engine_ttft]
    out["engine_where_aiconfigurator_refuses"] = {
        "points": len(only_engine),
        "tpot": _span([r.engine_tpot or 0 for r in only_engine]),
        "ttft": _span([r.engine_ttft or 0 for r in only_engine]),
    }
    return out


def _span(values: list[float] | list[int]) -> list[float]:
    """[lowest, highest], or [] for no values."""
    return [min(values), max(values)] if values else []


def main(argv: list[str] | None = None) -> int:
    from macros.catalog_loader import load_catalog

    del argv
    try:
        data = comparison(load_catalog())
    except (OSError, PredictionFileError) as e:
        sys.stderr.write(f"{e}\n")
        return 2
    sys.stdout.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
