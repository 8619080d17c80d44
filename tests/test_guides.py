"""The guides: French typography and vocabulary, and the theses each guide shows with the engine's figures."""

from __future__ import annotations

import re
import shutil
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from macros.fitengine import fit_all, fit_node, workload
from macros.fitengine.health import expected_nvlinks
from macros.fitengine.reasons import TEMPLATES
from macros.i18n import LABELS, MEASURE, SITE, WIDGET
from macros.messages import po_path, words

from .site_build import build_site
from .test_site import LOCALES, page_file

NNBSP = "\u202f"
SKIPPED = ("code", "pre", "script", "style", "kbd", "svg", "cite")
# Citations (<cite>) keep the language they were written in: a source's title or note is quoted.

# Words that are English and not French: none may appear in a French page's prose, tables or
# widget strings. Kept short and unambiguous (no "on", "page", "source", "table", "total"…).
_ENGLISH_WORDS = """
    the and of with for from this that which when than only each per does not should must about
    without between is are was has have its their your you we our user users card cards node nodes
    memory speed price month bytes hours sequences sequence weights layers fits split link
    interconnect measured default defaults runs copy loading ready download check paste fault none
    free reserve layout
"""
ENGLISH = set(_ENGLISH_WORDS.split())
WORD = re.compile(r"(?<![\w\-/.`])([A-Za-z]+)(?![\w\-/.`])")


