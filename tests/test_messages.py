"""The site's words in gettext catalogs (macros/messages.py): extracted, complete, checked by the build."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from babel.messages.pofile import read_po, write_po

from macros import message_extractors, messages
from macros.fitengine.reasons import TEMPLATES
from macros.i18n import LABELS, WIDGET
from macros.locales import codes
from macros.message_extractors import extract_tables
from macros.messages import MessagesError, check, placeholders, used_messages, words

from .site_build import ROOT

FRENCH = ROOT / "locales" / "fr" / "LC_MESSAGES" / "site.po"


def read(path: Path):
    with path.open("rb") as handle:
        return read_po(handle, locale="fr")


@pytest.fixture()
def locales_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of locales/ the build reads instead (SITE_LOCALES), for tests that break it."""
    copy = tmp_path / "locales"
    shutil.copytree(ROOT / "locales", copy)
    monkeypatch.setenv("SITE_LOCALES", str(copy))
    return copy


def rewrite(po: Path, change) -> None:
    catalog = read(po)
    change(catalog)
    with po.open("wb") as handle:
        write_po(handle, catalog, width=0, include_lineno=False)


# --- the catalogs are complete -----------------------------------------------------------------


@pytest.mark.parametrize("locale", [c for c in codes() if c != messages.MSGID_LANGUAGE])
def test_every_message_the_code_uses_is_translated(locale):
    assert check(locale) == []


def test_the_template_is_what_the_code_holds(tmp_path):
    """locales/site.pot equals a fresh extraction (`make messages`), but for its date."""
    fresh = tmp_path / "site.pot"
    subprocess.run([sys.executable, "-m", "macros.messages", "extract", str(fresh)], cwd=ROOT, check=True)
    committed = (ROOT / "locales" / "site.pot").read_text("utf-8")
    assert messages.without_dates(fresh.read_text("utf-8")) == messages.without_dates(committed)


def test_the_french_catalog_holds_the_template_and_nothing_else():
    template = {(m.context, m.id) for m in read(ROOT / "locales" / "site.pot") if m.id}
    french = read(FRENCH)
    assert {(m.context, m.id) for m in french if m.id} == template
    assert not french.obsolete


def test_the_extraction_finds_every_table_and_every_unmapped_reason():
    used = {u.context: u for u in used_messages()}
    assert {f"labels.{k}" for k in LABELS.source} <= set(used)
    assert {f"reasons.{k}" for k in TEMPLATES} <= set(used)
    records = yaml.safe_load((ROOT / "catalog" / "validation" / "records.yaml").read_text("utf-8"))["records"]
    unmapped = [r for r in records if r.get("unmapped")]
    assert len(unmapped) >= 10
    for record in unmapped:
        assert used[f"unmapped.{record['id']}"].msgid == record["unmapped"]
    where = used["labels.node"].where[0]
    path, line = where.split(":")
    assert '"node": "Node"' in (ROOT / path).read_text("utf-8").splitlines()[int(line) - 1]


def test_libyaml_extracts_the_catalog_texts_at_the_lines_the_pure_parser_gives(monkeypatch):
    """The catalog's extractor composes the YAML with libyaml when PyYAML has it: every text,
    context and line is the one PyYAML's own parser gives."""
    files = [*sorted((ROOT / "catalog").glob("*.yaml")), ROOT / "catalog" / "validation" / "records.yaml"]

    def extracted() -> list[tuple[int, str, tuple[str, ...], list[str]]]:
        found = []
        for path in files:
            with path.open("rb") as handle:
                found += list(message_extractors.extract_catalog(handle, (), (), {}))
        return found

    assert yaml.__with_libyaml__, "PyYAML without libyaml: the build's check composes the catalog in Python"
    fast = extracted()
    monkeypatch.setattr(message_extractors, "LIBYAML", False)
    assert fast == extracted()
    assert len(fast) >= 100 and {message[2][0].split(".")[0] for message in fast} == {"catalog", "unmapped"}


