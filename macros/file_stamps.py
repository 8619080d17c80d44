"""Whether a file changed since it was read, as the build's caches ask it: its modification time
and size. One definition for every cache that reads a file again only after an edit (the catalog,
the locale configs, the validation records, the chart's modules)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def stamp(path: Path) -> tuple[int, int]:
    """The file's modification time (ns) and size."""
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


def stamps(paths: Iterable[Path]) -> tuple[tuple[str, int, int], ...]:
    """Each existing file's name, time and size, in the order given: equal while none changed."""
    return tuple((str(p), *stamp(p)) for p in paths if p.is_file())


_read: dict[tuple[Path, Callable[..., Any]], tuple[tuple[int, int], Any]] = {}


def read_when_changed(path: Path, parse: Callable[[str], T]) -> T:
    """`parse` of the file's text, parsed again only when the file changed. The result is shared:
    a caller that may modify it copies it."""
    now = stamp(path)
    kept = _read.get((path, parse))
    if kept is None or kept[0] != now:
        kept = _read[(path, parse)] = (now, parse(path.read_text(encoding="utf-8")))
    return kept[1]
