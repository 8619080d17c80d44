"""The engine beside NVIDIA's AIConfigurator (macros/aiconfigurator.py): the committed file of the
tool's outputs (catalog/validation/sweeps/aiconfigurator-h100-sxm.csv) read and checked, the
factors computed right on a hand-made example, and the methodology page showing what the module
computes, with a reading that stays true to it."""

from __future__ import annotations

import math
import re
import shutil
from html import unescape

import pytest

from macros.aiconfigurator import (
    AIC_FILE,
    KEYS,
    PYPI,
    SWEEP,
    PredictionFileError,
    compare_rows,
    comparison,
    database_version,
    factors,
    header,
    predictions,
    tool_version,
)
from macros.i18n import LABELS
from macros.render.locale_format import Formatter
from macros.sweeps import SWEEPS_DIR, TPOT_BAND, TTFT_BAND, rows

from .conftest import ROOT
from .test_site import LOCALES, page_file

LLAMA = "meta-llama/Llama-3.1-70B"
DOCS = {"fr": ROOT / "docs" / "fr" / "methodologie.md", "en": ROOT / "docs" / "en" / "methodology.md"}


@pytest.fixture(scope="module")
def data(catalog):
    return comparison(catalog)


# --- the factors, on a hand-made example ------------------------------------------------------


def test_factors_of_a_hand_made_example():
    """Ratios 2, 0.5 and 1: unbiased on average (geometric mean 1) but off by 2^(2/3) = 1.587,
    median 1, nearest-rank 10th and 90th percentiles 0.5 and 2, one of three inside [0.9, 1.5]."""
    f = factors([2.0, 0.5, 1.0], (0.9, 1.5))
    assert f.points == 3
    assert f.geomean_ratio == pytest.approx(1.0)
    assert f.geomean_factor == pytest.approx(2 ** (2 / 3))
    assert f.median_ratio == 1.0
    assert (f.p10_ratio, f.p90_ratio, f.p90_factor) == (0.5, 2.0, 2.0)
    assert f.in_band == pytest.approx(1 / 3)


def test_factors_of_a_predictor_always_slow_by_the_same_factor():
    f = factors([1.25] * 10, TPOT_BAND)
    assert f.geomean_ratio == pytest.approx(1.25) and f.geomean_factor == pytest.approx(1.25)
    assert f.in_band == 1.0
    assert factors([0.5] * 4, TTFT_BAND).in_band == 0.0  # twice too fast: outside [0.8, 2]


@pytest.mark.parametrize("bad", [[], [1.0, 0.0], [1.0, -2.0], [math.nan]])
def test_factors_refuse_what_is_not_a_ratio(bad):
    with pytest.raises(ValueError, match="positive predicted / measured ratios"):
        factors(bad, TPOT_BAND)


# --- the committed file -----------------------------------------------------------------------


def test_the_file_names_the_tool_its_version_and_says_it_holds_its_outputs():
    line = header()
    assert "AIConfigurator" in line and "outputs" in line and "not the engine's" in line
    assert re.fullmatch(r"0\.12\.\d+", tool_version())  # the release the issue compares with
    assert re.search(r"run \d{4}-\d{2}-\d{2}", line)
    assert PYPI == "https://pypi.org/project/aiconfigurator/"
    readme = (SWEEPS_DIR / "README.md").read_text(encoding="utf-8")
    assert AIC_FILE.name in readme and "aiconfigurator cli estimate" in readme and tool_version() in readme


def test_every_llama_fp8_row_of_the_sweep_is_predicted_or_refused_with_the_tools_reason():
    predicted = predictions()
    llama = [tuple(r[k] for k in KEYS) for r in rows(SWEEPS_DIR / SWEEP) if r["model"] == LLAMA]
    assert sorted(predicted) == sorted(llama)
    refused = [p for p in predicted.values() if p.refused]
    assert refused and all("OOM" in p.refused for p in refused)
    assert all(p.ttft_ms and p.tpot_ms for p in predicted.values() if not p.refused)
    assert database_version() == "0.24.0"  # the vLLM release of the tool's H100 SXM kernel data