class Text(HTMLParser):
    """A page's words as a reader sees them: text outside code and citations, and the titles
    and labels a pointer or a screen reader shows."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED:
            self.depth += 1
        for name, value in attrs:
            if name in ("title", "aria-label", "placeholder", "alt") and value:
                self.parts.append(value)

    def handle_endtag(self, tag):
        if tag in SKIPPED:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


def french_pages(site: Path) -> list[Path]:
    """Every French page a reader can land on, the 404 page included."""
    root = site / "fr"
    return [p for p in sorted(root.rglob("*.html")) if not {"search", "assets"} & set(p.relative_to(root).parts)]


def page_text(path: Path) -> str:
    parser = Text()
    parser.feed(path.read_text())
    return "\n".join(parser.parts)


def french_strings() -> dict[str, str]:
    """Every French string the site's code writes: tables, widgets, the engine's sentences, as
    the pages get them, and every translation of the French message catalog, plural forms too."""
    from babel.messages.pofile import read_po

    out = {}
    for name, table in (("LABELS", LABELS), ("WIDGET", WIDGET), ("MEASURE", MEASURE), ("SITE", SITE)):
        out.update({f"{name}.{k}": v for k, v in table["fr"].items()})
    out.update({f"reasons.{k}": v for k, v in words(TEMPLATES, "fr").items()})
    with po_path("fr").open("rb") as handle:
        for message in read_po(handle, locale="fr"):
            if message.id:
                texts = message.string if isinstance(message.string, tuple) else (message.string,)
                out.update({f"site.po: {message.context}[{i}]": text for i, text in enumerate(texts)})
    return out


def typography_faults(text: str) -> list[str]:
    faults = [m.group(0) for m in re.finditer(r".{0,30}[ \u00a0][;:!?]", text)]
    faults += [m.group(0) for m in re.finditer(r"«(?!\u202f).{0,20}|.{0,20}(?<!\u202f)»", text)]
    return faults


def english_words(text: str) -> list[str]:
    # Capitals only are labels and acronyms (NODE, SYS in nvidia-smi's matrix), not prose.
    return sorted({w for w in WORD.findall(text) if w.lower() in ENGLISH and not w.isupper()})


# --- French ------------------------------------------------------------------------------


def test_the_checks_catch_what_they_look_for():
    assert typography_faults("Prix : 3 $") and typography_faults("le mot « réparti »")
    assert not typography_faults(f"Prix{NNBSP}: 3 $ et le mot «{NNBSP}réparti{NNBSP}»")
    assert english_words("Permanent link, 2 bytes, 1 sequences, NODE") == ["bytes", "link", "sequences"]
    assert not english_words("NVLink, all-reduce, --gpu-memory-utilization, Go/s")


def test_french_pages_put_a_narrow_no_break_space_before_double_punctuation(site):
    pages = french_pages(site)
    assert len(pages) >= 9
    faults = {p.relative_to(site).as_posix(): typography_faults(page_text(p)) for p in pages}
    assert not {k: v for k, v in faults.items() if v}


def test_french_strings_of_tables_widgets_and_engine_are_typeset():
    faults = {k: typography_faults(v) for k, v in french_strings().items()}
    assert not {k: v for k, v in faults.items() if v}


def test_no_english_left_on_french_pages(site):
    found = {p.relative_to(site).as_posix(): english_words(page_text(p)) for p in french_pages(site)}
    assert not {k: v for k, v in found.items() if v}


def test_citations_on_french_pages_say_they_are_in_english(site):
    # The catalog's sources keep their language; a screen reader must know which it is.
    from macros.guides.base import SOURCES_LANGUAGE

    cites = {
        p.relative_to(site).as_posix(): re.findall(r"<cite(?: [^>]*)?>", p.read_text(encoding="utf-8"))
        for p in french_pages(site)
    }
    assert sum(len(tags) for tags in cites.values()) > 10
    unmarked = {k: [t for t in tags if f'lang="{SOURCES_LANGUAGE}"' not in t] for k, tags in cites.items()}
    assert not {k: v for k, v in unmarked.items() if v}


def test_no_english_in_french_strings():
    found = {k: english_words(re.sub(r"\{\w+\}", "", v)) for k, v in french_strings().items()}
    assert not {k: v for k, v in found.items() if v}


@pytest.mark.parametrize("locale", LOCALES)
def test_each_locale_404_page_speaks_its_language_and_is_styled(site, locale):
    """The page a host serves for a missing address: the locale's words in the theme's layout,
    never Material's own English heading."""
    html = (site / locale / "404.html").read_text()
    assert "404 - Not found" not in html
    words = SITE[locale]
    article = html[html.index('<article class="md-content__inner md-typeset">') :]
    assert f"<h1>{words['not_found_title']}</h1>" in article and words["not_found_text"] in unescape(article)
    assert re.search(
        r'<link rel="stylesheet" href="/' + locale + r'/assets/stylesheets/main\.[0-9a-f]+\.min\.css">', html
    )
    assert f'<link rel="stylesheet" href="/{locale}/assets/stylesheets/site.css">' in html
    assert f'<a href="/{locale}/">{words["not_found_home"]}</a>' in unescape(html)
    assert f"<title>{words['not_found_title']} · " in html
    assert f'<html lang="{locale}"' in html


def test_french_pages_write_french_byte_units(site):
    for key in ("nvlink", "quantization", "moe", "image-video"):
        text = page_text(page_file(site, "fr", key))
        assert "\u00a0Go" in text, key
        assert not re.search(r"\d\u00a0(GB|GiB|KiB|GB/s)\b", text), key


# A figure's unit on a French page: French symbols, joined to the figure by a no-break space.
FRENCH_UNITS = r"(?:Go|Gio|Mio|Kio|Mo|To|Go/s|To/s|tok/s|ms|µs|s|%|\$US|W|TFLOPS)"
ENGLISH_BYTES = re.compile(r"(?:\d|\})[\u00a0\u202f ](?:[KMGT]i?B)(?:/s)?(?![\w/])")
LOOSE_UNIT = re.compile(r".{0,20}(?:\d|\}) " + FRENCH_UNITS + r"(?![\w/])")


def test_the_unit_checks_catch_what_they_look_for():
    assert ENGLISH_BYTES.search("8\u00a0MiB") and ENGLISH_BYTES.search("{kv} KiB") and LOOSE_UNIT.search("de 16 Kio")
    assert not ENGLISH_BYTES.search("NVIDIA A100 80GB PCIe") and not LOOSE_UNIT.search("16\u00a0Kio, 8 cartes")


