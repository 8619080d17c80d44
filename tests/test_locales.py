"""Every locale is complete: its words, its reasons, its catalog texts, its config and its pages.

The locales come from one place (macros/locales.py, which reads mkdocs.yml): add one there and
every test below runs for it, failing until each of its words and pages exists.
"""

from __future__ import annotations

import pytest
import yaml

from macros.fitengine.reasons import TEMPLATES
from macros.i18n import LABELS, MEASURE, SITE, WIDGET
from macros.locales import codes, locales, source
from macros.messages import Localized

from .site_build import ROOT

PAGE_PATHS = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["extra"]["page_paths"]


def missing_words(locale: str, catalog_data: dict) -> list[str]:
    """Every word or sentence the source language has and `locale` lacks or leaves empty."""
    missing = []
    for name, table in (
        ("LABELS", LABELS),
        ("WIDGET", WIDGET),
        ("MEASURE", MEASURE),
        ("SITE", SITE),
        ("reasons", Localized(TEMPLATES)),
    ):
        words = table.get(locale, {})
        missing += [f"{name}[{key}]" for key in table[source()] if not words.get(key)]
    constants = [("assumptions.yaml", key, item) for key, item in catalog_data["assumptions"].items()]
    for runtime in catalog_data["runtimes"]:
        constants += [(f"runtimes.yaml: {runtime['id']}", key, item) for key, item in runtime.items()]
    for where, key, item in constants:
        if isinstance(item, dict) and "explain" in item:
            # a constant is named in words and explained, in every locale (never by its field name)
            missing += [
                f"{where}: {key}: {text}.{locale}"
                for text in ("label", "explain")
                if not item.get(text, {}).get(locale)
            ]
    for fmt in catalog_data["formats"]:
        if "quality" in fmt and not fmt["quality"].get(locale):
            missing.append(f"formats.yaml: {fmt['id']}: quality.{locale}")
    return missing


def test_the_locales_are_read_from_the_configuration():
    listed = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["extra"]["locales"]
    assert codes() == tuple(entry["lang"] for entry in listed)
    assert source() == "fr"  # French is the source language (DESIGN.md)
    assert len(codes()) >= 2


@pytest.mark.parametrize("locale", codes())
def test_every_locale_has_every_word(locale, catalog_data):
    assert missing_words(locale, catalog_data) == []


def test_a_locale_without_its_words_is_reported(catalog_data):
    # What a third locale added to mkdocs.yml before its words would meet.
    missing = missing_words("de", catalog_data)
    assert "LABELS[node]" in missing
    assert "assumptions.yaml: usable_fraction: explain.de" in missing
    assert "runtimes.yaml: vllm: batched_tokens: label.de" in missing
    assert any(m.startswith("reasons[") for m in missing)


def test_the_site_script_names_no_locale():
    script = (ROOT / "overrides" / "assets" / "javascripts" / "site.js").read_text(encoding="utf-8")
    for code in codes():
        assert f'"{code}"' not in script and f"'{code}'" not in script, f"site.js hard-codes {code}"


@pytest.mark.parametrize("locale", locales(), ids=lambda loc: loc.code)
def test_every_locale_has_its_config_and_pages(locale):
    assert locale.config.is_file(), f"{locale.config.name} is missing"
    config = yaml.safe_load(locale.config.read_text(encoding="utf-8"))
    if locale.code != source():
        assert config["INHERIT"] == "mkdocs.yml"
        assert config["theme"]["language"] == locale.code
    docs = ROOT / config["docs_dir"]
    assert config["site_dir"] == f"site/{locale.code}"
    for key, paths in PAGE_PATHS.items():
        assert locale.code in paths, f"extra.page_paths.{key} has no {locale.code} path"
        page = paths[locale.code].rstrip("/") or "index"
        assert (docs / f"{page}.md").is_file(), f"{key} has no page in {docs}"


def test_the_root_page_names_the_site_in_every_locale(site):
    names = [locale.site_name for locale in locales()]
    assert len(set(names)) == len(names)  # each locale names the site in its own words
    index = (site / "index.html").read_text()
    assert f"<title>{' · '.join(names)}</title>" in index
    for locale in locales():
        assert f'<a href="{locale.code}/" hreflang="{locale.code}" lang="{locale.code}">{locale.name}</a>' in index
