"""The site's words in gettext catalogs: extracted from the code, checked and compiled by Babel.

Every string a reader sees that the build or the engine writes is English in the code, the
messages' source language: tables of `Messages("context", {key: text})` (macros/i18n/,
macros/fitengine/reasons.py), the `unmapped` reasons of catalog/validation/records.yaml, and the
catalog's texts, each `{en: text}` in its YAML (`catalog.<path>` their msgctxt; the loader gives
them as `CatalogText`). Each text is a msgid, `<context>.<key>` its msgctxt (so that one English word can have two French
ones), a pair of texts a message with plural forms. Every other locale's words are in
`locales/<locale>/LC_MESSAGES/site.po`, one file per language that Poedit or msgfmt read.

    make messages    (python -m macros.messages) extract every msgid into locales/site.pot
                     (babel.cfg maps the files to the extractors of macros/message_extractors.py),
                     then merge it into each locale's .po (pybabel update): new messages arrive
                     empty, changed ones fuzzy

The build (`python -m macros.build.build_site`, `make site`) checks each locale's .po against what the
code uses (`check`): a message missing, left empty, fuzzy, or whose translation drops or adds a
placeholder stops it, each named with its msgid and the file:line that uses it. It then compiles
the .po with Babel into .cache/locales/ (a build output, never tracked) and reads the compiled
catalog with the standard library's gettext. The engine's texts reach the browser as data:
`engine_words(locale)`, written to engine/messages/<locale>.json by the build hooks.
"""

from __future__ import annotations

import copy
import gettext
import os
import re
import sys
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

ROOT = Path(__file__).resolve().parent.parent
DOMAIN = "site"
MSGID_LANGUAGE = "en"  # the msgids' language (the code's strings), not the guides' source language (fr)
MAPPING = ROOT / "babel.cfg"
COMPILED = ROOT / ".cache" / "locales"
PLACEHOLDER = re.compile(r"\{(\w*)\}")


def locales_dir() -> Path:
    """Where the catalogs are: locales/, or SITE_LOCALES (a test's copy)."""
    return Path(os.environ.get("SITE_LOCALES") or ROOT / "locales")


def po_path(locale: str) -> Path:
    return locales_dir() / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


class MessagesError(ValueError):
    """A locale's catalog does not translate what the code uses; one line per message."""


# A catalog text: a mapping of language codes to text, English among them (the YAML holds the
# English alone: the other languages are in the message catalogs).
_LANGUAGE_CODE = re.compile(r"[a-z]{2}")


def text_context(path: tuple[str, ...]) -> str:
    """The msgctxt of the catalog text at `path` (top-level key, then ids and field names):
    `catalog.assumptions.hours_per_month.label`, `catalog.runtimes.vllm.layer_overhead.explain`,
    `catalog.formats.nf4.name`, `catalog.records.<record id>.miss`."""
    return ".".join(("catalog", *path))


def is_text(keys: Collection[Any]) -> bool:
    return MSGID_LANGUAGE in keys and all(isinstance(k, str) and _LANGUAGE_CODE.fullmatch(k) for k in keys)


def catalog_texts(data: Any, path: tuple[str, ...] = ()) -> Any:
    """Catalog data read from YAML with each text (`{en: English}`) made a `CatalogText` that
    gives its words in every locale from the message catalogs, at the context the extraction
    gives it (`extract_catalog`); everything else as it was."""
    if isinstance(data, dict):
        if path and is_text(data.keys()) and isinstance(data.get(MSGID_LANGUAGE), str):
            return CatalogText(text_context(path), data[MSGID_LANGUAGE])
        return {k: catalog_texts(v, (*path, str(k))) for k, v in data.items()}
    if isinstance(data, list):
        return [
            catalog_texts(item, (*path, str(item["id"] if isinstance(item, dict) and "id" in item else index)))
            for index, item in enumerate(data)
        ]
    return data


