"""The claims of issue 30, each read on the built page and held against the engine or the catalog:
Wan 2.1's memory against public runs and out-of-memory reports, NVFP4, NF4's kernels, the image
widget's labels, the FLUX timings' arithmetic, the MoE guide's GGUF row and the methodology."""

from __future__ import annotations

import re
from html import unescape

import pytest

from macros.fitengine import evaluate, fit_node, workload
from macros.fitengine.diffusion import fit_diffusion, report_check
from macros.fitengine.memory import weight_bytes
from macros.fitengine.units import GB, GIB
from macros.i18n import LABELS, WIDGET
from macros.validation import check_all

from .test_guides import _guide, _number, _rows
from .test_site import LOCALES, page_file


def _table_after(html: str, marker: str) -> str:
    start = html.index(marker)
    return html[start : html.index("</table>", start)]


# --- Wan 2.1 against public reports ----------------------------------------------------------


def _reports(catalog_data, model_id):
    return next(m for m in catalog_data["diffusion"] if m["id"] == model_id).get("memory_reports", [])


def test_wan_reports_are_held_by_the_engine(catalog, catalog_data):
    """Where a public run ran out of memory the engine says the run does not fit, and where it
    ran the engine fits it; the out-of-memory runs of the 14B are explained by its FP32 weights
    alone (params x 4 bytes, from the catalog), more than the card's total the report prints."""
    for model_id in ("wan-2.1-t2v-14b", "wan-2.1-t2v-1.3b"):
        model = catalog.diffusion[model_id]
        raw = _reports(catalog_data, model_id)
        assert len(model.reports) == len(raw) >= 1
        for report, entry in zip(model.reports, raw, strict=True):
            check = report_check(catalog, model, report)
            assert check.engine_fits == (entry["outcome"] == "ran"), (model_id, entry["card"], check)
            assert entry["quote"] and entry["url"].startswith("https://")
    model = catalog.diffusion["wan-2.1-t2v-14b"]
    dit = next(c.params for c in model.components if c.role == "transformer")
    ooms = [r for r in _reports(catalog_data, "wan-2.1-t2v-14b") if r["outcome"] == "oom"]
    assert {r["card"] for r in ooms} >= {"L40S", "RTX A6000"}
    for entry in ooms:
        if "capacity" in entry:
            assert entry["capacity"]["unit"] == "GiB"
            assert dit * entry["transformer_bits"] / 8 > entry["capacity"]["value"] * GIB
    # A published peak is what the engine counts at least, on the card the run used.
    for report, entry in zip(model.reports, _reports(catalog_data, "wan-2.1-t2v-14b"), strict=True):
        if "peak" in entry and report.at_reference:
            assert report_check(catalog, model, report).need_gb * GB >= entry["peak"]["value"] * GB


def test_wan_reports_change_the_verdict_when_the_catalog_is_wrong(catalog):
    """The check can fail: with the old working memory or BF16 weights taken for the reference
    script's FP32 ones, the L40S report would be said to fit."""
    import dataclasses

    model = catalog.diffusion["wan-2.1-t2v-14b"]
    l40s = next(r for r in model.reports if r.card == "L40S")
    assert report_check(catalog, model, l40s).agrees  # held as it stands
    as_bf16 = dataclasses.replace(l40s, transformer_bits=16)
    assert report_check(catalog, model, as_bf16).engine_fits  # 28 GB of weights alone fit 43 GB


@pytest.mark.parametrize("locale", LOCALES)
def test_image_guide_shows_each_report_beside_the_engine(site, catalog, catalog_data, locale):
    t = LABELS[locale]
    html = _guide(site, locale, "image-video")
    for model_id in ("wan-2.1-t2v-14b", "wan-2.1-t2v-1.3b"):
        entries = _reports(catalog_data, model_id)
        for entry in entries:
            assert entry["url"] in html
        rows = [r for r in _rows(html) if any(e["url"] in r for e in entries)]
        assert len(rows) >= len(entries)
        assert t["val_off"] not in {re.sub(r"<[^>]+>", "", c) for r in rows for c in re.findall(r"<td>(.*?)</td>", r)}
    # The page says the engine sizes one pipeline per card, never that pipelines cannot split.
    text = unescape(re.sub(r"<[^>]+>", " ", html))
    assert "do not split" not in text and "ne se répartit pas" not in text


