"""What the catalog's words say on the built pages: constants named and sourced truly, units in the
reader's words, names and labels in the page's language (a French editor's reading)."""

from __future__ import annotations

import re
from html import unescape

import pytest

from .test_site import page_file


def methodology_rows(site, locale: str) -> dict[tuple[str, str], list[str]]:
    """The runtimes table of the built methodology page: (runtime, label) -> the row's cells."""
    html = page_file(site, locale, "methodology").read_text("utf-8")
    rows = {}
    for row in re.findall(r"<tr>\s*(.*?)\s*</tr>", html, re.S):
        cells = [unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
        if len(cells) == 5 and cells[0] in ("vLLM", "llama.cpp"):
            rows[(cells[0], cells[1])] = cells
    return rows


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