def _bad_copy(tmp_path, edit):
    """A copy of the file and of the sweep it predicts, with one edit to the file's text."""
    shutil.copy(SWEEPS_DIR / SWEEP, tmp_path / SWEEP)
    path = tmp_path / AIC_FILE.name
    path.write_text(edit(AIC_FILE.read_text(encoding="utf-8")), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda s: s.split("\n", 1)[1], "line 1: expected a `#` line"),
        (lambda s: s.replace(",207.984,", ",fast,", 1), "line 3: aic_ttft_ms: expected a number of ms, got 'fast'"),
        (lambda s: s.replace(",12.436,", ",-1,", 1), "line 3: aic_tpot_ms: expected a positive time"),
        (lambda s: s.replace(",12.436,", ",,", 1), "line 3: expected both aic_ttft_ms and aic_tpot_ms"),
        (lambda s: s.replace(",aic_tpot_ms,", ",tpot,", 1), "line 2: missing columns aic_tpot_ms"),
        (lambda s: s + s.splitlines()[2] + "\n", "appears twice"),
        (lambda s: s.replace("fp8,1024,1024,16,4,", "fp8,1024,1024,16,3,", 1), f"is not a row of {SWEEP}"),
    ],
)
def test_a_damaged_file_is_refused_naming_the_file_the_line_and_the_field(tmp_path, catalog, edit, message):
    path = _bad_copy(tmp_path, edit)
    with pytest.raises(PredictionFileError) as caught:
        comparison(catalog, path)
    assert AIC_FILE.name in str(caught.value) and message in str(caught.value)


# --- the comparison ---------------------------------------------------------------------------


def test_the_comparison_is_made_on_the_points_both_predict(catalog, data):
    compared = compare_rows(catalog)
    both = [r for r in compared if None not in (r.engine_tpot, r.engine_ttft, r.aic_tpot, r.aic_ttft)]
    assert data["points"] == len(both) == data["tpot"]["engine"]["points"] == data["ttft"]["aiconfigurator"]["points"]
    assert data["rows"] == len(compared) == data["points"] + data["aic_refused_points"] + len(data["engine_refused"])
    # The figures are the measured ones divided: AIConfigurator's from the file, the engine's live.
    measured = {tuple(r[k] for k in KEYS): r for r in rows(SWEEPS_DIR / SWEEP)}
    for r in both:
        assert r.aic_tpot == pytest.approx(predictions()[r.key].tpot_ms / float(measured[r.key]["tpot_ms"]))
    expected = math.exp(sum(math.log(r.aic_ttft) for r in both) / len(both))
    assert data["ttft"]["aiconfigurator"]["geomean_ratio"] == pytest.approx(expected)


def test_the_judged_part_is_a_subset_the_engine_was_not_fitted_on(catalog, data):
    judged = comparison(catalog, which="judge")
    compared = compare_rows(catalog)
    assert {r.part for r in compared} == {"fit", "judge"}
    both = [r for r in compared if None not in (r.engine_tpot, r.engine_ttft, r.aic_tpot, r.aic_ttft)]
    assert 0 < judged["points"] == sum(r.part == "judge" for r in both) < data["points"]
    with pytest.raises(ValueError, match="which"):
        comparison(catalog, which="some")