class CatalogText(dict[str, str]):
    """A text of the catalog's YAML in every locale: `text["en"]` is the English the YAML holds
    (the msgid), `text[locale]` the locale's words from its message catalog (msgctxt `context`).

    It is a dict holding its English alone, so that the catalog's data stays plain JSON (the
    engine's catalog.json, the build's cache key); a page asks for its locale as it would of a
    `{en, fr}` mapping. A locale with no catalog is a KeyError; a text its catalog lacks stops the
    build naming the message (MessagesError).
    """

    def __init__(self, context: str, english: str) -> None:
        super().__init__({MSGID_LANGUAGE: english})
        self.context = context

    def __missing__(self, locale: str) -> str:
        if not po_path(locale).is_file():
            raise KeyError(locale)
        return catalog_text(locale, self.context, self[MSGID_LANGUAGE])

    def get(self, locale: str, default: Any = None) -> Any:  # type: ignore[override]
        try:
            return self[locale]
        except KeyError:
            return default

    def __reduce__(self) -> tuple[Any, ...]:
        return CatalogText, (self.context, self[MSGID_LANGUAGE])


# --- what the code uses ----------------------------------------------------------------------


@dataclass(frozen=True)
class Used:
    """A message the code uses: its context and msgid (a pair: singular and plural), and where."""

    context: str
    msgid: str | tuple[str, str]
    where: tuple[str, ...]

    @property
    def shown(self) -> str:
        msgid = self.msgid if isinstance(self.msgid, str) else self.msgid[0]
        return f'msgctxt "{self.context}" msgid "{msgid}" ({", ".join(self.where)})'


def used_messages() -> list[Used]:
    """Every message the files babel.cfg maps hold, extracted as `make messages` does."""
    from babel.messages.extract import extract_from_file
    from babel.messages.frontend import parse_mapping_cfg

    with MAPPING.open(encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg, str(MAPPING))
    found: dict[tuple[str, str | tuple[str, str]], list[str]] = {}
    for pattern, method in method_map:
        for path in sorted(ROOT.glob(pattern)):
            relative = path.relative_to(ROOT).as_posix()
            for lineno, msgid, _comments, context in extract_from_file(method, str(path), options=options_map[pattern]):
                found.setdefault((context or "", msgid), []).append(f"{relative}:{lineno}")
    return [Used(context, msgid, tuple(where)) for (context, msgid), where in found.items()]


# --- checking and compiling a locale ---------------------------------------------------------


def check(locale: str, used: list[Used] | None = None) -> list[str]:
    """What stops `locale`'s catalog from saying everything the code uses: one line each."""
    return _checked(locale, used)[1]


def _checked(locale: str, used: list[Used] | None) -> tuple[Catalog | None, list[str]]:
    """`locale`'s catalog as read (None when there is none) and what `check` says of it."""
    from babel.messages.pofile import read_po

    path = po_path(locale)
    if not path.is_file():
        return None, [
            f"{_shown_path(path)}: no catalog for the locale {locale!r} (make messages creates it from locales/{DOMAIN}.pot)"
        ]
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=locale)
    problems = []
    for use in used if used is not None else used_messages():
        message = catalog.get(use.msgid, context=use.context)
        if message is None:
            problems.append(f"missing: {use.shown}")
        elif message.fuzzy:
            problems.append(f"fuzzy: {use.shown}")
        elif not all(message.string if isinstance(message.string, tuple) else (message.string,)):
            problems.append(f"untranslated: {use.shown}")
        else:
            texts = message.string if isinstance(message.string, tuple) else (message.string,)
            want = placeholders(use.msgid if isinstance(use.msgid, str) else use.msgid[-1])
            for text in texts:
                if placeholders(text) != want and not (len(texts) > 1 and placeholders(text) <= want):
                    problems.append(f"placeholders {sorted(placeholders(text))} instead of {sorted(want)}: {use.shown}")
    return catalog, [f"{_shown_path(path)}: {p}" for p in problems]


def placeholders(text: str) -> set[str]:
    """The `{name}` fields of a text (what str.format fills)."""
    return set(PLACEHOLDER.findall(text))


