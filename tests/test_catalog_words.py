"""What the catalog's words say on the built pages: constants named and sourced truly, units in the
reader's words, names and labels in the page's language (a French editor's reading)."""

from __future__ import annotations

import re
from html import unescape

import pytest

from .test_site import body_cells, page_file


def methodology_rows(site, locale: str) -> dict[tuple[str, str], list[str]]:
    """The runtimes table of the built methodology page: (runtime, label) -> the row's cells."""
    html = page_file(site, locale, "methodology").read_text("utf-8")
    return {
        (cells[0], cells[1]): cells
        for cells in body_cells(html)
        if len(cells) == 5 and cells[0] in ("vLLM", "llama.cpp")
    }


def figure(text: str) -> tuple[float, str]:
    """A figure as the English page writes it ("28 ms", "0.14", "65 µs"), with its unit."""
    number, _, unit = text.replace("\u00a0", " ").partition(" ")
    return float(number.replace(",", "")), unit.replace("µs", "us")


def test_a_llama_cpp_constant_set_from_vllms_says_how_it_stands_to_vllms_shown_value(site):
    """The llama.cpp constants that have no measurement of their own said "taken equal to vLLM's"
    beside a different figure. Each source that names vLLM's figure now quotes the one vLLM's row
    shows, and the relation it states (equal to, above, below) holds between the two rows."""
    rows = methodology_rows(site, "en")
    assert len(rows) >= 40
    named = 0
    for (runtime, label), cells in rows.items():
        source = cells[4]
        if runtime != "llama.cpp" or "vLLM" not in source:
            continue
        assert "taken equal to vLLM's" not in source or cells[2] == rows[("vLLM", label)][2], label
        stated = re.search(
            r"(equal to|above|below) vLLM's (?:fitted )?([\d.,]*\d(?: (?:us|µs|ms|s|GiB|bytes|tokens)\b)?)", source
        )
        if stated is None:
            continue
        named += 1
        vllm = figure(rows[("vLLM", label)][2])
        assert figure(stated.group(2)) == vllm, (label, stated.group(0), vllm)
        mine = figure(cells[2])
        assert mine[1] == vllm[1], label
        relation = {"equal to": mine[0] == vllm[0], "above": mine[0] > vllm[0], "below": mine[0] < vllm[0]}
        assert relation[stated.group(1)], (label, cells[2], stated.group(0))
    assert named >= 3


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_the_default_users_read_as_users(site, locale, catalog, catalog_data):
    """The default concurrency is a number of users: its value's unit says so in the page's words,
    as the label beside it does (it read "1 séquence" under "Utilisateurs par défaut")."""
    from macros.i18n import LABELS

    html = unescape(page_file(site, locale, "methodology").read_text("utf-8"))
    label = catalog_data["assumptions"]["default_concurrency"]["label"][locale]
    value = catalog.assumptions.default_concurrency
    row = re.search(r"<tr>\s*<td>" + re.escape(label) + r"</td>\s*<td>(.*?)</td>", html, re.S)
    assert row, label
    unit = LABELS[locale]["unit_users_one" if value == 1 else "unit_users_many"]
    assert row.group(1) == f"{value}\u00a0{unit}"
    assert {"fr": "utilisateur", "en": "user"}[locale] in unit


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_an_image_models_chart_labels_its_best_price_per_reference_card_hour(catalog, locale):
    """The image widget's chart plots a price per L40S-hour: the point of the best price is named
    so, as the card names it, never "per million tokens" (the chart the build draws, chart.js under
    Node, for FLUX in the widget's full form)."""
    from macros.i18n import WIDGET
    from macros.render.configurator_html import ConfiguratorHtml

    t = WIDGET[locale]
    html = ConfiguratorHtml(catalog, locale).render("../", "flux.1-dev", "bf16")
    card = re.search(r"<section [^>]*data-answer[^>]*>", html).group(0)
    best = re.search(r'data-best-per-mtok="([^"]*)"', card).group(1)
    svg = re.search(r"<figure class=\"configurator__chart\" data-chart[^>]*>(.*?)</figure>", html, re.S).group(1)
    assert best and svg.startswith("<svg")
    labels = [unescape(x) for x in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    recommended = re.search(r'data-node="([^"]*)"', card).group(1)
    if best != recommended:  # the recommended node's label wins where they are one
        assert any(x.endswith(f"({t['alt_best_per_mtok_diffusion']})") for x in labels), labels
    assert not any(t["alt_best_per_mtok"] in x for x in labels), labels


def test_french_constants_write_binary_units_the_french_way(site, catalog_data):
    """A constant's value on the French methodology page is in French units ("8 Mio", not "8 MiB")."""
    rows = methodology_rows(site, "fr")
    english_units = {
        (k, c[2]) for k, c in rows.items() if re.search(r"\d\u00a0(?:[KMGT]iB|[KMGT]B|bytes?|hours?)\b", c[2])
    }
    assert english_units == set()
    vllm = next(r for r in catalog_data["runtimes"] if r["id"] == "vllm")
    item = vllm["custom_allreduce_max"]
    assert item["unit"] == "MiB"
    assert rows[("vLLM", item["label"]["fr"])][2] == f"{item['value']}\u00a0Mio"  # French IEC symbol: mébioctet


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_the_assumptions_table_names_a_card_never_by_its_id(site, locale, catalog, catalog_data):
    """The image speed's reference card read "l40s" (its id, as code): it is the card's name."""
    html = unescape(page_file(site, locale, "methodology").read_text("utf-8"))
    item = catalog_data["assumptions"]["diffusion_reference_gpu"]
    row = re.search(r"<tr>\s*<td>" + re.escape(item["label"][locale]) + r"</td>\s*<td>(.*?)</td>", html, re.S)
    assert row and row.group(1) == catalog.gpus[item["value"]].name
    cells = set(re.findall(r"<td>(?:<code>)?([^<]*)(?:</code>)?</td>", html))
    assert not cells & set(catalog.gpus), sorted(cells & set(catalog.gpus))


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_each_formats_quality_names_its_source_in_the_pages_language(site, locale, catalog_data):
    """The quantization guide's "what is known" rows end with their source in the page's language
    (the French from the message catalog: "article QLoRA", not "QLoRA paper")."""
    html = unescape(page_file(site, locale, "quantization").read_text("utf-8"))
    shown = 0
    for fmt in catalog_data["formats"]:
        if "quality" not in fmt:
            continue
        source = fmt["quality_source"]
        assert f"{fmt['quality'][locale]} ({source[locale]})" in html, fmt["id"]
        shown += 1
        if locale != "en":
            assert source[locale] != source["en"], fmt["id"]
    assert shown >= 5


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_a_label_after_the_models_name_continues_its_sentence(site, locale, catalog):
    """The NVLink guide's comparison row read "Llama 3.3 70B BF16, Par utilisateur, …": the label
    that follows the model's name starts in lower case."""
    from macros.i18n import LABELS

    floor = LABELS[locale]["floor"]
    html = unescape(page_file(site, locale, "nvlink").read_text("utf-8"))
    rows = re.findall(
        r"<td>([^<]*?), ("
        + re.escape(floor[:1])
        + r"|"
        + re.escape(floor[:1].lower())
        + r")"
        + re.escape(floor[1:])
        + ",",
        html,
    )
    assert rows and all(first == floor[:1].lower() for _, first in rows), rows
    assert all(any(m.name in model for m in catalog.llms.values()) for model, _ in rows)


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_the_image_timings_write_a_factor_as_the_configurator_does(site, locale):
    """A speed factor reads ×1,17 in the image guide's table, as in the configurator, not 1,17 ×."""
    html = unescape(page_file(site, locale, "image-video").read_text("utf-8"))
    factors = re.findall(r"<td>(×[\d.,]+|[\d.,]+\s?×)</td>", html)
    assert len(factors) >= 4 and all(f.startswith("×") for f in factors), factors


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_a_node_of_bridged_pairs_says_the_link_between_the_pairs(site, locale, catalog):
    """The catalog's row for 4 x H100 NVL read "NVLink bridges (PCIe Gen5 x16)", as if the bridges
    were PCIe: a node with more cards than a bridge joins says what joins its pairs."""
    from macros.i18n import LABELS

    t = LABELS[locale]
    html = unescape(page_file(site, locale, "catalog").read_text("utf-8"))
    paired = [
        n for n in catalog.nodes if n.topology == "nvlink-bridge" and n.count > catalog.gpus[n.gpu].nvlink.bridge_group
    ]
    assert paired
    for node in paired:
        row = re.search(r"<tr>\s*<td><code>" + re.escape(node.id) + r"</code></td>(.*?)</tr>", html, re.S)
        assert row, node.id
        said = t["topology_bridged_pairs"].split("{link}")
        assert said[0].format(topology=t["topology_nvlink-bridge"]) in row.group(1) and said[1] in row.group(1)
        assert f"{t['topology_nvlink-bridge']} (" not in row.group(1)
