"""The Pyodide memory snapshot (macros/build/pyodide_snapshot.py): what the build ships, and what a page does with it.

The build names the snapshot and its standard library in the manifest, made from the engine
files it ships; restored in Node it answers as the build's engine does; a page restores it,
and a page whose snapshot is missing, corrupt, stale or refused starts Pyodide plainly and
still answers as the build's engine does."""

from __future__ import annotations

import ast
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import types
import zipfile
from pathlib import Path

import pytest

from macros.build import pyodide_snapshot, snapshot_site
from macros.build.pyodide_dist import PYODIDE, pyodide_version
from macros.build.pyodide_snapshot import PAGE_BYTES, PART_BYTES
from macros.fitengine import answer

from .browser import wait_until
from .conftest import ROOT
from .static_server import serve
from .test_configurator import PAGE_PATHS, choose, expected, open_configurator, rows, wait_ready


def snapshot_entry(site):
    return json.loads((site / "engine" / "manifest.json").read_text())


def stream_of(site) -> bytes:
    """The snapshot's parts, end to end: the heap's stored ranges, one after the other."""
    parts = snapshot_entry(site)["snapshot"]["snapshot"]["parts"]
    return b"".join((site / "engine" / part["file"]).read_bytes() for part in parts)


def heap_of(site) -> bytes:
    """The whole heap, as the worker puts it together: zeros, with each stored range in its place."""
    entry = snapshot_entry(site)["snapshot"]["snapshot"]
    heap, stream, at = bytearray(entry["bytes"]), stream_of(site), 0
    for start, end in entry["stored"]:
        heap[start:end] = stream[at : at + end - start]
        at += end - start
    assert at == len(stream)
    return bytes(heap)