def test_wan_14b_is_refused_on_an_l40s_in_bf16_and_named_tight_on_48_gb(catalog):
    """At 720p in BF16 the L40S no longer holds Wan 2.1 14B, even with its text encoder on the
    CPU; where a 48 GB card holds it, it is with the text encoder on the CPU."""
    rows = {r.node: r for r in fit_diffusion(catalog, "wan-2.1-t2v-14b", "bf16")}
    assert rows["1x-l40s"].verdict == "none"
    for r in rows.values():
        if r.verdict != "none" and catalog.gpus[r.gpu].memory_sold_gb <= 48:
            assert r.offload_text_encoders


# --- NVFP4 -------------------------------------------------------------------------------------


def test_nvfp4_memory_follows_its_bits(catalog, catalog_data):
    """4-bit E2M1 values and one 8-bit scale per 16: 4.5 bits per weight, the embedding table and
    the output head in 16-bit; the row's weights are those bytes over its cards."""
    entry = next(f for f in catalog_data["formats"] if f["id"] == "nvfp4")
    assert entry["bits_per_weight"]["value"] == 4 + 8 / entry["group_size"]["value"]
    model = catalog.llms["llama-3.3-70b"]
    p = model.params
    expected = (p.total - p.embeddings - p.lm_head) * 4.5 / 8 + (p.embeddings + p.lm_head) * 2
    assert weight_bytes(p, catalog.formats["nvfp4"]) == pytest.approx(expected, rel=1e-9)
    r = fit_node(catalog, workload(catalog, "llama-3.3-70b", "nvfp4"), catalog.node("1x-rtx-pro-6000"))
    assert r.weights_gb == pytest.approx(expected / GB, rel=1e-6)


def test_nvfp4_computes_in_fp4_on_blackwell_only(catalog):
    """Native on sm_100 and sm_120 (B200, RTX 5090, RTX PRO 6000); on Hopper and Ampere vLLM runs it
    through its Marlin FP4 kernel, weight-only, and the verdict says so."""
    for node, native in (
        ("1x-rtx-pro-6000", True),
        ("8x-b200", True),
        ("1x-h100-nvl", False),
        ("1x-a100-pcie-80gb", False),
    ):
        r = fit_node(catalog, workload(catalog, "llama-3.3-70b", "nvfp4"), catalog.node(node))
        assert r.verdict != "none", node
        assert r.weight_only is not native, node
        if not native:
            assert any(n.code == "weight_only" for n in r.notes), node


@pytest.mark.parametrize("locale", LOCALES)
def test_quantization_guide_lists_nvfp4_and_says_fp4_is_on_every_blackwell(site, catalog, locale):
    html = _guide(site, locale, "quantization")
    name = catalog.formats["nvfp4"].name
    runtime_table = [r for r in _rows(html) if f"<td>{name}</td>" in r]
    assert len(runtime_table) >= 3  # the speed table, the runtime table, the quality table
    text = unescape(re.sub(r"<[^>]+>", " ", html))
    assert "only on B200" not in text and "que sur la B200\u202f; ailleurs" not in text
    assert "lose more than with int4" not in text and "perdent davantage" not in text


def test_nvfp4_quality_text_quotes_its_source_and_does_not_round_the_gap_down(catalog_data):
    """Each "FP4 against FP8" pair the text quotes is the model card's pair for that benchmark,
    and the text says "within a point" only if every gap of the quoted table is under one."""
    entry = next(f for f in catalog_data["formats"] if f["id"] == "nvfp4")
    source = entry["quality_source"]["en"]
    heads = re.search(r"\(([A-Z][^()]*)\), as mirrored", source).group(1).split(", ")
    rows = {
        k: [float(x) for x in re.search(rf"'{k} \| ([\d. |]+)'", source).group(1).split(" | ")] for k in ("FP8", "FP4")
    }
    table = {h: (fp4, fp8) for h, fp4, fp8 in zip(heads, rows["FP4"], rows["FP8"], strict=True)}
    widest = max(fp8 - fp4 for fp4, fp8 in table.values())
    for locale, against, within in (("en", "against", "within a point"), ("fr", "contre", "moins d’un point")):
        text = entry["quality"][locale]
        quoted = re.findall(rf"([A-Z][\w-]*) (\d+[.,]\d+) {against} (\d+[.,]\d+)", text)
        assert len(quoted) >= 3, locale
        for bench, fp4, fp8 in quoted:
            assert (float(fp4.replace(",", ".")), float(fp8.replace(",", "."))) == table[bench], (locale, bench)
        assert widest < 1 or within not in text, locale