def test_what_the_page_says_of_the_comparison_holds(catalog, data):
    """The methodology page's reading: AIConfigurator is closer on decode (lower factor, closer on
    most points, on the fast side), the engine always on the slow side; on the first token both are
    off by about as much, the engine always slower than measured, AIConfigurator below its band only
    at heavier loads than those where it is above it; the points it refuses are at TP 2."""
    tpot, ttft = data["tpot"], data["ttft"]
    assert tpot["aiconfigurator"]["geomean_factor"] < tpot["engine"]["geomean_factor"]
    assert tpot["aiconfigurator_closer"] > data["points"] / 2
    assert tpot["aiconfigurator"]["geomean_ratio"] < 1
    both = [r for r in compare_rows(catalog) if r.aic_tpot is not None and r.engine_tpot is not None]
    assert min(r.engine_tpot for r in both) > 1 and min(r.engine_ttft for r in both) > 1
    assert abs(math.log(ttft["engine"]["geomean_factor"] / ttft["aiconfigurator"]["geomean_factor"])) < 0.1
    below, above = ttft["aiconfigurator_users_below_band"], ttft["aiconfigurator_users_above_band"]
    assert below and above and below[0] > above[1]
    assert all(key[5] == "2" for key in data["aic_refused"])


# --- the page ---------------------------------------------------------------------------------


def _table(html: str, first_header: str) -> list[list[str]]:
    start = html.index(f"<th>{first_header}</th>")
    table = html[start : html.index("</table>", start)]
    return [
        [unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)
        if "<td>" in row
    ]


@pytest.mark.parametrize("locale", LOCALES)
def test_the_page_shows_the_figures_the_module_computes(site, catalog, data, locale):
    t, fmt = LABELS[locale], Formatter(locale)
    html = page_file(site, locale, "methodology").read_text("utf-8")
    assert f'href="{PYPI}"' in html
    assert f"<th>{t['aic_tool'].format(version=data['version'])}</th>" in html
    table = {row[0]: row[1:] for row in _table(html, t["aic_figure"])}
    for mechanic, band in (("tpot", TPOT_BAND), ("ttft", TTFT_BAND)):
        low, high = fmt.brief(band[0]), fmt.brief(band[1])
        for who, column in (("engine", 0), ("aiconfigurator", 1)):
            f = data[mechanic][who]
            assert table[t[f"aic_{mechanic}_off_by"]][column] == fmt.number(f["geomean_factor"], 2)
            assert table[t[f"aic_{mechanic}_median"]][column].startswith(fmt.number(f["median_ratio"], 2) + " (")
            assert fmt.number(f["p90_ratio"], 2) in table[t[f"aic_{mechanic}_median"]][column]
            assert table[t[f"aic_{mechanic}_in_band"].format(low=low, high=high)][column] == fmt.percent(f["in_band"])
            assert table[t[f"aic_{mechanic}_closer"]][column] == fmt.number(data[mechanic][f"{who}_closer"])
    assert table[t["aic_both"]] == [fmt.percent(data["in_both_bands"][w]) for w in ("engine", "aiconfigurator")]
    # The reading under the table quotes the same figures (and the judged part's).
    text = unescape(re.sub(r"<[^>]+>", "", html.split(f"<th>{t['aic_figure']}</th>")[1]))
    for figure in (data["tpot"]["aiconfigurator"]["geomean_factor"], data["ttft"]["engine"]["geomean_factor"]):
        assert fmt.number(figure, 2) in text
    judged = comparison(catalog, which="judge")
    assert fmt.number(judged["ttft"]["aiconfigurator"]["geomean_factor"], 2) in text


@pytest.mark.parametrize("locale", LOCALES)
def test_no_figure_of_the_comparison_is_typed_in_the_pages_source(data, locale):
    """The section's figures come from macros (invariant 1): none of them is in the Markdown."""
    source = DOCS[locale].read_text(encoding="utf-8")
    heading = "## À côté d’AIConfigurator" if locale == "fr" else "## Beside NVIDIA's AIConfigurator"
    section = source.split(heading)[1].split("\n## ")[0]
    prose = re.sub(r"\{\{.*?\}\}", "", section, flags=re.S)
    assert "aiconfigurator_table()" in section
    fmt = Formatter(locale)
    for mechanic in ("tpot", "ttft"):
        for who in ("engine", "aiconfigurator"):
            assert fmt.number(data[mechanic][who]["geomean_factor"], 2) not in prose
    assert data["version"] not in prose and str(data["points"]) not in prose
