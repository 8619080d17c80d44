"""The search that sets vLLM's serving constants (macros/fitting.py): it reads the sweep's fit part
and the published records only, and the committed constants are what it keeps."""

import csv
import shutil

import pytest

from macros.fitting import (
    CONSTANTS,
    RUNTIMES_FILE,
    fit_rows,
    neighbours,
    objective,
    records_kept,
    values,
    with_values,
    write,
)
from macros.sweeps import SWEEPS_DIR, part, rows
from macros.validation import records


@pytest.fixture(scope="module")
def fit():
    return fit_rows()


@pytest.fixture(scope="module")
def published():
    return records()


def test_the_search_reads_the_fit_part_alone(fit):
    assert fit and all(part(row) == "fit" for _, row in fit)
    every = rows(SWEEPS_DIR / "vllm-h100-sxm.csv")
    assert len(fit) == sum(part(r) == "fit" for r in every) < len(every)


def test_the_objective_does_not_move_when_the_judge_part_does(catalog, fit, published, tmp_path):
    """Judge rows made absurd (ten times the measured times) leave the objective as it was."""
    name = "vllm-h100-sxm.csv"
    shutil.copy(SWEEPS_DIR / "README.md", tmp_path / "README.md")
    data = rows(SWEEPS_DIR / name)
    for row in data:
        if part(row) == "judge":
            row["tpot_ms"] = str(10 * float(row["tpot_ms"]))
            row["ttft_ms"] = str(10 * float(row["ttft_ms"]))
    with (tmp_path / name).open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(data[0]))
        writer.writeheader()
        writer.writerows(data)
    assert objective(catalog, fit_rows(tmp_path), published) == objective(catalog, fit, published)


def test_the_committed_constants_keep_every_record_as_the_file_states_it(catalog, published):
    mapped = [r for r in published if "measure" in r]
    assert records_kept(catalog, published)[0] == len(mapped)


def test_the_committed_constants_are_a_local_optimum_of_the_objective(catalog, fit, published):
    """Each fitted constant one step of its grid up or down does no better on the fit part and
    the records: what a rerun of `python -m macros.fitting` from them keeps."""
    committed = values(catalog)
    best = objective(catalog, fit, published)
    for constant in CONSTANTS:
        value = committed[constant.key]
        assert constant.low <= value <= constant.high, constant.key
        assert value in constant.grid(), (constant.key, value)
        for other in neighbours(constant, value):
            trial = objective(with_values(catalog, {**committed, constant.key: other}), fit, published)
            assert trial <= best, (constant.key, value, other, trial, best)


def test_writing_the_committed_values_gives_the_file_back_and_a_change_moves_one_line(catalog):
    text = RUNTIMES_FILE.read_text(encoding="utf-8")
    committed = values(catalog)
    assert write(committed) == text
    changed = write({**committed, "layer_overhead": committed["layer_overhead"] + 2})
    diff = [(a, b) for a, b in zip(text.splitlines(), changed.splitlines(), strict=True) if a != b]
    assert len(diff) == 1 and diff[0][0].strip().startswith("value:")


def test_a_constant_the_file_lacks_is_named(catalog, tmp_path):
    broken = tmp_path / "runtimes.yaml"
    broken.write_text(RUNTIMES_FILE.read_text(encoding="utf-8").replace("    arrival_burst:\n", "    burst:\n", 1))
    with pytest.raises(ValueError, match="arrival_burst"):
        write(values(catalog), broken)


def test_today_s_vllm_reaches_a_larger_share_than_its_earlier_releases(catalog):
    """vLLM 0.11 made full CUDA graphs the default (vllm-project/vllm pull 25444: 1.47 x the
    requests per second on one H100): the share fitted for it is above the earlier releases'."""
    vllm = catalog.runtimes["vllm"]
    assert vllm.current_from == (0, 11)
    assert vllm.earlier_bandwidth_efficiency < vllm.bandwidth_efficiency
