"""Read the catalog's YAML files, validate them, and build the engine's `Catalog`.

Validation runs in two passes and reports every problem at once, each naming the file, the
entry, the field and what was expected: JSON Schema first (types, units, required fields),
then the cross-references and physical sense in `macros.catalog_checks`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from macros.catalog_checks import Problem, check, non_finite, too_long
from macros.file_stamps import stamp, stamps
from macros.fitengine.catalog import Catalog
from macros.messages import catalog_texts

CATALOG_DIR = Path(__file__).resolve().parent.parent / "catalog"

# Each catalog file and the schema that describes it (catalog/schema/<name>.schema.json).
FILES = (
    "gpus",
    "interconnects",
    "nodes",
    "formats",
    "runtimes",
    "models",
    "assumptions",
    "api_prices",
    "image_timings",
)


class CatalogError(Exception):
    """The catalog is invalid; `problems` lists everything found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        count = len(problems)
        lines = [f"The catalog has {count} problem{'s' if count != 1 else ''}:"]
        lines += [f"  - {p}" for p in problems]
        super().__init__("\n".join(lines))


_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when PyYAML has it


class _UniqueKeyLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """A YAML loader that refuses a key given twice in one mapping (YAML would keep the last)."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if not isinstance(key, str):  # `? [a, b]`, `1:`, `true:`: every catalog key is a name
            raise yaml.constructor.ConstructorError(
                None, None, f"expected a key that is a name, got {_short(key)}", key_node.start_mark
            )
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"key {key!r} appears twice in one mapping", key_node.start_mark
            )
        seen.add(key)
    return yaml.constructor.SafeConstructor.construct_mapping(loader, node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)

MAX_DEPTH = 32  # mappings and lists inside one another: the catalog's deepest is 5
MAX_DIGITS = 30  # of a plain number: the catalog's longest has 15 (an integer beyond 4,300 digits stops int())
_NUMBERISH = re.compile(r"[-+]?[0-9][0-9_,.:eE+-]*")
# What YAML 1.1 (PyYAML) reads as a number though it is not written in decimal digits: 0x8, 010
# (octal: 8), 0b1000, 1_000 and 1:30 (sexagesimal: 90) are all numbers other than they look.
_NOT_DECIMAL = re.compile(
    r"[-+]?(?:0[xX][0-9a-fA-F_]*|0[bB][01_]*|0[oO]?[0-7_]+|[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?"
    r"|[0-9][0-9.]*_[0-9_.]*(?:[eE][-+]?[0-9]+)?)"
)


def _first_refused(text: str) -> tuple[yaml.Event, str] | None:
    """The first event of a YAML text the catalog refuses, with why, found before anything is built.

    Aliases (`*name`): one anchor repeated by aliases of aliases grows a few kilobytes into
    gigabytes (the "billion laughs"), and the catalog has no need of them. Nesting deeper than
    MAX_DEPTH: building and walking it would exhaust Python's stack. A plain number of more
    digits than MAX_DIGITS: no figure has them, and int() refuses beyond 4,300. A number YAML 1.1
    reads other than it looks (`count: 0x8` is 8, `010` is 8, `1:30` is 90).
    """
    depth = 0
    for event in yaml.parse(text, Loader=_BaseLoader):
        if isinstance(event, yaml.AliasEvent):
            return event, f"expected no YAML alias (*{str(event.anchor)[:40]}): write the value out where it is needed"
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                return event, f"expected lists and mappings nested at most {MAX_DEPTH} deep"
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        elif (
            isinstance(event, yaml.ScalarEvent)
            and not event.style  # plain: quoted text is text
            and len(event.value) > MAX_DIGITS
            and _NUMBERISH.fullmatch(event.value)
        ):
            return (
                event,
                f"expected a number of at most {MAX_DIGITS} digits, got one of {len(event.value):,} characters",
            )
        elif isinstance(event, yaml.ScalarEvent) and not event.style and _NOT_DECIMAL.fullmatch(event.value):
            return event, f"expected a number in decimal digits, got {event.value[:40]!r}, which YAML reads otherwise"
    return None


def refused_problem(file: str, event: yaml.Event, why: str) -> Problem:
    mark = event.start_mark
    kind = "(alias)" if isinstance(event, yaml.AliasEvent) else "(syntax)"
    return Problem(file, f"line {mark.line + 1}, column {mark.column + 1}", kind, why)


def _short(value: Any) -> str:
    """A value as a problem may quote it: never the whole of a long one."""
    text = repr(value) if isinstance(value, (str, int, float, bool)) or value is None else type(value).__name__
    return text if len(text) <= 60 else text[:60] + "…"


def _schema_dir(directory: Path) -> Path:
    schema_dir = directory / "schema"
    return schema_dir if schema_dir.is_dir() else CATALOG_DIR / "schema"


def _schemas(directory: Path) -> tuple[Registry, dict[str, dict[str, Any]]]:
    schema_dir = _schema_dir(directory)
    schemas = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in schema_dir.glob("*.schema.json")}
    registry: Registry = Registry().with_resources(
        (name, Resource.from_contents(schema)) for name, schema in schemas.items()
    )
    return registry, schemas


def _entry_label(document: Any, path: list[Any]) -> tuple[str, str]:
    """The entry (its id where it has one) and the field a JSON path points at."""
    if len(path) >= 2 and isinstance(path[1], int):
        items = document.get(path[0]) if isinstance(document, dict) else None
        item = items[path[1]] if isinstance(items, list) and path[1] < len(items) else None
        entry_id = item.get("id") if isinstance(item, dict) else None
        entry = f"{path[0]}[{path[1]}]" + (f" {entry_id}" if isinstance(entry_id, str) else "")
        field = ".".join(str(p) for p in path[2:]) or "(entry)"
        return entry, field
    if path:
        return str(path[0]), ".".join(str(p) for p in path[1:]) or "(entry)"
    return "(file)", "(top level)"


def _schema_problems(file: str, document: Any, validator: Draft202012Validator) -> list[Problem]:
    problems = []
    for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path))):
        leaf = error
        while leaf.context:
            leaf = min(leaf.context, key=lambda e: len(list(e.absolute_path)) * -1)
        entry, field = _entry_label(document, list(leaf.absolute_path))
        problems.append(Problem(file, entry, field, f"expected {_describe(leaf)}"))
    return problems


def _describe(error: Any) -> str:
    validator = error.validator
    value = error.validator_value
    if validator == "const":
        return f"{value!r}, got {_short(error.instance)}"
    if validator == "enum":
        return f"one of {', '.join(map(repr, value))}, got {_short(error.instance)}"
    if validator == "required":
        return error.message.replace("is a required property", "to be present")
    if validator == "type":
        kinds = " or ".join(value) if isinstance(value, list) else value
        return f"a value of type {kinds}, got {_short(error.instance)}"
    if validator in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        words = {
            "minimum": "at least",
            "exclusiveMinimum": "more than",
            "maximum": "at most",
            "exclusiveMaximum": "less than",
        }
        return f"{words[validator]} {value}, got {_short(error.instance)}"
    if validator == "pattern":
        return f"text matching {value}, got {_short(error.instance)}"
    if validator == "additionalProperties":
        if "en" in error.schema.get("properties", {}) and isinstance(error.instance, dict) and "en" in error.instance:
            others = ", ".join(sorted(k for k in error.instance if k != "en"))
            return (
                f"the English text alone (en), got {others} too: a text's other languages are in the message "
                "catalogs, locales/<locale>/LC_MESSAGES/site.po (README.md, make messages)"
            )
        return f"no unknown field ({error.message[:200]})"
    return error.message[:200]


_cache: dict[tuple[Any, ...], tuple[dict[str, Any], list[Problem]]] = {}


def _fingerprint(directory: Path) -> tuple[Any, ...]:
    files = [directory / f"{name}.yaml" for name in FILES] + sorted((directory / "schema").glob("*.json"))
    files += [directory / "validation" / f"{name}.json" for name in BANDS]
    return (str(directory.resolve()), *stamps(files))


def read_catalog(directory: Path | str = CATALOG_DIR) -> tuple[dict[str, Any], list[Problem]]:
    """The merged catalog data and every problem found in it (empty when valid).

    Read once per process while the files are unchanged (a site build asks for each locale);
    callers must not modify the returned data.
    """
    directory = Path(directory)
    key = _fingerprint(directory)
    if key not in _cache:
        _cache.clear()
        _cache[key] = _read_catalog(directory)
    data, problems = _cache[key]
    return data, list(problems)


# Each file's document (None when it has problems) and problems, by path, with the file's and the
# schemas' times and sizes: after an edit of one file (`mkdocs serve`), only that file is read again.
_files: dict[str, tuple[tuple[Any, ...], Any, list[Problem]]] = {}


def _read_catalog(directory: Path) -> tuple[dict[str, Any], list[Problem]]:
    schema_files = sorted(_schema_dir(directory).glob("*.schema.json"))
    schemas_read = stamps(schema_files)
    loaded: tuple[Registry, dict[str, dict[str, Any]]] | None = None
    data: dict[str, Any] = {}
    problems: list[Problem] = []
    for name in FILES:
        file = f"catalog/{name}.yaml"
        path = directory / f"{name}.yaml"
        if not path.is_file():
            problems.append(Problem(file, "(file)", "(file)", f"expected the file {path.name} in {directory}"))
            continue
        now = (*stamp(path), schemas_read)
        kept = _files.get(str(path))
        if kept is None or kept[0] != now:
            if loaded is None:
                loaded = _schemas(directory)
            kept = _files[str(path)] = (now, *_read_file(file, path, name, *loaded))
        _, document, file_problems = kept
        problems += file_problems
        if document is not None:
            data.update(document)
    problems += check(data)
    for name in BANDS:
        band, band_problems = _band(directory, name)
        problems += band_problems
        if band is not None:
            data[name] = band
    return data, problems


# The validation's error bands (catalog/validation/): the sweep's judged part (macros/sweeps.py) and
# the measured points of other cards (macros/silicon.py).
BANDS = ("error_band", "silicon_band")


def _band(directory: Path, name: str) -> tuple[Any, list[Problem]]:
    """One of the validation's error bands (validation/<name>.json), when the catalog has it."""
    path = directory / "validation" / f"{name}.json"
    where = f"catalog/validation/{name}.json"
    if not path.is_file():
        return None, []
    try:
        band = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return None, [Problem(where, "(file)", "(file)", f"expected JSON: {exc}")]
    if not isinstance(band, dict):
        return None, [Problem(where, "(file)", "(file)", "expected a JSON object")]
    return band, []


