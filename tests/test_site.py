"""The built site: every page in every locale, locale formatting, no leaks, figures from the catalog."""

from __future__ import annotations

import json
import re
import shutil
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

import pytest
import yaml

from macros.i18n import LABELS

from .site_build import ROOT, build_site

PAGE_PATHS = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["extra"]["page_paths"]
LOCALES = ("fr", "en")
NNBSP, NBSP = "\u202f", "\u00a0"


def page_file(site: Path, locale: str, key: str) -> Path:
    return site / locale / PAGE_PATHS[key][locale] / "index.html"


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def tags(path: Path) -> list[tuple[str, dict[str, str]]]:
    parser = Tags()
    parser.feed(path.read_text())
    return parser.tags


def resolve(page: Path, site: Path, href: str) -> Path:
    rel = page.relative_to(site).as_posix()
    target = urljoin("/" + rel, href).lstrip("/")
    path = site / target
    return path / "index.html" if href.endswith("/") or path.is_dir() else path


@pytest.mark.parametrize("key", sorted(PAGE_PATHS))
@pytest.mark.parametrize("locale", LOCALES)
def test_every_page_exists_in_every_locale_with_its_language(site, locale, key):
    page = page_file(site, locale, key)
    assert page.is_file(), f"{key} missing in {locale}"
    html = page.read_text()
    assert f'<html lang="{locale}"' in html
    alternates = {a["hreflang"]: a["href"] for t, a in tags(page) if t == "link" and a.get("rel") == "alternate"}
    assert set(alternates) == set(LOCALES)
    # Head alternates name each locale's root: Material's bundle reads sitemap.xml beside them.
    for lang, href in alternates.items():
        assert resolve(page, site, href).resolve() == page_file(site, lang, "home").resolve()


@pytest.mark.parametrize("locale", LOCALES)
def test_language_switcher_keeps_the_reader_on_the_same_page(site, locale):
    for key in PAGE_PATHS:
        page = page_file(site, locale, key)
        switch = [a for t, a in tags(page) if t == "a" and "md-select__link" in a.get("class", "")]
        assert {a["hreflang"] for a in switch} == set(LOCALES)
        for a in switch:
            assert resolve(page, site, a["href"]).resolve() == page_file(site, a["hreflang"], key).resolve()


def test_no_macro_errors_or_unrendered_jinja(site):
    for page in site.rglob("*.html"):
        html = page.read_text()
        assert "Macro Rendering Error" not in html, page
        assert "Macro Syntax Error" not in html, page
        assert "{{" not in html and "{%" not in html, page


def test_nothing_loads_from_another_host(site):
    for page in site.rglob("*.html"):
        for tag, attrs in tags(page):
            for attr in ("src", "href"):
                url = attrs.get(attr, "")
                loads = tag in ("script", "img", "iframe", "source") or (
                    tag == "link" and attrs.get("rel") != "alternate"
                )
                if loads and url:
                    assert not re.match(r"^(https?:)?//", url), f"{page}: {tag} {url}"


def test_each_locale_has_its_own_search_index(site):
    for locale in LOCALES:
        index = json.loads((site / locale / "search" / "search_index.json").read_text())
        assert index["config"]["lang"] == [locale]


def test_numbers_follow_the_locale(site, catalog):
    price = int(catalog.node("4x-a100-pcie-80gb").price_month_usd)
    thousands, rest = divmod(price, 1000)
    fr = page_file(site, "fr", "nvlink").read_text()
    en = page_file(site, "en", "nvlink").read_text()
    assert f"{thousands}{NNBSP}{rest:03d}{NBSP}$US" in fr
    assert f"${thousands},{rest:03d}" in en
    bandwidth = int(catalog.gpus["a100-pcie-80gb"].memory_bandwidth_gbps)
    assert f"{bandwidth // 1000}{NNBSP}{bandwidth % 1000:03d}{NBSP}Go/s" in fr
    assert f"{bandwidth // 1000},{bandwidth % 1000:03d}{NBSP}GB/s" in en


def test_code_blocks_with_braces_render_verbatim(site):
    for locale in LOCALES:
        text = unescape(re.sub(r"<[^>]+>", "", page_file(site, locale, "nvlink").read_text()))
        assert "awk '/^ +[0-9]/ {print $1, $8}'" in text
        assert "nvidia-smi topo -m" in text


def test_root_chooser_and_404(site):
    index = (site / "index.html").read_text()
    for locale in LOCALES:
        assert f'href="{locale}/"' in index
        assert f'href="/{locale}/"' in (site / "404.html").read_text()


def test_guides_call_the_configurator_prefilled(site):
    for locale in LOCALES:
        for key in ("nvlink", "image-video", "quantization", "moe"):
            page = page_file(site, locale, key)
            links = [a["href"] for t, a in tags(page) if t == "a" and "?model=" in a.get("href", "")]
            assert links, f"{locale} {key}"
            for href in links:
                assert (
                    resolve(page, site, href.split("?")[0]).resolve()
                    == page_file(site, locale, "configurator").resolve()
                )