def test_the_manifest_names_the_snapshot_made_from_the_shipped_engine(site):
    manifest = snapshot_entry(site)
    entry = manifest["snapshot"]
    assert entry["pyodide"] == pyodide_version() == manifest["pyodide"]
    # The heap holds the files the site ships, byte for byte: the same hashes as the manifest's.
    assert entry["engine"] == manifest["files"]
    shipped = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (site / "engine" / "fitengine").glob("*.py")}
    assert entry["engine"] == shipped
    for part in (*entry["snapshot"]["parts"], entry["stdlib"]):
        data = (site / "engine" / part["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == part["sha256"]
        assert len(data) == part["bytes"]
        assert part["sha256"][:16] in part["file"]  # a new snapshot gets a new name
    # The parts, in order, are the heap the builder saved, none larger than the build's limit.
    heap = heap_of(site)
    assert len(heap) == entry["snapshot"]["bytes"] and hashlib.sha256(heap).hexdigest() == entry["snapshot"]["sha256"]
    sizes = [part["bytes"] for part in entry["snapshot"]["parts"]]
    stream = stream_of(site)
    assert all(0 < size <= PART_BYTES for size in sizes) and sum(sizes) == len(stream)
    assert len(sizes) == -(-len(stream) // PART_BYTES)
    # Only pages of zeros are left out: every page outside the stored ranges is zeros, every
    # stored page holds something, and most of the heap is not shipped.
    stored = entry["snapshot"]["stored"]
    kept = set()
    for start, end in stored:
        assert start % PAGE_BYTES == 0 and (end % PAGE_BYTES == 0 or end == len(heap))
        kept.update(range(start // PAGE_BYTES, -(-end // PAGE_BYTES)))
    for index in range(-(-len(heap) // PAGE_BYTES)):
        page = heap[index * PAGE_BYTES : (index + 1) * PAGE_BYTES]
        assert (index in kept) == any(page), index
    assert len(stream) < len(heap) / 2
    # Only the files the manifest names are shipped: no part of an earlier snapshot is left.
    named = {part["file"] for part in entry["snapshot"]["parts"]}
    assert {p.name for p in (site / "engine").glob("snapshot-*.bin")} == named


def test_the_cache_keeps_the_snapshots_used_last_and_drops_a_killed_builds_staging(tmp_path, monkeypatch):
    monkeypatch.setattr(pyodide_snapshot, "CACHE", tmp_path)
    now = time.time()

    def folder(name: str, age_s: float):
        path = tmp_path / name
        path.mkdir()
        (path / "stored.bin").write_bytes(b"x")
        os.utime(path, (now - age_s, now - age_s))
        return path

    # Five earlier snapshots, an hour apart; the one just made; two builds' staging folders.
    earlier = [folder(f"key{i}", 3600 * (i + 1)) for i in range(5)]
    current = folder("current", 3600 * 10)  # its age does not matter: it is the one in use
    killed, running = folder(".making-killed", 2 * 24 * 3600), folder(".making-running", 60)
    pyodide_snapshot.prune_cache(current)
    kept = sorted(p.name for p in tmp_path.iterdir())
    # The one in use and the KEEP - 1 used last stay; so does a staging folder of the last day.
    last = earlier[: pyodide_snapshot.KEEP - 1]
    assert len(last) < len(earlier)  # some earlier ones are old enough to go
    assert kept == sorted([current.name, *(f.name for f in last), running.name])
    assert not killed.exists()


def test_pruning_passes_over_a_folder_another_build_removes_meanwhile(tmp_path, monkeypatch):
    monkeypatch.setattr(pyodide_snapshot, "CACHE", tmp_path)
    for name in ("current", "gone", "a", "b", "c"):
        (tmp_path / name).mkdir()
    real_stat, real_is_dir = Path.stat, Path.is_dir

    # "gone": a folder when listed, then renamed or removed by another build before its stat.
    def stat(self, *args, **kwargs):
        if self.name == "gone":
            raise FileNotFoundError(self)
        return real_stat(self, *args, **kwargs)

    def is_dir(self):
        return True if self.name == "gone" else real_is_dir(self)

    monkeypatch.setattr(Path, "stat", stat)
    monkeypatch.setattr(Path, "is_dir", is_dir)
    pyodide_snapshot.prune_cache(tmp_path / "current")
    monkeypatch.undo()
    # Not counted and not touched; of a, b and c the two used last stay.
    assert (tmp_path / "gone").is_dir() and (tmp_path / "current").is_dir()
    assert len([n for n in ("a", "b", "c") if (tmp_path / n).is_dir()]) == pyodide_snapshot.KEEP - 1


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_making_a_snapshot_prunes_the_cache(site, tmp_path, monkeypatch):
    monkeypatch.setattr(pyodide_snapshot, "CACHE", tmp_path)
    old = time.time() - 3600
    for i in range(pyodide_snapshot.KEEP + 1):
        (tmp_path / f"older{i}").mkdir()
        os.utime(tmp_path / f"older{i}", (old - i, old - i))
    engine = site / "engine"
    made = pyodide_snapshot.cached_snapshot(engine, snapshot_entry(site)["files"], pyodide_version())
    assert (made / "info.json").is_file() and (made / "stored.bin").is_file()
    newest = [f"older{i}" for i in range(pyodide_snapshot.KEEP - 1)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([made.name, *newest])


def test_a_snapshot_taken_from_the_cache_counts_as_used(tmp_path, monkeypatch):
    monkeypatch.setattr(pyodide_snapshot, "CACHE", tmp_path)
    hashes, version = {"api.py": "0" * 64}, pyodide_version()
    folder = tmp_path / pyodide_snapshot._key(hashes, version)
    folder.mkdir()
    (folder / "info.json").write_text("{}")
    week = time.time() - 7 * 24 * 3600
    os.utime(folder, (week, week))
    assert pyodide_snapshot.cached_snapshot(tmp_path, hashes, version) == folder
    assert folder.stat().st_mtime > week + 24 * 3600

    # A cache the build may not write to is still read.
    def refuse(*args, **kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr(pyodide_snapshot.os, "utime", refuse)
    assert pyodide_snapshot.cached_snapshot(tmp_path, hashes, version) == folder


def test_the_restored_runtime_reads_only_pyodides_own_stdlib_files(site):
    entry = snapshot_entry(site)["snapshot"]
    with (
        zipfile.ZipFile(site / "engine" / entry["stdlib"]["file"]) as small,
        zipfile.ZipFile(PYODIDE / "python_stdlib.zip") as full,
    ):
        names = small.namelist()
        assert names and set(names) < set(full.namelist())
        for name in names:
            assert small.read(name) == full.read(name)


def test_the_engine_holds_no_assert_statement():
    # The snapshot's runtime compiles the engine as `python -OO` does (macros/build/pyodide_snapshot.mjs),
    # which drops `assert`: an engine that checked anything with one would check it at build time
    # and not in the browser.
    found = [
        f"{path.name}:{node.lineno}"
        for path in sorted((ROOT / "macros" / "fitengine").glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.Assert)
    ]
    assert found == []


def run_node(script, template: str, *args: str) -> dict:
    """Write `template` as `script`, with the pinned Pyodide's and snapshot-plan.js's URLs filled in,
    run it with Node and return the JSON it printed last."""
    script.write_text(
        template
        % {
            "pyodide": (PYODIDE / "pyodide.mjs").as_uri(),
            "asm": (PYODIDE / "pyodide.asm.mjs").as_uri(),
            "plan": (ROOT / "overrides" / "assets" / "javascripts" / "snapshot-plan.js").as_uri(),
            "index": f"{PYODIDE}/",
        }
    )
    run = subprocess.run(
        ["node", str(script), *args], cwd=ROOT, capture_output=True, text=True, check=False, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


RESTORE = r"""
import { loadPyodide } from "%(pyodide)s";
import createModule from "%(asm)s";
import { growFor, initialImage, place, snapshotPlan, unmask } from "%(plan)s";
import { createHash } from "node:crypto";
import fs from "node:fs";
const [engine, catalog, request, optional] = process.argv.slice(2);
// As the worker does: the manifest's plan, the parts put together, the masked region unmasked
// with the runtime's own memory once its hash is the build's.
const manifest = JSON.parse(fs.readFileSync(`${engine}/manifest.json`, "utf8"));
const plan = snapshotPlan(manifest, manifest.pyodide);
if (!plan.use) throw new Error(plan.reason);
const heap = new Uint8Array(plan.snapshot.bytes);
let at = 0;
for (const p of plan.snapshot.parts) {
  const bytes = new Uint8Array(fs.readFileSync(`${engine}/${p.path}`));
  place(heap, plan.snapshot.stored, at, bytes);
  at += bytes.length;
}
const { base } = plan.snapshot;
let unmasked = false;
const printed = [];
const py = await loadPyodide({ indexURL: "%(index)s", stdLibURL: `${engine}/${plan.stdlib.path}`, packages: [],
  lockFileContents: { info: plan.lockInfo, packages: {} },
  _loadSnapshot: heap, stdout: (line) => printed.push(line), stderr: () => {}, _sysExecutable: "./this.program", // a browser's
  createPyodideModule: async (settings) => {
    const module = await createModule(settings);
    const image = initialImage(module.HEAPU8, base);
    if (createHash("sha256").update(image).digest("hex") !== base.sha256) throw new Error("initial memory differs");
    unmask(heap, base, image);
    growFor(module, heap.length - base.offset);
    unmasked = true;
    return module;
  } });
const modules = py.runPython("import sys; sorted(m for m in sys.modules if m.startswith('fitengine'))").toJs();
py.globals.set("catalog_json", fs.readFileSync(catalog, "utf8"));
py.globals.set("request_json", request);
const out = py.runPython(`
from fitengine.browser import Session
Session(catalog_json).answer_json(request_json, "en", lambda x: f"{x:.1f}")
`);
// The heap's engine functions, against the same source compiled afresh by this runtime: the
// same line for every instruction, no column (the builder compiled without column ranges).
py.globals.set("sources", Object.fromEntries(["fit", "load"].map((m) => [m, fs.readFileSync(`${engine}/fitengine/${m}.py`, "utf8")])));
const lines = JSON.parse(py.runPython(`
import importlib, json, types
held, fresh = [], {}
for name, source in sources.to_py().items():
    module = importlib.import_module(f"fitengine.{name}")
    compiled = compile(source, f"{name}.py", "exec").co_consts
    fresh.update({(name, c.co_name): c for c in compiled if isinstance(c, types.CodeType)})
    held += [(name, f.__code__) for f in vars(module).values() if isinstance(f, types.FunctionType) and f.__module__ == module.__name__]
json.dumps({
    "checked": len(held),
    "same_lines": all([p[0] for p in c.co_positions()] == [p[0] for p in fresh[n, c.co_name].co_positions()] for n, c in held),
    "lines_held": sum(p[0] is not None for _, c in held for p in c.co_positions()),
    "columns_held": sum(p[2] is not None for _, c in held for p in c.co_positions()),
})
`));
// What macros/build/snapshot_site.py and the builder's -OO left out of the heap, and what they kept.
py.globals.set("optional_json", optional);
const slim = JSON.parse(py.runPython(`
import collections, dis, json, sys, types
import fitengine.health
import json.encoder
def blocked(name):
    try:
        __import__(name)
    except ImportError:
        return True
    return False
# json.encoder, and modules snapshot_site.py itself imports (after it strips the lines).
std = [
    f.__code__
    for module in (json.encoder, collections, dis, types)
    for f in vars(module).values()
    if isinstance(f, types.FunctionType) and f.__module__ == module.__name__
]
site = sys.modules["sitecustomize"]
import pyodide
try:
    pyodide.webloop.WebLoop
    shell = ""
except AttributeError as error:
    shell = str(error)
json.dumps({
    "optimize": sys.flags.optimize,
    "blocked": {name: blocked(name) for name in json.loads(optional_json)},
    "left_out": {name: name not in sys.modules and blocked(name) for name in site.LEFT_OUT},
    "still_needed": site.still_needed(),
    "shell": shell,
    "kept": [name in sys.modules for name in ("struct", "threading", "heapq", "locale", "pyodide._package_loader")],
    "stdlib_lines": sum(p[0] is not None for c in std for p in c.co_positions()),
    "stdlib_instructions": sum(1 for c in std for p in c.co_positions()),
    "docstrings": [f.__doc__ is not None for f in (json.dumps, fitengine.health.check_topology)],
    "streams": [
        [s is d, s.mode, s.buffer.raw.name, s.line_buffering, s.errors]
        for s, d in ((sys.stdin, sys.__stdin__), (sys.stdout, sys.__stdout__), (sys.stderr, sys.__stderr__))
    ],
})
`));
py.runPython("print('printed after the restore')");
console.log(JSON.stringify({ printed, unmasked, engine: py.globals.get("_snapshot_engine"), modules, lines, slim, out: JSON.parse(out) }));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_snapshot_restored_in_node_answers_as_the_build_engine(site, catalog, tmp_path):
    manifest = snapshot_entry(site)
    model = "llama-3.3-70b"
    request = {"model": model, "format": "fp8", "context": catalog.assumptions.default_context * 2}
    engine = site / "engine"
    optional = json.dumps(snapshot_site.OPTIONAL)
    got = run_node(
        tmp_path / "restore.mjs", RESTORE, str(engine), str(engine / "catalog.json"), json.dumps(request), optional
    )
    # The engine was imported before the heap was saved, and it is the manifest's.
    assert got["unmasked"] is True
    assert "fitengine.api" in got["modules"] and "fitengine.browser" in got["modules"]
    assert json.loads(got["engine"]) == manifest["files"]
    # Its functions keep their lines (tracebacks say where) and hold no column ranges.
    lines = got["lines"]
    assert lines["checked"] > 10 and lines["same_lines"] is True
    assert lines["lines_held"] > 1000 and lines["columns_held"] == 0
    # The standard library's code holds no line and nothing holds a docstring (macros/build/snapshot_site.py,
    # PYTHONOPTIMIZE=2); the modules Pyodide's start only tried are not there, those it needs are.
    slim = got["slim"]
    assert slim["optimize"] == 2 and slim["docstrings"] == [False, False]
    assert slim["stdlib_instructions"] > 100 and slim["stdlib_lines"] == 0
    assert slim["blocked"] == dict.fromkeys(snapshot_site.OPTIONAL, True)
    # What Pyodide's start imported for coroutines and packages is gone (an import raises
    # ImportError, an emptied module's attribute says why), and nothing kept refers to it or
    # imports it when it runs; what kept functions import stays.
    assert slim["left_out"] == dict.fromkeys(snapshot_site.LEFT_OUT, True)
    assert slim["still_needed"] == []
    assert "pyodide.webloop is left out of the configurator's Pyodide snapshot" in slim["shell"]
    assert slim["kept"] == [True] * 5
    # The standard streams the builder renewed are Python's, and print() still reaches Pyodide's handler.
    assert slim["streams"] == [
        [True, "r", "<stdin>", True, "surrogateescape"],
        [True, "w", "<stdout>", True, "surrogateescape"],
        [True, "w", "<stderr>", True, "backslashreplace"],
    ]
    assert got["printed"] == ["printed after the restore"]
    want = answer(catalog, request)
    assert got["out"]["ok"] is True
    by_node = {r["node"]: r for r in got["out"]["result"]["rows"]}
    assert sorted(by_node) == sorted(r["node"] for r in want["rows"])
    for row in want["rows"]:
        assert by_node[row["node"]]["verdict"] == row["verdict"]
        for field in ("decode_tok_s_per_user", "price_month_usd", "need_gb"):
            if row.get(field) is None:
                assert by_node[row["node"]].get(field) is None, (row["node"], field)
            else:
                assert by_node[row["node"]][field] == pytest.approx(row[field], rel=1e-12), (row["node"], field)


GROWN = """
import { loadPyodide } from "%(pyodide)s";
import createModule from "%(asm)s";
import { growFor } from "%(plan)s";
const quiet = { indexURL: "%(index)s", packages: [], stdout: () => {}, stderr: () => {} };
// A heap that grew past the memory Pyodide starts with, as a larger engine's import would.
const made = await loadPyodide({ ...quiet, _makeSnapshot: true });
made.runPython("ballast = bytearray(b'x' * (8 << 20))");
const snapshot = made.makeMemorySnapshot();
const header = new DataView(snapshot.buffer, snapshot.byteOffset).getUint32(4, true);
async function restore(grow) {
  let initial = 0;
  const py = await loadPyodide({ ...quiet, _loadSnapshot: snapshot.slice(),
    createPyodideModule: async (settings) => {
      const module = await createModule(settings);
      initial = module.HEAPU8.length;
      if (grow) growFor(module, snapshot.length - header);
      return module;
    } });
  return { initial, ballast: py.runPython("len(ballast)") };
}
const out = { heap: snapshot.length - header, grown: await restore(true) };
try {
  await restore(false);
  out.ungrown = "restored";
} catch (error) {
  out.ungrown = error.name;
}
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_heap_grown_past_pyodides_first_memory_is_restored(tmp_path):
    got = run_node(tmp_path / "grown.mjs", GROWN)
    # The heap did outgrow the memory the runtime starts with; grown first, it restores whole.
    assert got["heap"] > got["grown"]["initial"]
    assert got["grown"]["ballast"] == 8 << 20
    # Pyodide alone copies it over the smaller memory and fails: what growFor is for (if a later
    # Pyodide grows the memory itself, this says so, and growFor may go).
    assert got["ungrown"] == "RangeError"


@pytest.mark.browser
def test_the_configurator_starts_from_the_snapshot(browser, server):
    context, page, errors, requests = open_configurator(browser, server)
    wait_ready(page)
    assert page.get_attribute("[data-engine-status]", "data-engine-start") == "snapshot"
    # Restored, the runtime fetches neither the engine's files nor the whole standard library.
    assert any("/engine/snapshot-" in u for u in requests)
    assert not any(u.endswith("/python_stdlib.zip") or "/engine/fitengine/" in u for u in requests)
    assert not errors, errors
    context.close()


def _site_with(site, tmp_path, part: int | None = None, data: bytes | None = None, manifest: dict | None = None):
    """A copy of the built site (hard links) with other bytes in one part of the snapshot, or another manifest."""
    copy = tmp_path / "site"
    shutil.copytree(site, copy, copy_function=os.link)
    engine = copy / "engine"
    if part is not None and data is not None:
        target = engine / snapshot_entry(site)["snapshot"]["snapshot"]["parts"][part]["file"]
        target.unlink()  # a new file, not the shared one
        target.write_bytes(data)
    if manifest is not None:
        (engine / "manifest.json").unlink()
        (engine / "manifest.json").write_text(json.dumps(manifest))
    return copy


@pytest.mark.browser
@pytest.mark.parametrize("fault", ["missing", "corrupt", "stale", "refused", "short", "unmasked"])
def test_a_page_whose_snapshot_cannot_be_used_starts_plainly_and_answers_right(browser, site, catalog, tmp_path, fault):
    manifest = snapshot_entry(site)
    parts = manifest["snapshot"]["snapshot"]["parts"]
    changed = json.loads(json.dumps(manifest))
    if fault == "missing":
        changed["snapshot"]["snapshot"]["parts"][-1]["file"] = "snapshot-0000000000000000.bin"
        served = _site_with(site, tmp_path, manifest=changed)
    elif fault == "corrupt":
        middle = len(parts) // 2
        data = bytearray((site / "engine" / parts[middle]["file"]).read_bytes())
        data[len(data) // 2] ^= 1  # one bit of the heap, in one part
        served = _site_with(site, tmp_path, part=middle, data=bytes(data))
    elif fault == "stale":
        changed["snapshot"]["pyodide"] = "0.0.1"
        served = _site_with(site, tmp_path, manifest=changed)
    elif fault == "short":
        # A part the manifest names in full, served cut short (and named by its hash): refused.
        data = (site / "engine" / parts[-1]["file"]).read_bytes()[:-8]
        changed["snapshot"]["snapshot"]["parts"][-1]["sha256"] = hashlib.sha256(data).hexdigest()
        served = _site_with(site, tmp_path, part=len(parts) - 1, data=data, manifest=changed)
    elif fault == "unmasked":
        # The masked blocks said to be other than the runtime's memory before the restore.
        changed["snapshot"]["snapshot"]["base"]["sha256"] = hashlib.sha256(b"another runtime").hexdigest()
        served = _site_with(site, tmp_path, manifest=changed)
    else:
        data = bytearray((site / "engine" / parts[0]["file"]).read_bytes())
        data[0] ^= 0xFF  # Pyodide's magic number: the bytes are the manifest's, Pyodide refuses them
        changed["snapshot"]["snapshot"]["parts"][0]["sha256"] = hashlib.sha256(data).hexdigest()
        served = _site_with(site, tmp_path, part=0, data=bytes(data), manifest=changed)
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    context_tokens = catalog.assumptions.default_context * 2
    with serve(served) as server:
        page.goto(f"{server}/fr/{PAGE_PATHS['configurator']['fr']}?context={context_tokens}")
        wait_ready(page)
        assert page.get_attribute("[data-engine-status]", "data-engine-start") == "plain"
        for model, fmt in (("llama-3.3-70b", "fp8"), ("qwen3-32b", "awq-int4")):
            choose(page, model, fmt)
            wait_until(lambda m=model: catalog.llms[m].name in page.text_content("table caption"), 20, "the table")
            by_node = {r["node"]: r for r in rows(page)}
            for node, verdict, cards, tok, _price in expected(catalog, model, fmt, context_tokens):
                assert by_node[node]["verdict"] == verdict, (fault, model, node)
                assert int(by_node[node]["cards"]) == cards
                if tok is not None:
                    assert float(by_node[node]["tok"]) == pytest.approx(tok, rel=1e-12)
    assert [e for e in errors if "404" not in e] == [], errors
    context.close()


def test_code_without_lines_runs_the_same_and_says_no_line():
    # A function holding a function: the code held in constants is stripped too.
    source = "def f(n):\n    def square(i):\n        return i * i\n    total = 0\n    for i in range(n):\n        total += square(i)\n    return total\n"
    plain, bare = {}, {}
    exec(compile(source, "m.py", "exec"), plain)
    exec(snapshot_site.no_lines(compile(source, "m.py", "exec")), bare)
    assert bare["f"](50) == plain["f"](50) == sum(i * i for i in range(50))
    codes = [bare["f"].__code__, *(c for c in bare["f"].__code__.co_consts if isinstance(c, types.CodeType))]
    assert [c.co_name for c in codes] == ["f", "square"]
    assert all(p[0] is None for c in codes for p in c.co_positions())
    # The same instructions, one location entry per 8 of them at most: none is lost or added.
    assert bare["f"].__code__.co_code == plain["f"].__code__.co_code
    # Imported by the build, it changes nothing: only Pyodide's start runs it, as sitecustomize.
    assert sys.modules.get("ssl", 0) is not None


def fake_modules(monkeypatch: pytest.MonkeyPatch, sources: dict[str, str]) -> dict[str, types.ModuleType]:
    """Modules made from `sources` and put in sys.modules (taken out again after the test)."""
    made = {}
    for name, source in sources.items():
        module = types.ModuleType(name)
        exec(compile(source, f"<{name}>", "exec"), vars(module))
        monkeypatch.setitem(sys.modules, name, module)
        made[name] = module
    return made


def test_still_needed_names_what_keeps_a_module_from_being_left_out(monkeypatch):
    fake_modules(
        monkeypatch,
        {
            "gone_pkg": "def helper():\n    return 1\n",
            "gone_pkg.sub": "X = 1\n",
            "kept_holder": "import gone_pkg\n",
            "kept_caller": "from gone_pkg import helper\n",
            "kept_lazy": "def later():\n    import gone_pkg.sub\n    return 2\n\nclass K:\n    def method(self):\n        import gone_pkg\n",
            "kept_clean": "import json\n\ndef fine():\n    import json\n    return json\n",
        },
    )
    sys.modules["gone_pkg"].sub = sys.modules["gone_pkg.sub"]
    reasons = snapshot_site.still_needed(("gone_pkg",))
    assert reasons == [
        "kept_caller.helper is a function of gone_pkg",
        "kept_holder.gone_pkg is the module gone_pkg",
        "kept_lazy.K.method imports gone_pkg",
        "kept_lazy.later imports gone_pkg.sub",
    ]
    # A function allowed to import a left-out module (os.popen: no process in a browser) is not named.
    monkeypatch.setitem(snapshot_site.MAY_IMPORT_LEFT_OUT, ("kept_lazy", "later"), "gone_pkg.sub")
    assert "kept_lazy.later imports gone_pkg.sub" not in snapshot_site.still_needed(("gone_pkg",))


# A module whose handler, freed before its registry as its namespace empties, runs a callback
# that looks the registry up (as logging's handlers do).
GONE_MODULE = (
    "import atexit, weakref\n"
    "class Handler:\n    pass\n"
    "def forget(ref):\n    REGISTRY.remove(ref)\n"
    "HANDLER = Handler()\n"
    "REGISTRY = [weakref.ref(HANDLER, forget)]\n"
    "def shutdown():\n    REGISTRY.clear()\n"
    "atexit.register(shutdown)\n"
)


def test_a_left_out_module_is_emptied_forgotten_and_says_why(monkeypatch):
    import atexit
    import gc
    import re
    import weakref

    made = fake_modules(monkeypatch, {"gone_mod": GONE_MODULE, "kept_mod": "VALUE = 3\n", "control_mod": GONE_MODULE})
    unraisable: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    # The control, emptied by hand: its handler's callback, run as the handler is freed, finds
    # its names gone, which Python reports.
    atexit.unregister(made["control_mod"].shutdown)
    vars(made["control_mod"]).clear()
    assert [type(u.exc_value) for u in unraisable] == [NameError]
    unraisable.clear()

    module = made["gone_mod"]
    probe = weakref.ref(module.Handler)
    assert snapshot_site.leave_out(("gone_mod",)) == ["gone_mod"]
    gc.collect()
    # Forgotten, emptied (what only it held is freed), and its attributes say why.
    assert "gone_mod" not in sys.modules and sys.modules["kept_mod"].VALUE == 3
    assert probe() is None
    message = "gone_mod.HANDLER: gone_mod is left out of the configurator's Pyodide snapshot"
    with pytest.raises(AttributeError, match=re.escape(message)):
        module.HANDLER  # noqa: B018
    # The same callback's NameError is not reported.
    assert unraisable == []


def test_a_left_out_module_runs_nothing_at_exit(tmp_path):
    # In a Python of its own: its exit function, registered, would run when that Python ends.
    script = tmp_path / "exit.py"
    script.write_text(
        "import atexit, sys, types\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from macros.build import snapshot_site\n"
        "module = types.ModuleType('gone_mod')\n"
        "exec('import atexit\\ndef shutdown():\\n    print(\"shutdown ran\")\\natexit.register(shutdown)\\n', vars(module))\n"
        "sys.modules['gone_mod'] = module\n"
        "if sys.argv[1] == 'leave-out':\n    snapshot_site.leave_out(('gone_mod',))\n",
        encoding="utf-8",
    )
    ran = {
        way: subprocess.run([sys.executable, str(script), way], capture_output=True, text=True, check=True)
        for way in ("keep", "leave-out")
    }
    assert ran["keep"].stdout == "shutdown ran\n"
    assert ran["leave-out"].stdout == "" and ran["leave-out"].stderr == ""


RENEW = """
import gc, sys, weakref
sys.path.insert(0, %r)
from macros.build import snapshot_site
def settings(stream):
    return (stream.encoding, stream.errors, stream.line_buffering, stream.write_through, stream.mode,
            snapshot_site.file_of(stream).name, stream.fileno(), type(stream.buffer).__name__)
old = [sys.stdin, sys.stdout, sys.stderr]
before = [settings(s) for s in old]
gone = [weakref.ref(s) for s in old]
sys.stdout.write("written before, ")  # still in the old buffer (a pipe is not line-buffered)
snapshot_site.renew_std_streams()
del old
gc.collect()
new = [sys.stdin, sys.stdout, sys.stderr]
assert [sys.__stdin__, sys.__stdout__, sys.__stderr__] == new, "the dunder names are not the new streams"
assert [settings(s) for s in new] == before, ([settings(s) for s in new], before)
assert [ref() for ref in gone] == [None] * 3, "an old stream is still held"
print("after")
print("to stderr", file=sys.stderr)
"""


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_renewed_std_streams_have_the_old_ones_settings_and_lose_no_output(tmp_path, unbuffered):
    # Buffered (as in Pyodide) and not (`python -u`, where the text streams write to the file itself).
    script = tmp_path / "renew.py"
    script.write_text(RENEW % str(ROOT), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"} | {"PYTHONUNBUFFERED": unbuffered}
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, stdin=subprocess.PIPE, env=env)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "written before, after\n"
    assert ran.stderr == "to stderr\n"


# Bytes gzip cannot shrink below this share, in a page of the stored heap: what was compressed
# already (the standard library's zip, read by zipimport), or random.
INCOMPRESSIBLE = 0.85


def test_the_heap_holds_no_stale_copy_of_compressed_data(site):
    # Python's start gave the standard streams 128 kB buffers from memory that had held the
    # standard library's zip: 128 kB no compression shrinks, until the builder renewed the streams
    # (macros/build/snapshot_site.py, renew_std_streams). Above the masked region (the wasm's data,
    # which holds its own tables), no run of such pages is left.
    entry = snapshot_entry(site)["snapshot"]["snapshot"]
    heap = heap_of(site)
    start = -(-(entry["base"]["offset"] + entry["base"]["bytes"]) // PAGE_BYTES) * PAGE_BYTES
    longest = run = 0
    for at in range(start, len(heap), PAGE_BYTES):
        page = heap[at : at + PAGE_BYTES]
        run = run + 1 if any(page) and len(gzip.compress(page, 6)) > INCOMPRESSIBLE * len(page) else 0
        longest = max(longest, run)
    assert longest * PAGE_BYTES < 32 * 1024, f"{longest} pages in a row that gzip cannot shrink"


def bench_worker_steps() -> tuple[str, ...]:
    """The worker's marks bench/run.py breaks a return visit into (its WORKER_STEPS), read from its source."""
    tree = ast.parse((ROOT / "bench" / "run.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "WORKER_STEPS" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise AssertionError("bench/run.py has no WORKER_STEPS")


def worker_mark_times(page) -> dict[str, float]:
    """The configurator worker's start-up marks so far, each at its time on the worker's clock ({} while it is not there)."""
    workers = [w for w in page.workers if "configurator-worker" in w.url]
    if not workers:
        return {}
    return dict(workers[-1].evaluate("performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])"))


def worker_marks(page) -> list[str]:
    """The configurator worker's start-up marks so far ([] while it is not there)."""
    return list(worker_mark_times(page))


# Nothing on a page says "go" when its animation frames never call back: configurator-boot.js and
# engine-client.js send it from one. (Refusing those scripts instead would need request routing,
# which turns the browser's HTTP cache off.)
NO_FRAMES = "window.requestAnimationFrame = () => 0;"


@pytest.mark.browser
def test_the_worker_waits_for_the_paint_on_a_first_visit_and_not_on_a_return(playwright, site, tmp_path):
    """configurator-early.js starts the worker from the head; it asks for Pyodide once the page
    says "go" (the table painted), unless the snapshot is already in the browser's cache."""
    from .browser import CHROMIUM, FLAGS

    with serve(site, caching=True) as url:
        # A reader's own profile, on disk: its HTTP cache keeps the snapshot, as a browser does.
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=str(CHROMIUM), args=FLAGS
        )
        try:
            address = f"{url}/fr/{PAGE_PATHS['configurator']['fr']}"
            # A first visit that never says "go": the worker starts, and asks for no Pyodide.
            page = context.new_page()
            page.add_init_script(NO_FRAMES)
            requests: list[str] = []
            page.on("request", lambda request: requests.append(request.url))
            page.goto(address)
            wait_until(lambda: "worker-init" in worker_marks(page), 30, "the worker's start")
            time.sleep(2.0)
            assert "worker-go" not in worker_marks(page)
            assert not [u for u in requests if "/pyodide/" in u]
            page.close()
            # The page as it is: the engine starts, and the browser keeps what it fetched.
            page = context.new_page()
            page.goto(address)
            wait_ready(page)
            page.close()
            # A return visit that never says "go": the cached snapshot is restored all the same.
            page = context.new_page()
            page.add_init_script(NO_FRAMES)
            page.goto(address)
            wait_until(lambda: "worker-ready" in worker_marks(page), 60, "the worker ready on its own")
            # Each step of `make bench`'s return-visit breakdown is marked, in the start's order
            # (a mark renamed in the worker would otherwise vanish from the bench's figures).
            at = worker_mark_times(page)
            steps = bench_worker_steps()
            assert [name for name in steps if name not in at] == []
            for before, after in (
                ("worker-init", "worker-manifest"),
                ("worker-manifest", "worker-pyodide-imported"),
                ("worker-pyodide-imported", "worker-runtime-made"),
                ("worker-runtime-made", "worker-pyodide-started"),
                ("worker-snapshot-checked", "worker-pyodide-started"),
                ("worker-pyodide-started", "worker-ready"),
            ):
                assert at[before] <= at[after], (before, after, at)
        finally:
            context.close()
