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

from .site_build import LOCALES, ROOT, build_site

PAGE_PATHS = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["extra"]["page_paths"]
NNBSP, NBSP = "\u202f", "\u00a0"


def page_file(site: Path, locale: str, key: str) -> Path:
    return site / locale / PAGE_PATHS[key][locale] / "index.html"


def body_cells(html: str) -> list[list[str]]:
    """Each table row's data cells as text (tags dropped, character references read)."""
    return [
        [unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>\s*(.*?)\s*</tr>", html, re.S)
    ]


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


def site_root_url() -> str:
    """extra.site_url of mkdocs.yml, or SITE_URL when set (macros/build/site_meta.py)."""
    from macros.build.site_meta import configured_root_url

    return configured_root_url()


def counterparts(key: str) -> dict[str, str]:
    """hreflang -> the absolute address of the page `key` in that locale, and x-default -> the chooser."""
    root = site_root_url()
    return {**{locale: f"{root}{locale}/{PAGE_PATHS[key][locale]}" for locale in LOCALES}, "x-default": root}


def local_file(site: Path, url: str) -> Path:
    """The built file a public address of the site is served from."""
    path = site / url.removeprefix(site_root_url())
    return path / "index.html" if url.endswith("/") else path


@pytest.mark.parametrize("key", sorted(PAGE_PATHS))
@pytest.mark.parametrize("locale", LOCALES)
def test_every_page_names_its_address_and_its_counterparts(site, locale, key):
    page = page_file(site, locale, key)
    links = [a for t, a in tags(page) if t == "link"]
    canonical = [a["href"] for a in links if a.get("rel") == "canonical"]
    assert canonical == [counterparts(key)[locale]]
    alternates = {a["hreflang"]: a["href"] for a in links if a.get("rel") == "alternate" and "hreflang" in a}
    assert alternates == counterparts(key)
    for lang, url in alternates.items():
        target = local_file(site, url) if lang != "x-default" else site / "index.html"
        assert target.is_file(), url
    assert local_file(site, counterparts(key)[locale]).resolve() == page.resolve()


@pytest.mark.parametrize("locale", LOCALES)
def test_each_sitemap_lists_every_page_with_its_counterparts(site, locale):
    import xml.etree.ElementTree as ET

    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    urls = ET.parse(site / locale / "sitemap.xml").getroot().findall("s:url", ns)
    listed = {url.find("s:loc", ns).text: url for url in urls}
    assert set(listed) == {counterparts(key)[locale] for key in PAGE_PATHS}
    for key in PAGE_PATHS:
        url = listed[counterparts(key)[locale]]
        alternates = {link.get("hreflang"): link.get("href") for link in url.findall("x:link", ns)}
        assert alternates == counterparts(key)


@pytest.mark.parametrize("key", sorted(PAGE_PATHS))
@pytest.mark.parametrize("locale", LOCALES)
def test_every_page_previews_as_a_link(site, locale, key):
    """Open Graph and Twitter card tags: the page's own title and description, its locale, an image the site serves."""
    from babel import Locale

    page = page_file(site, locale, key)
    meta = {a.get("property") or a.get("name"): a.get("content", "") for t, a in tags(page) if t == "meta"}
    title = unescape(re.search(r"<title>(.*?)</title>", page.read_text()).group(1))
    assert title.startswith(meta["og:title"]) and meta["twitter:title"] == meta["og:title"]
    assert meta["og:description"] == meta["description"] == meta["twitter:description"] != ""
    assert meta["og:url"] == counterparts(key)[locale]
    assert Locale.parse(meta["og:locale"]).language == locale
    assert {
        Locale.parse(a["content"]).language for t, a in tags(page) if a.get("property") == "og:locale:alternate"
    } == set(LOCALES) - {locale}
    assert meta["twitter:card"] == "summary_large_image" and meta["twitter:image"] == meta["og:image"]
    image = local_file(site, meta["og:image"])
    assert image.is_file(), meta["og:image"]
    png = image.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(png[16:20]), int.from_bytes(png[20:24])) == (
        int(meta["og:image:width"]),
        int(meta["og:image:height"]),
    )


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
                    tag == "link" and attrs.get("rel") not in ("alternate", "canonical")
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
    return [
        float(x.replace("\u202f", "").replace(",", ".")) for x in re.findall(r"([\d\u202f]+(?:,\d+)?)\u00a0tok/s", row)
    ]


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
    label = LABELS["fr"]["floor"][:1].lower() + LABELS["fr"]["floor"][1:]  # mid-sentence, after the model
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
            text = (site / "engine" / "answers" / locale / f"{fmt}.json").read_text()
            bundle = json.loads(text)
            # Written as json.dumps writes it, compact (the build puts the text together from
            # each answer's own: it must come out the same).
            assert text == json.dumps(bundle, ensure_ascii=False, separators=(",", ":"))
            assert (bundle["locale"], bundle["format"]) == (locale, fmt)
            assert set(bundle["answers"]) == {*catalog.llms, *catalog.diffusion}
            for answer in bundle["answers"].values():
                assert [row["node"] for row in answer["rows"]] == [node.id for node in catalog.nodes]
                assert all(row["reason_text"] for row in answer["rows"])
            # One model's answer alone, what the widget fetches for a format chosen after it
            # started: the same answer as in every model's file, naming its locale, format and model.
            folder = site / "engine" / "answers" / locale / fmt
            assert {p.name for p in folder.iterdir()} == {f"{m}.json" for m in bundle["answers"]}
            for model, answer in bundle["answers"].items():
                text = (folder / f"{model}.json").read_text()
                one = json.loads(text)
                assert text == json.dumps(one, ensure_ascii=False, separators=(",", ":"))
                assert list(one) == ["version", "locale", "format", "model", "answer"]
                assert (one["locale"], one["format"], one["model"]) == (locale, fmt, model)
                assert one["answer"] == answer