def _floor(html: str, row_label: str) -> list[float]:
    row = next(line for line in html.split("<tr>") if row_label in line and "<td>" in line)
    return [float(x.replace("\u202f", "").replace(",", ".")) for x in re.findall(r"([\d\u202f]+(?:,\d+)?) tok/s", row)]


def test_no_figure_is_typed_in_prose(tmp_path, catalog_copy, site, catalog):
    """Change a price and a bandwidth in a copy of the catalog: the NVLink page follows."""
    nodes = catalog_copy / "nodes.yaml"
    old_price = int(catalog.node("4x-a100-pcie-80gb").price_month_usd)
    new_price = old_price + 1234
    text = nodes.read_text()
    marker = "  - id: 4x-a100-pcie-80gb"
    head, tail = text.split(marker)
    nodes.write_text(head + marker + tail.replace(f"value: {old_price},", f"value: {new_price},", 1))
    gpus = catalog_copy / "gpus.yaml"
    bandwidth = int(catalog.gpus["a100-pcie-80gb"].memory_bandwidth_gbps)
    text = gpus.read_text()
    head, tail = text.split("  - id: a100-pcie-80gb")
    gpus.write_text(
        head + "  - id: a100-pcie-80gb" + tail.replace(f"value: {bandwidth},", f"value: {bandwidth * 2},", 1)
    )

    changed = build_site(tmp_path / "changed", locales=("fr",), catalog=catalog_copy)
    before = page_file(site, "fr", "nvlink").read_text()
    after = page_file(changed, "fr", "nvlink").read_text()
    thousands, rest = divmod(new_price, 1000)
    assert f"{thousands}{NNBSP}{rest:03d}{NBSP}$US" in after
    label = LABELS["fr"]["floor"]
    old_floor, new_floor = _floor(before, label)[0], _floor(after, label)[0]
    # Decode is bandwidth-bound: twice the bandwidth nearly doubles the speed (the per-layer
    # costs and the work do not shrink, so a little less than twice).
    assert 1.5 * old_floor < new_floor <= 2 * old_floor + 0.1
    # The SXM4 column did not move.
    assert _floor(before, label)[1] == _floor(after, label)[1]
    shutil.rmtree(tmp_path / "changed")


def test_a_macro_error_fails_the_build(tmp_path):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("---\nkey: home\n---\n# T\n\n{{ no_such_macro() }}\n")
    config = load_config(
        str(ROOT / "mkdocs.yml"), docs_dir=str(docs), site_dir=str(tmp_path / "out"), nav=None, strict=True
    )
    with pytest.raises(SystemExit) as error:
        build(config)
    assert error.value.code != 0
    assert not (tmp_path / "out" / "index.html").exists()


def test_the_engine_ships_byte_for_byte_with_its_manifest(site):
    import hashlib

    engine = ROOT / "macros" / "fitengine"
    manifest = json.loads((site / "engine" / "manifest.json").read_text())
    shipped = {p.name for p in (site / "engine" / "fitengine").glob("*.py")}
    assert shipped == {p.name for p in engine.glob("*.py")} - {"__main__.py"}
    for name, digest in manifest["files"].items():
        data = (site / "engine" / "fitengine" / name).read_bytes()
        assert data == (engine / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest


def test_the_browser_gets_the_validated_catalog(site, catalog):
    from macros.fitengine import Catalog

    assert Catalog.from_dict(json.loads((site / "engine" / "catalog.json").read_text())) == catalog


def test_one_copy_of_pyodide_serves_every_locale(site):
    version = json.loads((site / "engine" / "manifest.json").read_text())["pyodide"]
    assert version == json.loads((ROOT / "package.json").read_text())["dependencies"]["pyodide"]
    assert (site / "pyodide" / version / "pyodide.asm.wasm").is_file()
    assert (site / "pyodide" / version / "pyodide-lock.json").is_file()
    assert not list(site.glob("*/pyodide"))
    assert not list((site / "pyodide").glob("*.whl")), "only Pyodide's core ships"


def test_build_time_answers_cover_every_model_format_and_locale(site, catalog):
    for locale in LOCALES:
        for fmt in catalog.formats:
            bundle = json.loads((site / "engine" / "answers" / locale / f"{fmt}.json").read_text())
            assert (bundle["locale"], bundle["format"]) == (locale, fmt)
            assert set(bundle["answers"]) == {*catalog.llms, *catalog.diffusion}
            for answer in bundle["answers"].values():
                assert [row["node"] for row in answer["rows"]] == [node.id for node in catalog.nodes]
                assert all(row["reason_text"] for row in answer["rows"])


def test_topology_labels_in_the_guide_come_from_the_catalog(site, catalog):
    from macros.fitengine.health import expected_nvlinks

    for locale in LOCALES:
        text = page_file(site, locale, "nvlink").read_text()
        for node in ("8x-h100-sxm", "8x-a100-sxm4-80gb"):
            assert f"<code>NV{expected_nvlinks(catalog, catalog.node(node))}</code>" in text