def test_a_message_that_is_not_a_literal_is_refused_with_its_line():
    source = b'WORDS = Messages("x", {\n    "a": "A",\n    "b": f"{A}",\n})\n'
    handle = io.BytesIO(source)
    handle.name = "example.py"
    with pytest.raises(ValueError, match=r"example\.py:3: x\.b"):
        list(extract_tables(handle, (), (), {}))


# --- what the build refuses ----------------------------------------------------------------------


def test_a_missing_french_message_is_named_with_where_the_code_uses_it(locales_copy):
    po = locales_copy / "fr" / "LC_MESSAGES" / "site.po"
    rewrite(po, lambda catalog: catalog.delete("Node", context="labels.node"))
    problems = check("fr")
    assert len(problems) == 1
    assert 'missing: msgctxt "labels.node" msgid "Node" (macros/i18n/labels.py:' in problems[0]
    with pytest.raises(MessagesError, match='msgid "Node"'):
        messages.compile_locale("fr")


def test_a_fuzzy_or_empty_french_message_is_refused(locales_copy):
    po = locales_copy / "fr" / "LC_MESSAGES" / "site.po"

    def spoil(catalog):
        catalog.get("Fits on one card: {need} GB of {capacity} GB.", context="reasons.single").flags.add("fuzzy")
        catalog.get("Node", context="widget.col_node").string = ""

    rewrite(po, spoil)
    problems = "\n".join(check("fr"))
    assert 'fuzzy: msgctxt "reasons.single" msgid "Fits on one card: {need} GB of {capacity} GB."' in problems
    assert "macros/fitengine/reasons.py:" in problems
    assert 'untranslated: msgctxt "widget.col_node" msgid "Node"' in problems


def test_a_translation_that_loses_a_placeholder_is_refused(locales_copy):
    po = locales_copy / "fr" / "LC_MESSAGES" / "site.po"

    def spoil(catalog):
        catalog.get("Fits on one card: {need} GB of {capacity} GB.", context="reasons.single").string = "Tient."

    rewrite(po, spoil)
    assert any("placeholders [] instead of ['capacity', 'need']" in p for p in check("fr"))


def test_the_build_stops_naming_the_message(locales_copy, tmp_path):
    """`python -m macros.build.build_site` (what `make site` runs) on a catalog with a fuzzy entry."""
    po = locales_copy / "fr" / "LC_MESSAGES" / "site.po"
    rewrite(po, lambda catalog: catalog.get("Price per month", context="labels.price_month").flags.add("fuzzy"))
    target = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "macros.build.build_site", str(target)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "SITE_LOCALES": str(locales_copy)},
        timeout=300,
    )
    assert done.returncode == 1
    assert 'fuzzy: msgctxt "labels.price_month" msgid "Price per month" (macros/i18n/labels.py:' in done.stderr
    assert "message catalogs" in done.stderr
    assert not target.exists()


# --- what the catalogs say ----------------------------------------------------------------------


def test_every_french_translation_keeps_the_placeholders_of_its_msgid():
    faults = []
    for message in read(FRENCH):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        texts = message.string if isinstance(message.string, tuple) else (message.string,)
        for index, text in enumerate(texts):
            want = placeholders(ids[min(index, len(ids) - 1)])
            if placeholders(text) != want:
                faults.append(f"{message.context}[{index}]: {sorted(placeholders(text))} for {sorted(want)}")
    assert faults == []


def test_french_plurals_follow_french_rules():
    french = read(FRENCH)
    assert french.plural_forms == "nplurals=2; plural=(n > 1);"  # 0 and 1 singular (CLDR, French)
    labels, widget = LABELS["fr"], WIDGET["fr"]
    assert labels["at_users_one"].format(n="1") == "à 1\u00a0utilisateur"
    assert labels["at_users_many"].format(n="8") == "à 8\u00a0utilisateurs"
    assert (widget["users_one"], widget["users_many"]) == ("{n} utilisateur simultané", "{n} utilisateurs simultanés")
    assert LABELS["en"]["unit_bytes_one"] == "byte" and LABELS["en"]["unit_bytes_many"] == "bytes"


