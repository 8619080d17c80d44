"""The configurator's Pyodide memory snapshot: Pyodide started with the engine imported, saved by Node.

`make site` runs `macros/build/pyodide_snapshot.mjs` with the pinned Pyodide (node_modules/pyodide)
on the engine files the site ships, and writes beside them:

    site/engine/snapshot-<hash>.bin    the heap after `import fitengine.browser` (about 31 MB, of
                                       which the 10 MB of pages not all zeros are shipped), masked,
                                       in parts of `PART_BYTES` at most, each named by its hash
    site/engine/stdlib-<hash>.zip      the standard library modules the engine's import added,
                                       all the restored runtime reads (it holds the rest imported)

and names them in the manifest (`snapshot`) with their SHA-256, the Pyodide version and the
engine files the heap holds. The names carry the hash, so a host may cache them for good. The
worker restores the snapshot only when all of these match, and starts Pyodide plainly otherwise.

Masked: the heap's first region (about 4 MB: the wasm's data segments) holds many blocks that
Python's start left as the runtime had them: those are stored as zeros, and the worker takes
them back from its own runtime's memory just before the restore (XOR); `base` in the manifest
says where, which blocks are stored as they are (`raw`: changed by the start, or different from
start to start, as random seeds), and the masked blocks' SHA-256, checked first (a mismatch is
the plain start). It takes a third off the compressed snapshot without fetching the wasm twice.

Why parts: a browser keeps a response in its HTTP cache only below a size limit, and the lowest
is the in-memory cache of a private window: there (Chromium 156, measured by the bench) the
snapshot as one file (31 MB then, 10 MB since its pages of zeros are left out) was fetched again
on every visit, while 4 MiB parts come from the cache. The worker fetches and checks them side by side.

The builder starts Pyodide with `PYTHONNODEBUGRANGES=1` (Python's `-X no_debug_ranges`: the
code in the heap keeps each instruction's line but not the columns tracebacks underline) and
`PYTHONOPTIMIZE=2` (`-OO`: no docstrings, no `assert`), and with `snapshot_site.py` as its
`sitecustomize` (optional modules left out; no line numbers in the standard library's code;
once the engine is imported, the modules Pyodide's start imported for coroutines and package
installs emptied; once the free heap is zeroed, the standard streams made again, since their
first buffers held stale bytes): 3.91 MB gzip before these, 2.42 MB after (README, "The configurator").

A snapshot depends only on Pyodide, the engine's files, the builder and snapshot_site.py: it is
kept in `.cache/snapshot/` under a key of the four, so a build that changed none is not slowed. The
cache keeps the `KEEP` snapshots used last.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BUILDER = Path(__file__).with_suffix(".mjs")
SITE_MODULE = Path(__file__).with_name("snapshot_site.py")  # the builder's Pyodide runs it at start
CACHE = ROOT / ".cache" / "snapshot"
STDLIB_PREFIX = "/lib/python"
OFF = ("0", "off", "no", "false")
# The snapshot is shipped in parts of at most this size (the worker fetches and checks them side
# by side). One part, measured (bench/results.md, 2026-12-02): with 4 MiB parts a private
# window's in-memory cache kept them for return visits, but the first visit's parallel downloads
# made the configurator ready 0.4 to 0.6 s later on the bench's 2-core machine (ready ratio 0.55
# against 0.47 as one file). Lower it for a host that limits a file's size.
PART_BYTES = 64 << 20
# The heap's pages of this size that are all zeros are not shipped (about two thirds of its 31 MB:
# the gap between the wasm's data and Python's heap, and the heap's free top): the worker's buffer
# starts as zeros. Twenty fewer megabytes for the browser to inflate, hash and copy on every visit.
PAGE_BYTES = 4096


class SnapshotError(RuntimeError):
    """Node could not make the snapshot; the message says what it printed."""


def enabled() -> bool:
    """`SITE_SNAPSHOT=off` builds the site without a snapshot (the worker then starts Pyodide plainly)."""
    return os.environ.get("SITE_SNAPSHOT", "on").strip().lower() not in OFF


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# Snapshots kept in the cache (each about 10 MB): the one in use and the ones used last, so an
# engine edited back and forth is not remade each time. Older ones go when a new one is made.
KEEP = 3
STAGING_SECONDS = 24 * 3600

# What a cache folder holds (bumped when that changes, so an older folder is made again).
CACHE_FORM = 2


def _key(engine_hashes: dict[str, str], version: str) -> str:
    parts = {
        "pyodide": version,
        "builder": _sha256(BUILDER.read_bytes()),
        "site": _sha256(SITE_MODULE.read_bytes()),
        "engine": engine_hashes,
        "form": CACHE_FORM,
    }
    return _sha256(json.dumps(parts, sort_keys=True).encode())[:24]


def _make(engine_dir: Path, out: Path) -> dict[str, Any]:
    """Run the Node builder; its JSON says which stdlib files the engine's import added."""
    from macros.build.pyodide_dist import PYODIDE

    node = shutil.which("node")
    if node is None:
        raise SnapshotError(
            "node is not installed: the Pyodide snapshot is made with Node (SITE_SNAPSHOT=off skips it)"
        )
    run = subprocess.run(
        [node, str(BUILDER), str(PYODIDE), str(engine_dir), str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if run.returncode != 0 or not out.is_file():
        lines = [line.strip() for line in run.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if "Error" in line and len(line) < 400]
        tail = (errors or lines or ["(nothing printed)"])[0][:300]
        raise SnapshotError(f"making the Pyodide snapshot failed (node exited {run.returncode}): {tail}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def _stdlib_zip(files: list[str], out: Path) -> None:
    """The restored runtime's standard library: only the given files of Pyodide's zip, as they are there."""
    from macros.build.pyodide_dist import PYODIDE

    with zipfile.ZipFile(PYODIDE / "python_stdlib.zip") as source, zipfile.ZipFile(out, "w") as target:
        for path in sorted(files):
            # /lib/python314.zip/decimal.py -> decimal.py
            inner = path.split(".zip/", 1)[1] if ".zip/" in path else None
            if inner is None:
                raise SnapshotError(f"the engine imported {path}, which is not in Pyodide's standard library zip")
            info = source.getinfo(inner)
            target.writestr(info, source.read(inner))


def cached_snapshot(engine_dir: Path, engine_hashes: dict[str, str], version: str) -> Path:
    """The folder holding stored.bin, stdlib.zip and info.json for this engine and Pyodide.

    stored.bin is the heap's stored ranges end to end, what the site ships; info.json says which
    ranges (`heap.stored`), the whole heap's size and SHA-256, and the masked region (`base`):
    worked out once, when the snapshot is made, not on each build that ships it."""
    folder = CACHE / _key(engine_hashes, version)
    if (folder / "info.json").is_file():
        with contextlib.suppress(OSError):  # a read-only cache is still a cache
            os.utime(folder)  # used: pruning keeps the folders used last
        return folder
    CACHE.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=CACHE, prefix=".making-"))
    try:
        info = _make(engine_dir, staging / "snapshot.bin")
        if info.get("engine") != engine_hashes:
            raise SnapshotError("the snapshot's engine files are not the ones the site ships")
        _stdlib_zip(info["stdlib"], staging / "stdlib.zip")
        heap = (staging / "snapshot.bin").read_bytes()
        stored = stored_ranges(heap)
        (staging / "stored.bin").write_bytes(b"".join(heap[start:end] for start, end in stored))
        (staging / "snapshot.bin").unlink()
        info["heap"] = {"sha256": _sha256(heap), "bytes": len(heap), "stored": stored}
        (staging / "info.json").write_text(json.dumps(info, sort_keys=True))
        shutil.rmtree(folder, ignore_errors=True)
        staging.rename(folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    prune_cache(folder)
    return folder


def prune_cache(current: Path) -> None:
    """Remove the cache's older snapshots: `current` and the `KEEP - 1` folders used last stay, and
    a build's staging folder stays a day (one left by a build that was killed is then removed)."""
    folders: list[tuple[float, Path]] = []
    old: list[Path] = []
    stale = time.time() - STAGING_SECONDS
    for entry in CACHE.iterdir():
        try:
            if not entry.is_dir() or entry == current:
                continue
            used = entry.stat().st_mtime
        except OSError:  # gone meanwhile: another build renamed or removed it
            continue
        if not entry.name.startswith(".making-"):
            folders.append((used, entry))
        elif used < stale:
            old.append(entry)
    folders.sort(reverse=True)
    for folder in [entry for _, entry in folders[KEEP - 1 :]] + old:
        shutil.rmtree(folder, ignore_errors=True)


def _ship(engine: Path, kind: str, suffix: str, data: bytes, keep: set[str]) -> dict[str, Any]:
    """Write `data` as engine/<kind>-<hash>.<suffix> (unless it is there) and say what the manifest names."""
    digest = _sha256(data)
    target = engine / f"{kind}-{digest[:16]}.{suffix}"
    if not target.is_file():
        target.write_bytes(data)
    keep.add(target.name)
    return {"file": target.name, "sha256": digest, "bytes": len(data)}


def stored_ranges(heap: bytes, page: int = PAGE_BYTES) -> list[list[int]]:
    """The ranges `[from, to)` of `heap` to ship: its pages that are not all zeros, neighbours joined."""
    zeros = bytes(page)
    ranges: list[list[int]] = []
    for at in range(0, len(heap), page):
        chunk = heap[at : at + page]
        if chunk == zeros[: len(chunk)]:
            continue
        if ranges and ranges[-1][1] == at:
            ranges[-1][1] = at + len(chunk)
        else:
            ranges.append([at, at + len(chunk)])
    return ranges


def ship_snapshot(shared: Path) -> None:
    """Put the snapshot (in parts) and its standard library in site/engine/ and name them in the manifest."""
    from macros.build.pyodide_dist import PYODIDE, pyodide_version

    engine = shared / "engine"
    manifest_path = engine / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    folder = cached_snapshot(engine, manifest["files"], pyodide_version())
    entry: dict[str, Any] = {"pyodide": pyodide_version(), "engine": manifest["files"]}
    keep: set[str] = set()
    info = json.loads((folder / "info.json").read_text())
    stream = (folder / "stored.bin").read_bytes()
    parts = [
        _ship(engine, "snapshot", "bin", stream[at : at + PART_BYTES], keep) for at in range(0, len(stream), PART_BYTES)
    ]
    heap = info["heap"]
    entry["snapshot"] = {
        "sha256": heap["sha256"],
        "bytes": heap["bytes"],
        "stored": heap["stored"],
        "parts": parts,
        "base": info["base"],
    }
    entry["stdlib"] = _ship(engine, "stdlib", "zip", (folder / "stdlib.zip").read_bytes(), keep)
    # The restored runtime loads no package: it is given the lock file's `info` (which Pyodide
    # checks against itself) and an empty package list, instead of fetching pyodide-lock.json.
    entry["lock_info"] = json.loads((PYODIDE / "pyodide-lock.json").read_text())["info"]
    for old in (*engine.glob("snapshot-*.bin"), *engine.glob("stdlib-*.zip")):
        if old.name not in keep:
            old.unlink()
    manifest["snapshot"] = entry
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
