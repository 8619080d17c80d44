"""The configurator's build-time HTML: the table's columns are the engine's list, declared once.

The widget reads the same list from protocol.js (tests/test_protocol.py holds it to the engine's);
tests/js/table.test.mjs shows the widget's rows follow whatever list they are given."""

from __future__ import annotations

import re

import pytest

from macros.fitengine import answer
from macros.fitengine.api import TABLE_COLUMNS
from macros.render.configurator_html import ConfiguratorHtml

ROW = re.compile(r"<tr (data-node=[^>]*)>(.*?)</tr>", re.S)


def render(catalog, model: str, fmt: str, locale: str = "en") -> str:
    return ConfiguratorHtml(catalog, locale).render("../", model, fmt)


@pytest.mark.parametrize("model,fmt", [("llama-3.3-70b", "bf16"), ("sdxl", "fp8")])
def test_the_table_follows_the_engines_column_list(catalog, model, fmt):
    html = render(catalog, model, fmt)
    assert "data-columns" not in html  # one copy of the list reaches the browser: protocol.js's
    heads = re.findall(r'<th scope="col"[^>]*data-col="([^"]+)"', html)
    assert heads == [c.id for c in TABLE_COLUMNS]
    result = answer(catalog, {"model": model, "format": fmt})
    by_node = {r["node"]: r for r in result["rows"]}
    rows = ROW.findall(html)
    assert len(rows) == len(catalog.nodes)
    kind = result["kind"]
    for attrs, cells in rows:
        assert len(re.findall(r"<t[hd][ >]", cells)) == len(TABLE_COLUMNS)
        values = dict(re.findall(r'data-v-([a-z-]+)="([^"]*)"', attrs))
        numbers = [c for c in TABLE_COLUMNS if c.sort == "number"]
        assert list(values) == [c.id.replace("_", "-") for c in numbers]
        r = by_node[re.search(r'data-node="([^"]+)"', attrs).group(1)]
        # The row's look (data-shown) follows whether it fits, not how.
        assert re.search(r'data-shown="([^"]*)"', attrs).group(1) == ("none" if r["verdict"] == "none" else "fits")
        for c in numbers:
            key = c.key_diffusion if kind == "diffusion" else c.key
            raw = values[c.id.replace("_", "-")]
            if key is None or r.get(key) is None:
                assert raw == ""
            else:
                assert float(raw) == r[key]


def test_every_column_is_labelled_in_every_locale(catalog):
    from macros.i18n import WIDGET

    for locale, words in WIDGET.items():
        for c in TABLE_COLUMNS:
            assert words.get(f"col_{c.id}"), (locale, c.id)


def test_every_model_option_carries_the_catalogs_native_format(catalog):
    # Choosing a model chooses the format its weights are published in, image models included;
    # a model whose published precision is no catalog format (SDXL: FP32 and FP16) carries none.
    html = render(catalog, "llama-3.3-70b", "bf16")
    options = dict(re.findall(r'<option value="([^"]+)"((?: data-native="[^"]*")?)', html))
    for model in [*catalog.llms.values(), *catalog.diffusion.values()]:
        native = model.native_format
        assert options[model.id] == (f' data-native="{native}"' if native else ""), model.id
    assert catalog.diffusion["sdxl"].native_format is None
    assert catalog.diffusion["flux.1-dev"].native_format == "bf16"
