"""What any entry of a catalog file can get wrong as text, whatever the file: a text too long to
be a name or a note, an id or a name a reader cannot tell from another's (Unicode look-alikes),
a NaN or an infinity (YAML's .nan and .inf pass JSON Schema's bounds); and the `Problem` every
check of the catalog reports (macros/catalog_checks.py, macros/catalog_loader.py).
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Problem:
    """One thing wrong in the catalog: where (file, entry, field) and what was expected."""

    file: str
    entry: str
    field: str
    expected: str

    def __str__(self) -> str:
        expected = self.expected if len(self.expected) <= MESSAGE_LIMIT else self.expected[:MESSAGE_LIMIT] + "…"
        return f"{self.file}: {self.entry[:80]}: {self.field[:80]}: {expected}"


MESSAGE_LIMIT = 300  # characters of one problem: a message names a value, never echoes a whole one


def unique_ids(items: list[dict[str, Any]] | None, file: str, section: str) -> list[Problem]:
    """Ids found twice in a section, and ids or names that read as another's."""
    if not items:
        return []
    counts = Counter(item["id"] for item in items)
    problems = [
        Problem(file, f"{section} {item_id}", "id", f"expected a unique id, found {n} entries with it")
        for item_id, n in counts.items()
        if n > 1
    ]
    for field in ("id", "name"):  # ids and names a reader could not tell apart from another's
        seen: dict[str, str] = {}
        for item in items:
            value = item.get(field)
            if not isinstance(value, str) or counts.get(value, 0) > 1:
                continue
            key = skeleton(value)
            if key in seen:
                problems.append(
                    Problem(
                        file,
                        f"{section} {item['id']}",
                        field,
                        f"expected {'an id' if field == 'id' else 'a name'} a reader can tell from the others,"
                        f" got {value[:MAX_NAME]!r},"
                        f" which reads as {seen[key][:MAX_NAME]!r}",
                    )
                )
            seen.setdefault(key, value)
    return problems


# Letters of other scripts that print as Latin ones (as capitals, since names are capitalized,
# and as small letters), once case folded, and digits that print as letters: a subset of
# Unicode's confusables (UTS #39, confusables.txt) for the scripts an editor may paste from.
_CONFUSABLE = str.maketrans(
    {
        **dict(zip("авекмнорстухѕіјһԁԛԝӏ", "abekmhopctyxsijhdqwl", strict=True)),  # Cyrillic
        **dict(zip("αβεζηικμνορτυχ", "abezhikmnoptyx", strict=True)),  # Greek
        "0": "o",
        "1": "l",
        "ı": "i",
        "ſ": "s",
    }
)


def skeleton(value: str) -> str:
    """What a value looks like: NFKC, case folded, invisible characters and whitespace runs
    dropped, and look-alike letters of other scripts read as the Latin ones."""
    folded = unicodedata.normalize("NFKC", value).casefold()
    shown = "".join(c for c in folded if unicodedata.category(c) not in ("Cf", "Mn", "Cc"))
    return " ".join(shown.translate(_CONFUSABLE).split())


MAX_NAME = 80  # characters of an id or a name: the longest today has 39


MAX_TEXT = 600  # of any other text (sources, notes, explanations): the longest today has 452


def too_long(file: str, document: Any) -> list[Problem]:
    """Every text of a parsed file longer than a name (ids, names) or a note may be."""
    found: list[Problem] = []

    def walk(value: Any, entry: str, path: list[str]) -> None:
        if isinstance(value, str):
            limit = MAX_NAME if path and path[-1] in ("id", "name") else MAX_TEXT
            if len(value) > limit:
                found.append(
                    Problem(
                        file,
                        entry,
                        ".".join(path) or "value",
                        f"expected at most {limit} characters, got {len(value):,}",
                    )
                )
        elif isinstance(value, dict):
            for key, child in value.items():
                walk(child, entry, [*path, str(key)])
        elif isinstance(value, list):
            for child in value:
                walk(child, entry, path)

    _each_entry(document, walk)
    return found


def non_finite(file: str, document: Any) -> list[Problem]:
    """Every NaN or infinity in a parsed file (YAML's .nan and .inf pass JSON Schema's bounds)."""
    found: list[Problem] = []

    def walk(value: Any, entry: str, path: list[str]) -> None:
        if isinstance(value, float) and not math.isfinite(value):
            found.append(Problem(file, entry, ".".join(path) or "value", f"expected a finite number, got {value}"))
        elif isinstance(value, dict):
            for key, child in value.items():
                walk(child, entry, [*path, str(key)])
        elif isinstance(value, list):
            for index, child in enumerate(value):
                walk(child, entry, [*path, str(index)])

    _each_entry(document, walk)
    return found


def _each_entry(document: Any, walk: Any) -> None:
    """Call walk(value, entry, []) on each entry of a parsed file, named as problems name them."""
    if not isinstance(document, dict):
        walk(document, "(file)", [])
        return
    for key, value in document.items():
        if not isinstance(value, list):
            walk(value, str(key), [])
            continue
        for index, child in enumerate(value):
            named = isinstance(child, dict) and isinstance(child.get("id"), str)
            walk(child, f"{key}[{index}]" + (f" {child['id'][:40]}" if named else ""), [])