def test_french_figures_have_french_units_joined_by_a_no_break_space(site):
    """Every French page (the methodology's and the catalog's tables too) and every French string of
    the widgets, the engine and the message catalog: never GB, GiB, MiB or KiB after a figure, and
    never an ordinary space between a figure and its unit (a line would break between them)."""
    texts = {p.relative_to(site).as_posix(): page_text(p) for p in french_pages(site)}
    texts.update(french_strings())
    faults = {k: ENGLISH_BYTES.findall(v) + LOOSE_UNIT.findall(v) for k, v in texts.items()}
    assert not {k: v for k, v in faults.items() if v}


# --- the theses, shown ---------------------------------------------------------------------


def _rows(html: str) -> list[str]:
    """Each table row's HTML, its character references read (a catalog name is written as text:
    GGUF Q4_K_M's underscores are entities in the page)."""
    return [unescape(row) for row in re.findall(r"<tr>(.*?)</tr>", html, re.S)]


def _guide(site: Path, locale: str, key: str) -> str:
    """A guide's article without the configurator copy at its end (the widget has its own tests)."""
    html = page_file(site, locale, key).read_text()
    return html.split("data-configurator")[0]


@pytest.mark.parametrize("locale", LOCALES)
def test_nvlink_labels_follow_each_topology(site, catalog, locale):
    """Every NVLink node's expected label is the engine's health checker's, and a 4-GPU board
    without NVSwitch shows a third of the links that the same card shows through NVSwitch."""
    html = _guide(site, locale, "nvlink")
    for node in catalog.nodes:
        if catalog.topologies[node.topology].nvlink != "sxm":
            continue
        row = next(r for r in _rows(html) if f"<code>{node.id}</code>" in r and "<td>" in r)
        assert f"<code>NV{expected_nvlinks(catalog, node)}</code>" in row, node.id
    for gpu in ("h100-sxm", "a100-sxm4-80gb"):
        boards = {n.topology: expected_nvlinks(catalog, n) for n in catalog.nodes if n.gpu == gpu}
        assert boards["nvlink-direct"] * 3 == boards["nvswitch"]
    # No 4-card node is promised the NVSwitch label.
    four = next(r for r in _rows(html) if "<code>4x-h100-sxm</code>" in r and "<td>" in r)
    assert f"<code>NV{expected_nvlinks(catalog, catalog.node('8x-h100-sxm'))}</code>" not in four


def _within(catalog, r):
    """The catalog's default target, restated: the speed per user and the first token it asks for."""
    a = catalog.assumptions
    return r.verdict != "none" and r.decode_tok_s_per_user >= a.target_tok_s and r.ttft_s <= a.target_ttft_s


def _cheapest_within(catalog, model, fmt, users):
    fits = [r for r in fit_all(catalog, workload(catalog, model, fmt, concurrency=users)) if _within(catalog, r)]
    return min(fits, key=lambda r: r.price_month_usd)


@pytest.mark.parametrize("locale", LOCALES)
def test_moe_guide_names_the_cheapest_node_per_format(site, catalog, locale):
    html = _guide(site, locale, "moe")
    for model, formats, users in (
        ("deepseek-v3", ("fp8", "awq-int4"), 64),
        ("gpt-oss-120b", ("mxfp4", "bf16"), 1),
    ):
        for fmt in formats:
            best = _cheapest_within(catalog, model, fmt, users)
            name = catalog.formats[fmt].name
            rows = [r for r in _rows(html) if f"<td>{name}</td>" in r and f"<code>{best.node}</code>" in r]
            assert rows, (model, fmt, best.node)
    # The page's claims: eight RTX PRO 6000 hold DeepSeek V3 in FP8 and 4-bit but miss the target
    # for 64 users; in 4-bit a node several times cheaper serves them within it, at a lower best
    # price per million output tokens too. An engine or catalog change that turns one of them
    # around must change the words.
    trap = catalog.node("8x-rtx-pro-6000")
    for fmt in ("fp8", "awq-int4"):
        r = fit_node(catalog, workload(catalog, "deepseek-v3", fmt, concurrency=64), trap)
        assert r.verdict != "none" and not _within(catalog, r), fmt
    fp8, awq = (_cheapest_within(catalog, "deepseek-v3", f, 64) for f in ("fp8", "awq-int4"))
    assert fp8.price_month_usd >= 2 * awq.price_month_usd
    assert awq.best_usd_per_million_output_tokens < fp8.best_usd_per_million_output_tokens
    words = {"en": "several times cheaper", "fr": "plusieurs fois moins cher"}[locale]
    assert words in re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))
    # gpt-oss-120b is published in MXFP4 to run on one 80 GB card (openai/gpt-oss-120b model card).
    fits = [r for r in fit_all(catalog, workload(catalog, "gpt-oss-120b", "mxfp4")) if r.verdict == "single"]
    assert any(catalog.gpus[catalog.node(r.node).gpu].memory_sold_gb <= 80 for r in fits)


