"""The engine's answers kept in a build process (macros/build/engine_cache.py): shared by the locales and
reused by a rebuild while the catalog is unchanged; an edited catalog recomputes every figure."""

from __future__ import annotations

import json
import random
import re
import shutil
from html import unescape
from types import SimpleNamespace

import pytest

from macros.build import engine_cache
from macros.catalog_loader import CATALOG_DIR, read_catalog
from macros.fitengine import fit_node, workload
from macros.guides import GuideMacros
from macros.i18n import LABELS

from .site_build import build_site
from .test_guides import _breakeven_rows, _guide, _number

NODE = "4x-h100-sxm"  # in the NVLink guide's break-even table
PRICE_ID = "cloudflare-llama-3.3-70b-fp8"


@pytest.fixture()
def engine_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every call that reaches the engine through the cache, by name."""
    calls: list[str] = []
    evaluate, raw_answer = engine_cache.engine_evaluate, engine_cache.engine_raw_answer

    def counted_evaluate(catalog, request, *options):
        calls.append("evaluate")
        return evaluate(catalog, request, *options)

    def counted_raw_answer(catalog, request, **options):
        calls.append("raw_answer")
        return raw_answer(catalog, request, **options)

    monkeypatch.setattr(engine_cache, "engine_evaluate", counted_evaluate)
    monkeypatch.setattr(engine_cache, "engine_raw_answer", counted_raw_answer)
    return calls


def _edit_price(folder, node_id: str, factor: int) -> float:
    """Multiply a node's monthly price in nodes.yaml (a one-line edit); returns the new price."""
    path = folder / "nodes.yaml"
    lines = path.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.strip() == f"- id: {node_id}")
    offset = next(i for i, line in enumerate(lines[at:]) if "price_month: {value: " in line)
    line = lines[at + offset]
    old = line.split("{value: ")[1].split(",")[0]
    new = float(old) * factor
    lines[at + offset] = line.replace(f"{{value: {old},", f"{{value: {new:g},", 1)
    path.write_text("".join(lines))
    return new


def test_the_locales_share_one_catalog_and_ask_the_engine_once(catalog_data, engine_calls):
    catalog = engine_cache.catalog_for(catalog_data)
    assert engine_cache.catalog_for(catalog_data) is catalog
    french = GuideMacros(catalog, catalog_data, "fr").fit_table("llama-3.3-70b", "bf16", 8192, 4)
    asked = len(engine_calls)
    english = GuideMacros(catalog, catalog_data, "en").fit_table("llama-3.3-70b", "bf16", 8192, 4)
    assert asked >= 1 and len(engine_calls) == asked  # the English table reused the French one's answer
    assert french != english  # the same figures, written each locale's way


def test_an_edited_catalog_is_asked_afresh(tmp_path, engine_calls):
    shutil.copytree(CATALOG_DIR, tmp_path / "catalog")
    folder = tmp_path / "catalog"
    data, problems = read_catalog(folder)
    assert not problems
    request = {"model": "llama-3.3-70b", "format": "bf16", "node": NODE}
    before = engine_cache.evaluate(engine_cache.catalog_for(data), request).fits[0]
    price = _edit_price(folder, NODE, 3)
    edited, problems = read_catalog(folder)
    assert not problems and edited is not data
    catalog = engine_cache.catalog_for(edited)
    after = engine_cache.evaluate(catalog, request).fits[0]
    assert engine_calls.count("evaluate") == 2
    assert after.price_month_usd == price == 3 * before.price_month_usd
    assert after.usd_per_million_output_tokens == pytest.approx(3 * before.usd_per_million_output_tokens)


def test_a_catalog_read_again_with_the_same_values_keeps_the_answers(tmp_path, engine_calls):
    """An edit of a comment (what the bench's preview does) is new data with the same values."""
    shutil.copytree(CATALOG_DIR, tmp_path / "catalog")
    folder = tmp_path / "catalog"
    data, _ = read_catalog(folder)
    catalog = engine_cache.catalog_for(data)
    request = {"model": "llama-3.3-70b", "format": "bf16"}
    answer = engine_cache.raw_answer(catalog, request)
    nodes = folder / "nodes.yaml"
    nodes.write_text(nodes.read_text() + "# a comment\n")
    again, problems = read_catalog(folder)
    assert not problems and again is not data and again == data
    assert engine_cache.catalog_for(again) is catalog
    assert engine_cache.raw_answer(catalog, request) is answer
    assert engine_calls.count("raw_answer") == 1
    # 1 and 1.0 are equal in Python, not in the answers' JSON: a value's type is part of the data.
    changed = json.loads(json.dumps(again))
    changed["nodes"][0]["count"] = float(changed["nodes"][0]["count"])
    assert changed == again and engine_cache.catalog_for(changed) is not catalog