def test_topology_labels_in_the_guide_come_from_the_catalog(site, catalog):
    from macros.fitengine.health import expected_nvlinks

    for locale in LOCALES:
        text = page_file(site, locale, "nvlink").read_text()
        for node in ("8x-h100-sxm", "8x-a100-sxm4-80gb"):
            assert f"<code>NV{expected_nvlinks(catalog, catalog.node(node))}</code>" in text


def test_a_node_added_to_the_catalog_is_a_yaml_edit_only(tmp_path, catalog_copy, catalog):
    """A 42nd node (or whatever one more is) in a copy of the catalog: the check passes, the pages follow."""
    nodes = catalog_copy / "nodes.yaml"
    text = nodes.read_text()
    last = text[text.index("  - id: 8x-b200") :]
    assert "  - id: 4x-b200\n" not in text
    added = last.replace("id: 8x-b200", "id: 4x-b200").replace("count: 8", "count: 4")
    nodes.write_text(text.rstrip("\n") + "\n" + added)
    count = len(catalog.nodes) + 1
    built = build_site(tmp_path / "more", locales=("fr",), catalog=catalog_copy)
    configurator = page_file(built, "fr", "configurator").read_text()
    assert configurator.count("<tr data-node=") == count
    assert 'data-node="4x-b200"' in configurator
    home = unescape(re.sub(r"<[^>]+>", "", page_file(built, "fr", "home").read_text()))
    assert f"{count} configurations" in home
    answers = json.loads((built / "engine" / "answers" / "fr" / "bf16.json").read_text())["answers"]
    assert all(len(answer["rows"]) == count for answer in answers.values())
    shutil.rmtree(tmp_path / "more")


def build_pages(tmp_path: Path, pages: dict[str, str], nav: list | None = None):
    """Build mkdocs.yml's French config over other pages; returns the config's build outcome."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    docs = tmp_path / "docs"
    for name, text in pages.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text)
    config = load_config(
        str(ROOT / "mkdocs.yml"), docs_dir=str(docs), site_dir=str(tmp_path / "out"), nav=nav, strict=True
    )
    build(config)


@pytest.mark.parametrize(
    ("call", "what"),
    [
        (
            'node_price("8x-h100-sxn")',
            "unknown node id '8x-h100-sxn' (argument node_id); expected one of catalog/nodes.yaml: ",
        ),
        (
            'tok_s("llama-3.3-70", "bf16", "8x-h100-sxm")',
            "unknown model id 'llama-3.3-70' (argument model_id); expected one of catalog/models.yaml: ",
        ),
        (
            'fit_table("llama-3.3-70b", "bf-16")',
            "unknown format id 'bf-16' (argument fmt_id); expected one of catalog/formats.yaml: ",
        ),
        (
            'compare_nodes("llama-3.3-70b", "bf16", "8x-h100-sxm", "4x-a100")',
            "unknown node id '4x-a100' (argument node_ids)",
        ),
    ],
)
def test_a_misspelled_id_names_the_page_the_macro_and_the_valid_ids(tmp_path, caplog, catalog, call, what):
    page = f"---\nkey: home\n---\n# T\n\n{{{{ {call} }}}}\n"
    with pytest.raises(SystemExit), caplog.at_level("ERROR", logger="mkdocs.plugins.guide_macros"):
        build_pages(tmp_path, {"index.md": page})
    messages = [r.getMessage() for r in caplog.records if r.name == "mkdocs.plugins.guide_macros"]
    macro = call.split("(")[0]
    assert len(messages) == 1 and messages[0].startswith(f"index.md: {macro}(): {what}"), messages
    kind = "format" if "format" in what else "model" if "model" in what else "node"
    valid = {
        "node": [n.id for n in catalog.nodes],
        "model": [*catalog.llms, *catalog.diffusion],
        "format": list(catalog.formats),
    }[kind]
    assert messages[0].endswith(", ".join(valid))
    assert not (tmp_path / "out" / "index.html").exists()


HOME = "---\nkey: home\n---\n# Accueil\n"
CATALOG_PAGE = "---\nkey: catalog\n---\n# Catalogue\n\n## Prix\n"


def build_fails(tmp_path, caplog, pages, nav=None, extra=None) -> str:
    """Build pages that must fail; returns everything the build logged."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, PluginError

    docs = tmp_path / "docs"
    for name, text in pages.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text)
    overrides = {"nav": nav} if nav is not None else {}
    config = load_config(
        str(ROOT / "mkdocs.yml"), docs_dir=str(docs), site_dir=str(tmp_path / "out"), strict=True, **overrides
    )
    if extra:
        config["extra"]["page_paths"].update(extra)
    with caplog.at_level("WARNING"), pytest.raises((PluginError, Abort, SystemExit)):
        build(config)
    return "\n".join(r.getMessage() for r in caplog.records)