def test_the_moe_guide_follows_the_catalog(tmp_path, catalog_copy, site, catalog):
    """Raise the cheapest DeepSeek V3 node's price: the MoE page shows the new price."""
    best = _cheapest_within(catalog, "deepseek-v3", "awq-int4", 64)
    old = int(catalog.node(best.node).price_month_usd)
    new = old + 111
    nodes = catalog_copy / "nodes.yaml"
    marker = f"  - id: {best.node}\n"
    head, tail = nodes.read_text().split(marker)
    nodes.write_text(head + marker + tail.replace(f"value: {old},", f"value: {new},", 1))
    changed = build_site(tmp_path / "changed", locales=("fr",), catalog=catalog_copy)
    text = unescape(page_file(changed, "fr", "moe").read_text())
    thousands, rest = divmod(new, 1000)
    assert f"{thousands}{NNBSP}{rest:03d}\u00a0$US" in text
    shutil.rmtree(tmp_path / "changed")


@pytest.mark.parametrize("locale", LOCALES)
def test_the_training_example_can_run(site, catalog, locale):
    """Mixed-precision Adam keeps 16 bytes per parameter (ZeRO, arXiv 1910.02054): a 70B model's
    state does not fit four 80 GB cards, the sharded 8B example's does, on every node the page shows."""
    html = _guide(site, locale, "nvlink")
    assert catalog.llms["llama-3.3-70b"].params_total * 16 > 4 * 80e9
    state = catalog.llms["llama-3.1-8b"].params_total * 16 / 4
    header = next(r for r in _rows(html) if LABELS[locale]["train_comm"] in r)
    assert LABELS[locale]["train_compute"] in header
    start = html.index(header)
    rows = [r for r in _rows(html[start:]) if "<td>" in r][:4]
    assert len(rows) == 4
    for row in rows:
        node = catalog.node(re.search(r"<code>([^<]+)</code>", row).group(1))
        assert node.count == 4
        assert state < catalog.gpus[node.gpu].memory_usable_bytes


# --- a per-token API against a monthly node --------------------------------------------------

READ_DATE = {"fr": "2 décembre 2026", "en": "December 2, 2026"}  # the day catalog/api_prices.yaml was read
PRICES_CHANGE = {"fr": "prix des API changent", "en": "API prices change"}


def _number(text: str, locale: str = "en") -> float:
    """The first number of a cell, read the locale's way (French: 1 234,5; English: 1,234.5)."""
    digits = re.search(r"[\d\u202f\u00a0 ,.]*\d", text).group(0)
    digits = re.sub(r"[\u202f\u00a0 ]", "", digits)
    return float(digits.replace(",", ".") if locale == "fr" else digits.replace(",", ""))