def _read_file(
    file: str, path: Path, name: str, registry: Registry, schemas: dict[str, dict[str, Any]]
) -> tuple[Any, list[Problem]]:
    """One catalog file's document (None unless it is valid against its schema) and its problems."""
    try:
        text = path.read_text(encoding="utf-8")
        refused = _first_refused(text)
        if refused is not None:
            return None, [refused_problem(file, *refused)]
        document = yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(file)"
        what = getattr(exc, "problem", None) or str(exc)
        return None, [Problem(file, where, "(syntax)", f"expected valid YAML: {what}")]
    except (UnicodeDecodeError, RecursionError, ValueError) as exc:
        # ValueError: a value YAML's constructors cannot build (a date such as 2026-02-30).
        what = {UnicodeDecodeError: "UTF-8 text", RecursionError: "YAML nested less deeply"}.get(
            type(exc), f"values YAML can read ({str(exc)[:120]})"
        )
        return None, [Problem(file, "(file)", "(file)", f"expected {what}")]
    file_problems = non_finite(file, document) + too_long(file, document)
    if file_problems:
        return None, file_problems
    validator = Draft202012Validator(schemas[f"{name}.schema.json"], registry=registry)
    file_problems = _schema_problems(file, document, validator)
    # Each text ({en: English}) gives its other languages from the message catalogs (macros/messages.py).
    return (None if file_problems else catalog_texts(document)), file_problems


def load_catalog(directory: Path | str = CATALOG_DIR) -> Catalog:
    """The validated catalog; raises CatalogError listing every problem."""
    data, problems = read_catalog(directory)
    if problems:
        raise CatalogError(problems)
    return Catalog.from_dict(data)


def read_for_build() -> dict[str, Any]:
    """The catalog a site build uses (GUIDE_CATALOG, or catalog/), as data.

    Raises MkDocs' PluginError listing every problem, so `mkdocs build` and `mkdocs serve` print
    them as a build error, not as a traceback.
    """
    from mkdocs.exceptions import PluginError

    data, problems = read_catalog(os.environ.get("GUIDE_CATALOG") or CATALOG_DIR)
    if problems:
        raise PluginError(str(CatalogError(problems)))
    return data