# --- NF4's kernels ---------------------------------------------------------------------------


def test_nf4_kernel_share_is_the_cited_measurement(catalog, catalog_data):
    """The share is gpustack's two throughputs, read from the source text the catalog quotes."""
    entry = next(f for f in catalog_data["formats"] if f["id"] == "nf4")
    awq, bnb = (
        float(x) for x in re.findall(r"\| (?:AWQ Marlin|bitsandbytes) \| ([\d.]+) \|", entry["kernel_share"]["source"])
    )
    assert catalog.formats["nf4"].kernel_share == pytest.approx(bnb / awq, abs=5e-4)


@pytest.mark.parametrize("locale", LOCALES)
def test_quantization_table_makes_nf4_slower_and_dearer_than_awq(site, catalog, locale):
    """The page's text says NF4 is slower than AWQ; the table's figures say the same."""
    html = _guide(site, locale, "quantization")
    rows = {}
    for r in _rows(html):
        cells = [unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
        if len(cells) == 9:
            rows[cells[0]] = cells
    nf4, awq = rows[catalog.formats["nf4"].name], rows[catalog.formats["awq-int4"].name]
    assert _number(nf4[5], locale) < _number(awq[5], locale)  # per user, one user
    assert _number(nf4[6], locale) < _number(awq[6], locale)  # node total
    assert _number(nf4[7], locale) > _number(awq[7], locale)  # best price
    # and the engine agrees, on the same node and load
    node = catalog.node("4x-h100-sxm")
    one = {
        f: fit_node(catalog, workload(catalog, "llama-3.3-70b", f, concurrency=1), node) for f in ("nf4", "awq-int4")
    }
    assert one["nf4"].decode_tok_s_per_user < one["awq-int4"].decode_tok_s_per_user


@pytest.mark.parametrize("locale", LOCALES)
def test_quantization_table_splits_the_vllm_formats_and_keeps_gguf_on_one_card(site, catalog, locale):
    """The page says that for one user the formats vLLM serves are split over all the node's
    cards, and that llama.cpp's formats stay on one card: the table's layout column says so."""
    html = _guide(site, locale, "quantization")
    node = catalog.node("4x-h100-sxm")
    cells = {}
    for r in _rows(html):
        row = [unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
        if len(row) == 9:
            cells[row[0]] = row
    assert len(cells) == len(catalog.formats)
    runtimes = set()
    for fmt in catalog.formats.values():
        cards = _number(cells[fmt.name][3], locale)
        runtimes.add(fmt.runtime)
        assert cards == (1 if fmt.runtime == "llama-cpp" else node.count), fmt.id
    assert runtimes == {"vllm", "llama-cpp"}
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))
    assert "quel que soit le format" not in text and "whatever the format" not in text


# --- the image widget ------------------------------------------------------------------------


@pytest.mark.parametrize("locale", LOCALES)
def test_image_widget_speaks_of_images(site, catalog, locale):
    """The FLUX widget heads its L40S-hour column as such, names the resolution (no context, no
    users) and counts the rows that do not fit on its fold button."""
    t = WIDGET[locale]
    html = page_file(site, locale, "image-video").read_text()
    widget = html[html.index("data-configurator") :]
    heads = dict(re.findall(r'<th scope="col"[^>]*data-col="(\w+)"[^>]*><button[^>]*>(.*?)</button>', widget))
    assert unescape(heads["per_mtok"]) == t["col_per_mtok_diffusion"]
    assert unescape(heads["per_mtok"]) != t["col_per_mtok"]
    question = unescape(re.search(r'data-slot="question">(.*?)<', widget).group(1))
    assert "1024 × 1024" in question and "token" not in question
    result = evaluate(catalog, {"model": "flux.1-dev", "format": "bf16"})
    none = sum(1 for r in result.fits if r.verdict == "none")
    assert none > 0
    fold = unescape(re.search(r"data-show-none hidden>(.*?)</button>", widget).group(1))
    assert fold == t["show_none"].format(n=str(none))
    assert widget.count('data-verdict="none"') == none