def _breakeven_rows(html: str, locale: str) -> dict[str, str]:
    t = LABELS[locale]
    start = html.index(t["be_tokens"])
    table = html[start : html.index("</table>", start)]
    return {re.search(r"<code>([^<]+)</code>", r).group(1): r for r in _rows(table) if "<td>" in r}


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize(
    ("key", "price_id", "fmt"),
    [("nvlink", "cloudflare-llama-3.3-70b-fp8", "bf16"), ("quantization", "wandb-llama-3.3-70b", "awq-int4")],
)
def test_guides_say_where_a_node_beats_a_per_token_api(site, catalog, catalog_data, locale, key, price_id, fmt):
    """The node's monthly price over the API's bill per million output tokens (prompts at the
    default request's lengths included) is the break-even; the users it takes are the fewest whose
    node total reaches that rate, or none when the full node never does."""
    price = next(p for p in catalog_data["api_prices"] if p["id"] == price_id)
    a = catalog.assumptions
    per_output = price["output"]["value"] + price["input"]["value"] * a.default_input_tokens / a.default_output_tokens
    html = _guide(site, locale, key)
    text = unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)))
    assert READ_DATE[locale] in text and price["url"] in text and PRICES_CHANGE[locale] in text
    rows = _breakeven_rows(html, locale)
    assert len(rows) >= 4
    reachable = unreachable = 0
    for node_id, row in rows.items():
        node = catalog.node(node_id)
        cells = [unescape(c) for c in re.findall(r"<td>(.*?)</td>", row)]
        tokens = node.price_month_usd / per_output
        assert _number(cells[2], locale) == pytest.approx(tokens, abs=0.5), node_id
        rate = tokens * 1e6 / (a.hours_per_month * 3600)
        assert _number(cells[3], locale) == pytest.approx(rate, abs=0.5), node_id
        totals = []
        for users in range(1, 400):
            r = fit_node(catalog, workload(catalog, price["model"], fmt, None, users), node)
            if r.verdict == "none":
                break
            totals.append(r.decode_tok_s_total)
        needed = next((n for n, total in enumerate(totals, 1) if total >= rate), None)
        if needed is None:
            unreachable += 1
            assert LABELS[locale]["be_never"].split("{")[0] in cells[4], node_id
        else:
            reachable += 1
            assert _number(cells[4], locale) == needed, node_id
    assert reachable
    # Whether a node never pays for itself is the engine's to say (paged KV and the collectives
    # as vLLM runs them bring every node of the NVLink guide's table within reach at this price).
    assert reachable + unreachable == len(rows)


# --- published image times against the datasheets --------------------------------------------


@pytest.mark.parametrize("locale", LOCALES)
def test_image_guide_sets_published_flux_times_beside_the_datasheet_ratio(site, catalog, catalog_data, locale):
    """Each published time is shown; the measured ratio is the times' ratio, the engine's is the
    cards' dense BF16 ratio, and a thousand images cost the cheapest card-hour times their time."""
    timings = catalog_data["image_timings"]
    html = _guide(site, locale, "image-video")
    t = LABELS[locale]
    start = html.index(t["img_time"])
    table = html[start : html.index("</table>", start)]
    rows = [r for r in _rows(table) if "<td>" in r]
    assert len(rows) == len(timings)
    ref = timings[0]
    for timing, row in zip(timings, rows, strict=True):
        gpu = catalog.gpus[timing["gpu"]]
        cells = [unescape(c) for c in re.findall(r"<td>(.*?)</td>", row)]
        assert gpu.name.removeprefix("NVIDIA ").removeprefix("GeForce ") == cells[0]
        assert f"{timing['steps']}" in cells[1] and timing["resolution"].split(" x ")[0] in cells[1]
        assert _number(cells[2], locale) == timing["seconds"]["value"]
        measured = ref["seconds"]["value"] / timing["seconds"]["value"]
        datasheet = gpu.bf16_tflops / catalog.gpus[ref["gpu"]].bf16_tflops
        assert _number(cells[3], locale) == pytest.approx(measured, abs=0.005)
        assert _number(cells[4], locale) == pytest.approx(datasheet, abs=0.005)
        card_hour = (
            min(n.price_month_usd / n.count for n in catalog.nodes if n.gpu == timing["gpu"])
            / catalog.assumptions.hours_per_month
        )
        assert _number(cells[5], locale) == pytest.approx(
            card_hour * timing["seconds"]["value"] / 3600 * 1000, abs=0.005
        )
        assert timing["url"] in row
    # The point of the table: the measured gap is far from the datasheets' one.
    pro = next(x for x in timings if x["gpu"] == "rtx-pro-6000")
    assert catalog.gpus["rtx-pro-6000"].bf16_tflops / catalog.gpus["rtx-5090"].bf16_tflops > 2 * (
        ref["seconds"]["value"] / pro["seconds"]["value"]
    )