def _shown_path(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def compile_locale(locale: str, used: list[Used] | None = None) -> Path:
    """Check `locale`'s catalog and compile it with Babel; the compiled file's path.

    Raises MessagesError naming every message missing, fuzzy or with other placeholders.
    """
    from babel.messages.mofile import write_mo

    catalog, problems = _checked(locale, used)
    if problems or catalog is None:
        raise MessagesError(
            f"the {locale!r} message catalog lacks {len(problems)} message(s) the code uses; "
            "run `make messages` and translate them:\n" + "\n".join(problems)
        )
    folder = locales_dir()
    compiled = COMPILED if folder == ROOT / "locales" else folder.with_name(f"{folder.name}.compiled")
    target = compiled / locale / "LC_MESSAGES" / f"{DOMAIN}.mo"
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".mo.partial")
    with partial.open("wb") as handle:
        write_mo(handle, catalog, use_fuzzy=False)
    partial.replace(target)
    return target


def compile_all(locales: Collection[str]) -> None:
    """Check and compile every locale but English (the msgids); MessagesError names every problem."""
    errors = []
    for locale in locales:
        try:
            translations(locale)
        except MessagesError as error:
            errors.append(str(error))
    if errors:
        raise MessagesError("\n".join(errors))


_MSGIDS = gettext.NullTranslations()


def translations(locale: str) -> gettext.NullTranslations:
    """The locale's compiled catalog (the source language's is the code itself)."""
    if locale == MSGID_LANGUAGE:
        return _MSGIDS
    path = po_path(locale)
    stamp = (path.stat().st_mtime_ns, path.stat().st_size) if path.is_file() else (0, 0)
    return _translations(locale, str(path), stamp)


@cache
def _translations(locale: str, path: str, stamp: tuple[int, int]) -> gettext.NullTranslations:
    # Checked and compiled once per version of the .po (`mkdocs serve` reads an edit).
    with compile_locale(locale).open("rb") as handle:
        return gettext.GNUTranslations(handle)


def translated(locale: str, context: str, msgid: str) -> str:
    """One message in `locale`."""
    return translations(locale).pgettext(context, msgid)


def catalog_text(locale: str, context: str, english: str) -> str:
    """A catalog text in `locale` (`CatalogText`); MessagesError when the locale's catalog lacks it
    (a catalog folder other than catalog/, GUIDE_CATALOG, holds texts `make messages` never saw)."""
    if locale == MSGID_LANGUAGE:
        return english
    found = translations(locale)
    text = _strict(found).pgettext(context, english)
    if text is None:
        raise MessagesError(
            f"{_shown_path(po_path(locale))}: missing: msgctxt {context!r} msgid {english!r}: "
            "run `make messages` and translate it"
        )
    return text


class _Absent(gettext.NullTranslations):
    """The last fallback of a strict look-up: None, where gettext would give the msgid back."""

    def pgettext(self, context: str, message: str) -> Any:
        return None


_STRICT: dict[int, tuple[gettext.NullTranslations, gettext.NullTranslations]] = {}


def _strict(found: gettext.NullTranslations) -> gettext.NullTranslations:
    """The same compiled catalog, answering None for a message it does not hold."""
    kept = _STRICT.get(id(found))
    if kept is None or kept[0] is not found:
        strict = copy.copy(found)
        strict._fallback = None
        strict.add_fallback(_Absent())
        kept = _STRICT[id(found)] = (found, strict)
    return kept[1]


def words(table: Mapping[str, Any], locale: str) -> dict[str, str]:
    """A `Messages` table in `locale`'s words; a pair gives `<key>_one` and `<key>_many`."""
    return dict(_words(table, translations(locale)))


_WORDS: dict[tuple[int, int], tuple[Mapping[str, Any], dict[str, str]]] = {}


def _words(table: Mapping[str, Any], found: gettext.NullTranslations) -> dict[str, str]:
    key = (id(table), id(found))
    kept = _WORDS.get(key)
    if kept is not None and kept[0] is table:
        return kept[1]
    context = getattr(table, "context", "")
    out = {}
    for name, text in table.items():
        if isinstance(text, tuple):
            out[f"{name}_one"] = found.npgettext(f"{context}.{name}", *text, 1)
            out[f"{name}_many"] = found.npgettext(f"{context}.{name}", *text, 2)
        else:
            out[name] = found.pgettext(f"{context}.{name}", text)
    _WORDS[key] = (table, out)
    return out