# --- the FLUX timings' arithmetic ------------------------------------------------------------


@pytest.mark.parametrize("locale", LOCALES)
def test_flux_timings_imply_more_than_each_cards_peak(site, catalog, catalog_data, locale):
    """2 x the transformer's parameters x the tokens of a step x the steps, over the published
    time, is more than the card's dense BF16 throughput: the page says so and keeps to the
    datasheets, by which the card with the lowest card-hour per TFLOPS makes the cheaper image."""
    html = _guide(site, locale, "image-video")
    table = _table_after(html, LABELS[locale]["img_time"])
    rows = [r for r in _rows(table) if "<td>" in r]
    cheapest = None
    for timing, row in zip(catalog_data["image_timings"], rows, strict=True):
        params = sum(c.params for c in catalog.diffusion[timing["model"]].components if c.role == "transformer")
        implied = 2 * params * timing["tokens"]["value"] * timing["steps"] / timing["seconds"]["value"] / 1e12
        gpu = catalog.gpus[timing["gpu"]]
        cells = [unescape(c) for c in re.findall(r"<td>(.*?)</td>", row)]
        assert _number(cells[6], locale) == pytest.approx(implied, abs=0.5)
        assert _number(cells[7], locale) == pytest.approx(gpu.bf16_tflops, abs=0.5)
        assert implied > gpu.bf16_tflops
        hour = min(n.price_month_usd / n.count for n in catalog.nodes if n.gpu == gpu.id) / gpu.bf16_tflops
        if cheapest is None or hour < cheapest[0]:
            cheapest = (hour, gpu.name.removeprefix("NVIDIA ").removeprefix("GeForce "))
    text = unescape(re.sub(r"<[^>]+>", " ", html))
    engine_says = {"fr": "d’après lesquelles c’est la {} qui produit", "en": "by which the {} makes"}[locale]
    assert engine_says.format(cheapest[1]) in re.sub(r"\s+", " ", text)


# --- DeepSeek's GGUF row -------------------------------------------------------------------------


@pytest.mark.parametrize("locale", LOCALES)
def test_moe_gguf_row_names_the_node_serving_the_most_within_the_target(site, catalog, locale):
    html = _guide(site, locale, "moe")
    name = catalog.formats["gguf-q4_k_m"].name
    row = next(r for r in _rows(html) if f"<td>{name}</td>" in r)
    fits = [r for r in evaluate(catalog, {"model": "deepseek-v3", "format": "gguf-q4_k_m", "concurrency": 64}).fits]
    assert not any(r.verdict != "none" and r.meets_target for r in fits)
    held = [r for r in fits if r.verdict != "none" and r.max_users_at_target > 0]
    most = min(held, key=lambda r: (-r.max_users_at_target, r.price_month_usd))
    assert most.node in row
    cells = [unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td>(.*?)</td>", row)]
    assert cells[-1] != "—" and _number(cells[-1], locale) == pytest.approx(
        most.best_usd_per_million_output_tokens, abs=0.005
    )


# --- the methodology -------------------------------------------------------------------------


@pytest.mark.parametrize("locale", LOCALES)
def test_methodology_says_what_is_not_modelled_and_lists_the_misses(site, catalog, locale):
    html = page_file(site, locale, "methodology").read_text()
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))
    words = {
        "en": (
            "Speculative decoding",
            "Prefix caching",
            "Offloading the KV cache",
            "Disaggregated serving",
            "Several nodes",
            "in sample",
        ),
        "fr": (
            "Le décodage spéculatif",
            "Le cache de préfixes",
            "Le déchargement du cache KV",
            "Le service désagrégé",
            "Plusieurs nœuds",
            "dans l’échantillon",
        ),
    }[locale]
    for word in words:
        assert word in text, word
    checks = check_all(catalog)
    misses = [c for c in checks if c.miss]
    assert misses
    for miss in misses:
        assert f'data-record="{miss.id}"' in html and not miss.ok  # shown by its setup, its id kept
    # A record the engine does not fit is never shown within bounds.
    for c in checks:
        if c.engine_row and c.engine_row["verdict"] == "none" and c.measure not in ("fits", "oom"):
            assert not c.ok, c.id