def test_a_page_without_a_key_fails_the_build_with_its_name(tmp_path, caplog):
    logged = build_fails(tmp_path, caplog, {"index.md": HOME, "guides/sans-cle.md": "# Sans clé\n"})
    assert "guides/sans-cle.md: no `key:` in its front matter" in logged


def test_a_page_with_an_unknown_key_fails_the_build_with_its_name(tmp_path, caplog):
    logged = build_fails(tmp_path, caplog, {"index.md": HOME, "autre.md": "---\nkey: autre\n---\n# Autre\n"})
    assert "autre.md: key 'autre' is not in extra.page_paths of mkdocs.yml" in logged


def test_a_page_without_its_counterpart_fails_the_build_with_its_name(tmp_path, caplog):
    pages = {"index.md": HOME, "guides/nouveau.md": "---\nkey: new-guide\n---\n# Nouveau\n"}
    paths = {"new-guide": {"fr": "guides/nouveau/", **{code: "guides/new/" for code in LOCALES if code != "fr"}}}
    logged = build_fails(tmp_path, caplog, pages, extra=paths)
    other = next(code for code in LOCALES if code != "fr")
    assert f"guides/nouveau.md: no counterpart in {other}: docs/{other}/guides/new.md" in logged


def test_a_page_left_out_of_the_nav_fails_the_strict_build(tmp_path, caplog):
    logged = build_fails(
        tmp_path, caplog, {"index.md": HOME, "catalogue.md": CATALOG_PAGE}, nav=[{"Accueil": "index.md"}]
    )
    assert "catalogue.md" in logged and "not included in the" in logged


def test_a_broken_anchor_fails_the_strict_build(tmp_path, caplog):
    home = HOME + "\n[Les prix](catalogue.md#prix) et [ailleurs](catalogue.md#nulle-part)\n"
    logged = build_fails(tmp_path, caplog, {"index.md": home, "catalogue.md": CATALOG_PAGE})
    assert "nulle-part" in logged and "#prix" not in logged


def test_the_preview_links_to_nothing_it_does_not_serve(tmp_path):
    """`mkdocs serve` serves one locale at its root: no switcher to the others, no missing answers."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "preview"), strict=True)
    # As `mkdocs serve` does (mkdocs/commands/serve.py): the preview's own address as site_url.
    config.plugins.on_startup(command="serve", dirty=False)
    config.site_url = "http://127.0.0.1:8000/"
    build(config, serve_url=config.site_url)
    page = tmp_path / "preview" / PAGE_PATHS["nvlink"]["fr"] / "index.html"
    assert page.is_file()
    assert not [a for t, a in tags(page) if t == "a" and "md-select__link" in a.get("class", "")]
    canonical = [a["href"] for t, a in tags(page) if t == "link" and a.get("rel") == "canonical"]
    assert all(href.startswith(config.site_url) for href in canonical), canonical  # the preview's own pages
    # The page asks for the build's answers as it loads: the preview has none, and says so
    # with empty bundles rather than a 404.
    configurator = tmp_path / "preview" / PAGE_PATHS["configurator"]["fr"] / "index.html"
    preloads = [a["href"] for t, a in tags(configurator) if t == "link" and a.get("rel") == "preload"]
    answers = [href for href in preloads if "/answers/" in href]
    assert answers
    for href in answers:
        # Served at the preview's root, where a path cannot climb above it.
        target = tmp_path / "preview" / re.sub(r"^(\.\./)+", "", href)
        assert json.loads(target.read_text())["answers"] == {}


def test_the_root_leads_search_engines_to_every_sitemap(site):
    import xml.etree.ElementTree as ET

    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    index = ET.parse(site / "sitemap.xml").getroot()
    listed = [loc.text for loc in index.findall("s:sitemap/s:loc", ns)]
    assert listed == [f"{site_root_url()}{locale}/sitemap.xml" for locale in LOCALES]
    assert all(local_file(site, url).is_file() for url in listed)
    robots = (site / "robots.txt").read_text().splitlines()
    assert f"Sitemap: {site_root_url()}sitemap.xml" in robots