def test_french_words_come_from_the_catalog_and_english_from_the_code():
    assert LABELS["en"]["node"] == "Node" and LABELS["fr"]["node"] == "Nœud"
    french = read(FRENCH)
    for key in ("single", "no_memory", "layout_heads"):
        assert words(TEMPLATES, "fr")[key] == french.get(TEMPLATES[key], context=f"reasons.{key}").string
    # A forced layout the runtime refuses is worded as the verdicts word it.
    assert WIDGET["fr"]["err_layout_heads"] == words(TEMPLATES, "fr")["layout_heads"]


def test_the_source_strings_keep_no_french_and_the_french_catalog_no_english_key():
    """English is the msgids' language: the tables hold no French letter, every French text differs
    from its msgid but where the word is the same in both (acronyms, product names, units)."""
    accents = re.compile(r"[àâçéèêëîïôûùüÿœæ]")
    assert [u.context for u in used_messages() if accents.search(str(u.msgid))] == []
    same = [
        m.context
        for m in read(FRENCH)
        if isinstance(m.id, str) and m.id and m.string == m.id and re.search(r"[a-z]{4} [a-z]{3}", m.id)
    ]
    assert same == []


# --- what the browser gets ------------------------------------------------------------------------


def test_the_engine_words_shipped_to_the_browser_are_the_catalogs(tmp_path):
    from macros.build.shipping import ship_messages

    hashes = ship_messages(tmp_path)
    for locale in codes():
        path = tmp_path / "messages" / f"{locale}.json"
        assert json.loads(path.read_text("utf-8")) == words(TEMPLATES, locale)
        assert hashes[f"messages/{locale}.json"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert json.loads((tmp_path / "messages" / "en.json").read_text("utf-8")) == dict(TEMPLATES)


def test_the_browser_session_speaks_the_locale_it_is_given(catalog_data):
    from macros.fitengine.browser import Session

    catalog_json = json.dumps(catalog_data)
    request = json.dumps({"model": "llama-3.3-70b", "format": "bf16"})
    french = Session(catalog_json, json.dumps({"fr": words(TEMPLATES, "fr")}))
    reply = json.loads(french.answer_json(request, "fr", str))
    assert reply["ok"] and any("carte" in row["reason_text"] for row in reply["result"]["rows"])
    refused = json.loads(Session(catalog_json).answer_json(request, "fr", str))
    assert not refused["ok"] and "no messages for the locale 'fr'" in refused["error"]


def test_compiled_catalogs_are_build_outputs():
    assert not list((ROOT / "locales").rglob("*.mo"))
    ignored = subprocess.run(["git", "check-ignore", "-q", ".cache/locales/fr/LC_MESSAGES/site.mo"], cwd=ROOT)
    assert ignored.returncode == 0


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU gettext's msgfmt is not installed")
def test_gnu_msgfmt_accepts_the_french_catalog():
    """The usual tools read it: msgfmt --check (header, plural forms, python-brace-format)."""
    done = subprocess.run(["msgfmt", "--check", "-o", os.devnull, str(FRENCH)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# --- the engine's refusals ------------------------------------------------------------------------

# Refusals a page never words, with why: the worker's own faults, and what the checker's page
# has already refused in its words (MEASURE's too_long) or cannot send (its own select's values).
UNWORDED = {
    "browser.py": ("no messages for the locale", "the request is not JSON"),
    "measure.py": ("unknown measurement", "unknown node", "the paste must be text", "the paste holds"),
}


def engine_refusals() -> tuple[set[str], list[str]]:
    """The codes of every EngineError the engine raises, and the refusals without a code."""
    import ast

    codes, uncoded = set(), []
    for path in sorted((ROOT / "macros" / "fitengine").glob("*.py")):
        source = path.read_text("utf-8")
        for node in ast.walk(ast.parse(source)):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            args = node.args
            if node.func.id == "unknown" and args and isinstance(args[0], ast.Constant):
                codes.add(f"unknown_{args[0].value}")
            elif node.func.id == "EngineError" and len(args) >= 2:
                if isinstance(args[1], ast.Constant):
                    codes.add(args[1].value)
            elif node.func.id == "EngineError":
                text = ast.get_source_segment(source, args[0]) if args else ""
                if not any(text.lstrip("f\"'").startswith(start) for start in UNWORDED.get(path.name, ())):
                    uncoded.append(f"{path.name}:{node.lineno}: {text[:80]}")
    return codes, uncoded


def test_every_refusal_of_the_engine_has_a_code_and_words_in_every_locale():
    from macros.i18n import MEASURE

    raised, uncoded = engine_refusals()
    assert uncoded == []
    assert {"config_encoder_decoder", "config_quant_no_method", "unknown_model", "topo_empty"} <= raised
    for locale in codes():
        worded = {k[4:] for k in (*WIDGET[locale], *MEASURE[locale]) if k.startswith("err_")}
        assert sorted(raised - worded) == [], locale


def test_a_pasted_config_the_site_cannot_size_is_refused_in_french(catalog_data):
    """The refusal the French page showed in English ("config.json describes …, which this site
    cannot size"), now by its code, in the page's words."""
    from macros.fitengine.browser import Session

    session = Session(json.dumps(catalog_data), json.dumps({"fr": words(TEMPLATES, "fr")}))
    config = {"architectures": ["T5ForConditionalGeneration"], "model_type": "t5", "is_encoder_decoder": True}
    reply = json.loads(session.answer_json(json.dumps({"config": config, "format": "bf16"}), "fr", str))
    assert not reply["ok"] and reply["code"] == "config_encoder_decoder"
    said = WIDGET["fr"]["err_config_encoder_decoder"].format(**reply["params"])
    assert said.startswith(
        "Le config.json décrit T5ForConditionalGeneration (model_type 't5'), un modèle encodeur-décodeur"
    )


# --- the catalog's texts (catalog/*.yaml) ---------------------------------------------------------

CATALOG_FILES = ("assumptions", "runtimes", "formats", "validation/records")


def catalog_yaml(name: str):
    return yaml.safe_load((ROOT / "catalog" / f"{name}.yaml").read_text("utf-8"))


def text_paths(data, path=()):
    """Every `{en: ...}` text of a catalog document, by its path (a list item by its id), read here
    independently of macros/messages.py."""
    if isinstance(data, dict):
        if path and set(data) == {"en"}:
            yield path, data["en"]
            return
        for key, value in data.items():
            yield from text_paths(value, (*path, key))
    elif isinstance(data, list):
        for index, item in enumerate(data):
            yield from text_paths(item, (*path, item.get("id", str(index)) if isinstance(item, dict) else str(index)))


def test_every_catalog_text_is_a_message_with_its_file_and_entry_as_context():
    used = {u.context: u for u in used_messages()}
    texts = {}
    for name in CATALOG_FILES:
        for path, english in text_paths(catalog_yaml(name)):
            texts[".".join(("catalog", *path))] = (english, name)
    # the constants' words, the formats' quality notes and the misses are all there
    assert "catalog.runtimes.llama-cpp.request_overhead.explain" in texts
    assert "catalog.assumptions.hours_per_month.label" in texts and "catalog.formats.nf4.quality" in texts
    assert any(k.startswith("catalog.records.") and k.endswith(".miss") for k in texts)
    for context, (english, name) in texts.items():
        assert used[context].msgid == english, context
        assert all(w.startswith(f"catalog/{name}.yaml:") for w in used[context].where), context
    assert sorted(c for c in used if c.startswith("catalog.")) == sorted(texts)


def test_the_catalog_yaml_keeps_no_french_and_refuses_it_by_name(tmp_path):
    """French lives in the message catalog alone: a `fr:` text in the YAML is refused, saying where
    the words go."""
    from macros.catalog_loader import read_catalog

    for name in CATALOG_FILES:
        text = (ROOT / "catalog" / f"{name}.yaml").read_text("utf-8")
        assert not re.search(r"^\s*fr:|[{,] fr: ", text, re.M), name
    copy = tmp_path / "catalog"
    shutil.copytree(ROOT / "catalog", copy)
    path = copy / "assumptions.yaml"
    english = 'label: {en: "Hours billed per month"}'
    source = path.read_text("utf-8")
    assert english in source
    path.write_text(source.replace(english, 'label: {en: "Hours billed per month", fr: "Heures"}'), "utf-8")
    _, problems = read_catalog(copy)
    said = [str(p) for p in problems]
    assert len(said) == 1 and "hours_per_month" in said[0] and "label" in said[0], said
    assert "site.po" in said[0] and "got fr too" in said[0]


def test_a_page_reads_a_catalog_text_in_its_locale_from_the_compiled_catalog(catalog_data):
    french = read(FRENCH)
    label = catalog_data["assumptions"]["hours_per_month"]["label"]
    entry = french.get(label["en"], context="catalog.assumptions.hours_per_month.label")
    assert entry is not None and entry.string and entry.string != label["en"]
    assert (
        label["fr"] == entry.string
        and label["en"] == catalog_yaml("assumptions")["assumptions"]["hours_per_month"]["label"]["en"]
    )
    assert label.get("xx") is None  # a locale without a catalog has no words
    nf4 = next(f for f in catalog_data["formats"] if f["id"] == "nf4")
    assert nf4["quality"]["fr"] == french.get(nf4["quality"]["en"], context="catalog.formats.nf4.quality").string
    assert json.loads(json.dumps(label)) == {"en": label["en"]}  # the data stays plain JSON


def test_a_catalog_text_the_french_catalog_lacks_stops_the_build_by_name(locales_copy):
    from macros.catalog_loader import read_catalog

    po = locales_copy / "fr" / "LC_MESSAGES" / "site.po"
    context = "catalog.runtimes.llama-cpp.request_overhead.explain"
    english = catalog_yaml("runtimes")["runtimes"][1]["request_overhead"]["explain"]["en"]
    rewrite(po, lambda catalog: catalog.delete(english, context=context))
    problems = check("fr")
    assert len(problems) == 1 and f'missing: msgctxt "{context}"' in problems[0]
    assert "catalog/runtimes.yaml:" in problems[0]
    data, _ = read_catalog()
    with pytest.raises(MessagesError, match=re.escape(context)):
        data["runtimes"][1]["request_overhead"]["explain"]["fr"]


def test_a_text_of_another_catalog_folder_the_messages_lack_is_refused_not_shown_in_english():
    """A catalog folder other than catalog/ (GUIDE_CATALOG) may hold a text `make messages` never
    extracted: the French page stops on it by name instead of showing the English."""
    text = messages.CatalogText("catalog.assumptions.new_constant.label", "A constant no catalog translates")
    assert text["en"] == "A constant no catalog translates"
    with pytest.raises(MessagesError, match=r"catalog\.assumptions\.new_constant\.label"):
        text["fr"]


@pytest.mark.parametrize("locale", codes())
def test_the_methodology_page_shows_each_constants_words_in_its_locale(site, locale, catalog_data):
    """Every runtime constant's and assumption's name and meaning on the built methodology page is
    the locale's: the YAML's English on the English page, the catalog's msgstr on the French one."""
    from html import unescape

    from .test_site import page_file

    html = unescape(page_file(site, locale, "methodology").read_text("utf-8"))
    catalog = None if locale == messages.MSGID_LANGUAGE else read(messages.po_path(locale))
    items = [(("assumptions", key), item) for key, item in catalog_yaml("assumptions")["assumptions"].items()]
    for runtime in catalog_yaml("runtimes")["runtimes"]:
        items += [(("runtimes", runtime["id"], key), v) for key, v in runtime.items() if isinstance(v, dict)]
    shown = 0
    for path, item in items:
        for field in ("label", "explain"):
            if field not in item:
                continue
            english = item[field]["en"]
            want = (
                english if catalog is None else catalog.get(english, context=".".join(("catalog", *path, field))).string
            )
            assert want in html, (path, field)
            shown += 1
            if catalog is not None and field == "explain":
                assert english not in html, (path, field)
    assert shown >= 100