def _edit_gpu(folder, gpu_id: str, field: str, factor: float) -> None:
    """Multiply one figure of a card in gpus.yaml (`field: {value: ...`)."""
    path = folder / "gpus.yaml"
    lines = path.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.strip() == f"- id: {gpu_id}")
    offset = next(i for i, line in enumerate(lines[at:]) if line.strip().startswith(f"{field}: {{value: "))
    line = lines[at + offset]
    old = line.split("{value: ")[1].split(",")[0]
    lines[at + offset] = line.replace(f"{{value: {old},", f"{{value: {float(old) * factor:g},", 1)
    path.write_text("".join(lines))


REQUESTS = (
    {"model": "llama-3.3-70b", "format": "bf16"},
    {"model": "llama-3.3-70b", "format": "fp8", "context": 8192, "concurrency": 20},
    {"model": "deepseek-v3", "format": "bf16"},  # nothing fits: its suggestions are evaluations too
    {"model": "mixtral-8x7b", "format": "bf16", "node": NODE},
    {"model": "llama-3.1-8b", "format": "bf16", "concurrency": 64},
)


def _fresh(data, request):
    """The engine's answer on this data, with nothing kept."""
    from macros.fitengine import Catalog
    from macros.fitengine.api import evaluate, raw_answer

    catalog = Catalog.from_dict(data)
    return evaluate(catalog, request).fits, raw_answer(catalog, request)


def _kept(catalog, request):
    return engine_cache.evaluate(catalog, request).fits, engine_cache.raw_answer(catalog, request)


def test_an_edit_of_prices_alone_reprices_the_kept_answers_and_another_edit_drops_them(tmp_path, monkeypatch):
    """After an edit of nodes' prices the engine is asked again, prices every node afresh, and
    is spared only what it works out before the price; each answer then equals a fresh engine's
    on the edited catalog (recommendation, suggestions and prices per token included), and
    differs from the one before the edit. An edit of anything else works everything out again."""
    from macros.fitengine import fit

    worked: list[str] = []
    unpriced_fit = fit.unpriced_fit

    def counted(catalog, work, node, sizing=None):
        worked.append(node.id)
        return unpriced_fit(catalog, work, node, sizing)

    monkeypatch.setattr(fit, "unpriced_fit", counted)  # every node, listed or named alone, comes through fit_nodes
    shutil.copytree(CATALOG_DIR, tmp_path / "catalog")
    folder = tmp_path / "catalog"
    data, problems = read_catalog(folder)
    assert not problems
    catalog = engine_cache.catalog_for(data)
    first = [_kept(catalog, request) for request in REQUESTS]
    recommended = first[0][1]["summary"]["recommended"]
    assert worked and recommended is not None and recommended != NODE

    # The recommended node made far dearer, another node dearer, and one price's source
    # reworded: the recommendation and the prices per token must follow.
    _edit_price(folder, recommended, 5)
    _edit_price(folder, NODE, 2)
    nodes = folder / "nodes.yaml"
    nodes.write_text(nodes.read_text().replace("x 730 h;", "x 730 hours;", 1))
    edited, problems = read_catalog(folder)
    assert not problems
    worked.clear()
    catalog = engine_cache.catalog_for(edited)
    again = [_kept(catalog, request) for request in REQUESTS]
    assert worked == []  # every node's answer before its price was kept
    for request, before, now in zip(REQUESTS, first, again, strict=True):
        assert now == _fresh(edited, request), request
        assert now[0] != before[0], request
    assert again[0][1]["summary"]["recommended"] != recommended

    # A card's memory bandwidth is no price: its nodes' speeds, and every answer, are worked out again.
    _edit_gpu(folder, "h100-sxm", "memory_bandwidth", 0.5)
    slower, problems = read_catalog(folder)
    assert not problems
    catalog = engine_cache.catalog_for(slower)
    worked.clear()
    again = [_kept(catalog, request) for request in REQUESTS]
    assert NODE in worked
    for request, now in zip(REQUESTS, again, strict=True):
        assert now == _fresh(slower, request), request
    assert _kept(catalog, REQUESTS[3])[0][0].decode_tok_s_per_user < first[3][0][0].decode_tok_s_per_user


def _users_needed(catalog, model: str, fmt: str, node_id: str, rate: float) -> int | None:
    """The fewest users whose node total reaches `rate`, asking the engine each count in turn."""
    node = catalog.node(node_id)
    for users in range(1, 1000):
        r = fit_node(catalog, workload(catalog, model, fmt, None, users), node)
        if r.verdict == "none":
            return None
        if r.decode_tok_s_total >= rate:
            return users
    return None