# --- the NVLink guide's chart ------------------------------------------------------------------


@pytest.mark.parametrize("locale", LOCALES)
def test_nvlink_guide_charts_first_token_against_prompt_length(site, catalog, locale):
    """The chart's values table holds the engine's time to first token for each node and prompt;
    NVLink beats PCIe on the same card generation at every length; PCIe lines are dashed; the
    SVG is named and described, and every figure is in the text alternative."""
    html = _guide(site, locale, "nvlink")
    start = html.index('<figure class="chart-figure">')
    figure = html[start : html.index("</details>", start)]
    svg = figure[: figure.index("</svg>")]
    ids = re.search(r'aria-labelledby="([^"]+)"', svg).group(1).split()
    assert all(f'id="{i}"' in svg for i in ids) and 'role="img"' in svg and "style=" not in svg
    table = figure[figure.index("<table>") :]
    nodes = re.findall(r"<th><code>([^<]+)</code></th>", table)
    assert len(nodes) == 4
    output = catalog.assumptions.default_output_tokens
    times: dict[str, list[float]] = {n: [] for n in nodes}
    for row in _rows(table)[1:]:
        cells = re.findall(r"<td>(.*?)</td>", row)
        prompt = int(_number(cells[0], locale))
        for node_id, cell in zip(nodes, cells[1:], strict=True):
            node = catalog.node(node_id)
            work = workload(
                catalog,
                "llama-3.3-70b",
                "bf16",
                prompt + output,
                1,
                input_tokens=prompt,
                output_tokens=output,
                layout=(node.count, 1, 1),
            )
            ttft = fit_node(catalog, work, node).ttft_s
            shown = 0.005 if ttft < 10 else 0.05  # two decimals below 10 s, one above
            assert _number(cell, locale) == pytest.approx(ttft, abs=shown + 1e-9), (node_id, prompt)
            times[node_id].append(ttft)
    for pcie, nvlink in (("4x-a100-pcie-80gb", "4x-a100-sxm4-80gb"), ("4x-h100-pcie", "4x-h100-sxm")):
        assert all(n < p for n, p in zip(times[nvlink], times[pcie], strict=True))
        assert re.search(r'class="chart__line chart__line--dashed [^"]*"', svg)
        assert f">{pcie}</text>" in svg and f">{nvlink}</text>" in svg
    dashed = re.findall(r'<polyline class="chart__line chart__line--dashed', svg)
    assert len(dashed) == 2


# --- a French editor's and an American copy editor's reread --------------------------------------

# Calques a French editor strikes: English turns of phrase in French words.
CALQUES = (
    "forte concurrence",
    "ma concurrence",
    "PR 1",
    "test honnête",
    "raccourcit chaque vidéo",
    "recouvre la communication",
    # the runtimes' constants (catalog.runtimes.* in the French catalog)
    "réduction globale",
    "passent avant son premier token",
    "perd au contexte",
    "plafonne le débit à des",
    "une carte par réplique",
)
BRITISH = re.compile(
    r"\b(colour|behaviour|favour|optimis(?:e[sd]?|ing|ations?)|quantis\w*|organis\w*|utilis\w*|modelled|modelling|labelled|catalogue|"
    r"centre|licence|analyse|whilst|amongst|artefact|grey)\b",
    re.I,
)


def test_french_pages_keep_no_calque(site):
    found = {p.relative_to(site).as_posix(): [c for c in CALQUES if c in page_text(p)] for p in french_pages(site)}
    assert not {k: v for k, v in found.items() if v}