class Localized(Mapping[str, dict[str, str]]):
    """A `Messages` table by locale: `table[locale]` is its words there (see `words`).

    `also` adds words made from another table's, in the same locale.
    """

    def __init__(self, table: Mapping[str, Any], also: Callable[[str], dict[str, str]] | None = None) -> None:
        self.source = table
        self.also = also

    def __getitem__(self, locale: str) -> dict[str, str]:
        from macros.locales import codes

        if locale not in codes():
            raise KeyError(locale)
        found = words(self.source, locale)
        if self.also:
            found.update(self.also(locale))
        return found

    def __iter__(self) -> Iterator[str]:
        from macros.locales import codes

        return iter(codes())

    def __len__(self) -> int:
        from macros.locales import codes

        return len(codes())


def engine_words(locale: str) -> dict[str, str]:
    """The engine's reason texts in `locale`, by code: what the browser's worker passes it."""
    from macros.fitengine.reasons import TEMPLATES

    return words(TEMPLATES, locale)


def every_engine_words_json() -> str:
    """Every locale's engine texts as one JSON object by locale: what `fitengine.browser.Session`
    takes (the browser's worker gives it its page's locale alone)."""
    import json

    from macros.locales import codes

    return json.dumps({locale: engine_words(locale) for locale in codes()}, ensure_ascii=False)


# --- `make messages` ---------------------------------------------------------------------------

EXTRACT_OPTIONS = (
    "--add-location=file",  # files, not lines: a line moved in the code changes no catalog
    "--no-wrap",
    "--project=GPU guides",
    "--version=1",
    "--header-comment=# The GPU guides site's messages, in English (macros/messages.py): "
    "`make messages` writes this file from the code.",
)


def extract(pot: Path) -> None:
    """Babel's extraction of every msgid the code uses into `pot`, as `make messages` runs it."""
    _babel(
        [
            "extract",
            "-F",
            str(MAPPING),
            "-o",
            str(pot),
            *EXTRACT_OPTIONS,
            "--ignore-dirs",
            ".* _* node_modules site",
            ".",
        ]
    )


def update(pot: Path) -> None:
    """Merge `pot` into every locale's catalog (Babel's update; obsolete entries dropped)."""
    _babel(["update", "-i", str(pot), "-d", str(locales_dir()), "-D", DOMAIN, "--no-wrap", "--ignore-obsolete"])


def _babel(args: list[str]) -> None:
    from babel.messages.frontend import CommandLineInterface

    cwd = Path.cwd()
    os.chdir(ROOT)  # the catalogs name files relative to the project
    try:
        CommandLineInterface().run(["pybabel", "--quiet", *args])
    finally:
        os.chdir(cwd)


def main(argv: list[str]) -> int:
    """`python -m macros.messages`: extract into locales/site.pot and update each .po;
    `python -m macros.messages extract FILE`: extract into FILE alone."""
    if argv[:1] == ["extract"] and len(argv) == 2:
        extract(Path(argv[1]).resolve())
        return 0
    if argv:
        print("usage: python -m macros.messages [extract FILE]", file=sys.stderr)
        return 2
    pot = locales_dir() / f"{DOMAIN}.pot"
    fresh = pot.with_suffix(".pot.new")
    extract(fresh)
    if pot.is_file() and without_dates(pot.read_text("utf-8")) == without_dates(fresh.read_text("utf-8")):
        fresh.unlink()  # nothing changed but the date: the catalogs stay as they are
    else:
        fresh.replace(pot)
    update(pot)
    return 0


def without_dates(text: str) -> str:
    """A catalog's text without its creation and revision dates (Babel writes them afresh)."""
    return re.sub(r'^"(POT-Creation-Date|PO-Revision-Date): .*$', "", text, flags=re.MULTILINE)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