def test_a_rebuild_reuses_the_answers_and_a_catalog_edit_changes_the_published_figures(tmp_path, engine_calls):
    """What `mkdocs serve` does: build, build again after a guide edit, then after a catalog edit."""
    shutil.copytree(CATALOG_DIR, tmp_path / "catalog")
    folder, site = tmp_path / "catalog", tmp_path / "site"
    build_site(site, ("fr",), catalog=folder)
    answers = site / "engine" / "answers" / "fr" / "bf16.json"
    first = json.loads(answers.read_text())
    page = _guide(site, "fr", "nvlink")
    assert engine_calls

    engine_calls.clear()
    build_site(site, ("fr",), catalog=folder)  # nothing of the catalog changed: no engine call
    assert engine_calls == []
    assert json.loads(answers.read_text()) == first and _guide(site, "fr", "nvlink") == page

    price = _edit_price(folder, NODE, 3)
    build_site(site, ("fr",), catalog=folder)
    assert "evaluate" in engine_calls and "raw_answer" in engine_calls
    row = next(r for r in json.loads(answers.read_text())["answers"]["llama-3.3-70b"]["rows"] if r["node"] == NODE)
    was = next(r for r in first["answers"]["llama-3.3-70b"]["rows"] if r["node"] == NODE)
    assert row["price_month_usd"] == price and was["price_month_usd"] == price / 3
    assert row["usd_per_million_output_tokens"] == pytest.approx(3 * was["usd_per_million_output_tokens"])
    # The guide's break-even: the users it takes at the new price, counted one by one here.
    data, problems = read_catalog(folder)
    assert not problems
    catalog = engine_cache.catalog_for(data)
    api = next(p for p in data["api_prices"] if p["id"] == PRICE_ID)
    a = catalog.assumptions
    per_output = api["output"]["value"] + api["input"]["value"] * a.default_input_tokens / a.default_output_tokens
    rate = price / per_output * 1e6 / (a.hours_per_month * 3600)
    row_html = _breakeven_rows(_guide(site, "fr", "nvlink"), "fr")[NODE]
    assert row_html != _breakeven_rows(page, "fr")[NODE]
    users = [unescape(c) for c in re.findall(r"<td>(.*?)</td>", row_html)][4]
    needed = _users_needed(catalog, api["model"], "bf16", NODE, rate)
    if needed is None:
        assert LABELS["fr"]["be_never"].split("{")[0] in users
    else:
        assert _number(users, "fr") == needed


# --- the break-even's search over users ------------------------------------------------------


def _macros_with(totals: list[float], layouts: list[int]) -> tuple[GuideMacros, list[int]]:
    """A GuideMacros whose engine answers `totals[u - 1]` on layout `layouts[u - 1]` for u users."""
    macros = GuideMacros.__new__(GuideMacros)
    asked: list[int] = []

    def one(model_id, fmt_id, node_id, users, layout=None):
        asked.append(users)
        return SimpleNamespace(
            decode_tok_s_total=totals[users - 1],
            verdict="split",
            tensor_parallel=layouts[users - 1],
            pipeline_parallel=1,
            expert_parallel=1,
            replicas=8 // layouts[users - 1],
        )

    macros._one = one
    return macros, asked


def _linear(totals: list[float], rate: float) -> tuple[int, float]:
    found = next((u for u, t in enumerate(totals, 1) if t >= rate), 0)
    return (found, totals[found - 1]) if found else (0, max(totals))


def test_the_search_finds_what_asking_every_count_finds_and_asks_fewer():
    """Totals that grow on each layout, layouts that only move on as users grow (the engine's
    two properties): the search gives the same users as asking each count, and asks far fewer."""
    rng = random.Random(13)
    for _ in range(300):
        most = rng.randint(1, 300)
        cuts = sorted(rng.sample(range(2, most + 1), min(rng.randint(0, 3), most - 1)))
        layouts, totals, layout, level = [], [], 1, rng.uniform(1, 50)
        for users in range(1, most + 1):
            if users in cuts:
                layout *= 2
                level = rng.uniform(1, 50)  # a wider layout can start lower
            level += rng.choice([0, rng.uniform(0, 5)])
            layouts.append(layout)
            totals.append(level)
        rate = rng.uniform(0, max(totals) * 1.2)
        macros, asked = _macros_with(totals, layouts)
        assert macros._fewest_users("m", "f", "n", most, rate) == _linear(totals, rate)
        if most >= 200 and not cuts:
            assert len(set(asked)) <= 12


def test_the_search_asks_every_count_when_a_total_falls_on_one_layout():
    """Halving alone would answer 8 here (it never reads 3 users); the fall from 9 to 8 it
    reads sends it through every count, which finds 3."""
    totals = [1, 1, 6, 1, 1, 1, 1, 9, 3, 8]
    macros, asked = _macros_with(totals, [1] * 10)
    assert macros._fewest_users("m", "f", "n", 10, 5) == (3, 6)
    assert {1, 2, 3} <= set(asked)