def test_english_pages_spell_american(site):
    """Prose, tables and the sources they cite (code and scripts aside) use one spelling."""
    root = site / "en"
    pages = [p for p in sorted(root.rglob("*.html")) if not {"search", "assets"} & set(p.relative_to(root).parts)]
    assert len(pages) >= 9
    found = {}
    for page in pages:
        html = re.sub(r"<(script|pre|code|style)\b.*?</\1>", " ", page.read_text(), flags=re.S)
        words = BRITISH.findall(unescape(re.sub(r"<[^>]+>", " ", html)))
        if words:
            found[page.relative_to(site).as_posix()] = sorted(set(words))
    assert not found


# --- labels are words ------------------------------------------------------------------------


def _cells(html: str, tag: str) -> list[str]:
    return [c.strip() for c in re.findall(rf"<{tag}(?: [^>]*)?>(.*?)</{tag}>", html, re.S)]


@pytest.mark.parametrize("locale", LOCALES)
def test_tables_name_things_in_words_never_by_field_name_or_record_id(site, locale):
    """A table's cell names a constant, a card's figure or a published measurement in the page's
    words: no `snake_case` field name and no records.yaml id stands as a label."""
    from macros.validation import records

    ids = {r["id"] for r in records()}
    field_names, record_ids, setups = {}, {}, 0
    for page in sorted((site / locale).rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        cells = _cells(html, "td")
        name = page.relative_to(site).as_posix()
        field_names[name] = [c for c in cells if re.fullmatch(r"<code>[a-z0-9]+(?:_[a-z0-9]+)+</code>", c)]
        record_ids[name] = [c for c in cells if unescape(re.sub(r"<[^>]+>", "", c)) in ids]
        setups += len(re.findall(r'<span data-record="([^"]+)"', html))
    assert not {k: v for k, v in field_names.items() if v}
    assert not {k: v for k, v in record_ids.items() if v}
    assert setups >= len(ids)  # every record is shown, by its setup


@pytest.mark.parametrize("locale", LOCALES)
def test_every_table_header_names_its_column(site, locale):
    """No empty header (a screen reader reads nothing for the column), and every row has as many
    cells as the header has columns (a column shifted under another's name misleads)."""
    faults = []
    for page in sorted((site / locale).rglob("*.html")):
        for table in re.findall(r"<table>(.*?)</table>", page.read_text(encoding="utf-8"), re.S):
            header = _cells(table.split("</thead>")[0], "th")
            rows = re.findall(r"<tr>(.*?)</tr>", table.split("</thead>")[-1], re.S)
            where = f"{page.relative_to(site).as_posix()}: {header}"
            faults += [where for h in header if not re.sub(r"<[^>]+>", "", h).strip()]
            faults += [where for r in rows if len(re.findall(r"<td[ >]", r)) != len(header)]
    assert not faults, sorted(set(faults))[:5]


# --- the guides' macros, one module per guide (macros/guides/) ---------------------------------


def test_each_macro_a_page_calls_is_offered_by_the_class_that_defines_it():
    """Every macro a page of either locale calls is registered; each guide's class names only
    macros it defines itself, and no two classes name the same one."""
    from macros.guides import GuideMacros
    from macros.guides.base import GuideBase

    offered: dict[str, type] = {}
    for cls in GuideMacros.__mro__:
        if issubclass(cls, GuideBase):
            for name in vars(cls).get("MACROS", ()):
                assert name in vars(cls), f"{cls.__name__} names {name} but does not define it"
                assert name not in offered, f"{name} is named by {offered[name].__name__} and {cls.__name__}"
                offered[name] = cls
    root = Path(__file__).resolve().parent.parent
    called = {
        name
        for page in (root / "docs").rglob("*.md")
        for name in re.findall(r"\{\{-?\s*([a-z_]+)\(", page.read_text(encoding="utf-8"))
    }
    assert called and called <= offered.keys(), sorted(called - offered.keys())
    guide = GuideMacros.__new__(GuideMacros)
    assert set(guide.registrations()) == set(offered)
