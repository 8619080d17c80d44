"""`make bench`: the site measured against the limits of its stack, side by side in one run.

Writes bench/results.json and bench/results.md: for each figure the median of several runs and
its spread (min–max), the machine and the versions, the targets and whether they are met, and
the history of earlier runs (one line per run, kept from the previous results.json).

    .venv/bin/python bench/run.py [--runs N]
    .venv/bin/python bench/run.py --only build [--runs N]   the build's figures alone, printed
"""

from __future__ import annotations

import argparse
import datetime
import functools
import gzip
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "bench"))

from macros.locales import locales as site_locales  # noqa: E402
from macros.locales import source  # noqa: E402
from tests.browser import CHROMIUM, FLAGS  # noqa: E402
from tests.static_server import serve  # noqa: E402

PY = sys.executable
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
LOCALES = {locale.code: locale.config for locale in site_locales()}

# The French configurator's first visit, gzip, measured on 2026-11-29 (6d8f2dc) before Pyodide
# was restored from a snapshot: the snapshot must not make readers download more.
FIRST_VISIT_BEFORE_SNAPSHOT = 6_529_828

TARGETS = {
    "configurator_ready_ratio": (
        "<=",
        0.5,
        "configurator ready / bare Pyodide page ready (median of the runs' ratios)",
    ),
    "configurator_return_ratio": (
        "<",
        0.3,
        "configurator ready again, warm HTTP cache (same browser profile) / bare Pyodide page ready, cold (median of the runs' ratios)",
    ),
    "configurator_first_visit_gzip_bytes": (
        "<=",
        FIRST_VISIT_BEFORE_SNAPSHOT,
        "bytes the French configurator's first visit transfers, gzip (before the snapshot: 6,529,828)",
    ),
    "engine_cpython_one_workload_ms": (
        "<",
        10.0,
        "the engine, one workload asked afresh on every node of the catalog (CPython, nothing kept from an earlier question)",
    ),
    "repaint_ms": ("<", 50.0, "field change to new table painted, engine ready (every change, reader's pace)"),
    "repaint_engine_only_ms": (
        "<",
        50.0,
        "the same, for context and concurrency changes (the engine's; back at the default context, the build's file or the engine, the first to come)",
    ),
    "loading_answer_ms": ("<", 100.0, "catalog model, then format, at the default context, before Pyodide is ready"),
    "slow_pending_ms": (
        "<",
        100.0,
        "on the slow profile, a change the engine alone can answer, made while it loads, to the answer marked pending",
    ),
    "build_ratio": (
        "<=",
        1.3,
        "both locales / bare Material build of the same pages, cold (median of the runs' ratios)",
    ),
    "preview_rebuild_s": ("<", 1.0, "preview rebuild after a one-line edit of a guide"),
    "preview_rebuild_catalog_s": ("<", 1.0, "preview rebuild after a node's price is edited in the catalog"),
    "first_answer_before_pyodide": (
        "==",
        1.0,
        "share of runs where the build's table is painted before Pyodide is asked for",
    ),
    "guide_pyodide_bytes": ("==", 0, "Pyodide bytes a guide page transfers before its widget is touched"),
    "topo_1000_gpus_s": ("<", 1.0, "`nvidia-smi topo -m` parser on a 1,000-GPU matrix (median, CPython)"),
}


def stats(values: list[float], unit: str) -> dict[str, Any]:
    return {
        "values": [round(v, 4) for v in values],
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "runs": len(values),
        "unit": unit,
    }


def timed(command: list[str], cwd: Path = ROOT) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=ENV, check=True, capture_output=True)
    return time.perf_counter() - start


# --- build ----------------------------------------------------------------------------------


def build_command(target: Path, locales: list[str]) -> list[str]:
    """`make site`'s command, for these locales, over what `target` holds (no swap: the warm
    builds keep the last one's files)."""
    chosen = [arg for code in locales for arg in ("--locale", code)]
    return [PY, "-m", "macros.build.build_site", "--over", *chosen, str(target)]


def bare_configs(work: Path) -> dict[str, Path]:
    """Dump the macro-rendered Markdown, then write bare Material configs that build it."""
    dump = work / "dump"
    hooked = work / "hooked"
    for locale, config in LOCALES.items():
        # Inherited relative paths resolve against the child config's folder: keep it beside ours.
        text = f"INHERIT: {config.name}\nhooks:\n  - macros/build/build_hooks.py\n  - bench/dump_markdown.py\n"
        path = ROOT / f".bench-dump.{locale}.yml"
        path.write_text(text)
        try:
            subprocess.run(
                [PY, "-m", "mkdocs", "build", "-f", str(path), "-d", str(hooked / locale)],
                cwd=ROOT,
                env={**ENV, "BENCH_DUMP_DIR": str(dump)},
                check=True,
                capture_output=True,
            )
        finally:
            path.unlink()
    import yaml

    base = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    configs = {}
    for locale, config in LOCALES.items():
        child = yaml.safe_load(config.read_text()) if locale != source() else {}
        bare = {
            "site_name": child.get("site_name", base["site_name"]),
            "docs_dir": str(dump / locale),
            "site_dir": str(work / "bare" / locale),
            "use_directory_urls": True,
            "theme": {"name": "material", "language": locale, "font": False, "features": base["theme"]["features"]},
            "plugins": ["search"],
            "markdown_extensions": base["markdown_extensions"],
            "nav": child.get("nav", base["nav"]),
        }
        path = work / f"bare.{locale}.yml"
        path.write_text(yaml.safe_dump(bare, allow_unicode=True))
        configs[locale] = path
    return configs


def bench_build(runs: int, work: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    bare = bare_configs(work)

    def bare_build(locales: list[str], clean: bool) -> float:
        if clean:
            shutil.rmtree(work / "bare", ignore_errors=True)
        start = time.perf_counter()
        for locale in locales:
            subprocess.run(
                [PY, "-m", "mkdocs", "build", "-q", "-f", str(bare[locale])],
                cwd=ROOT,
                env=ENV,
                check=True,
                capture_output=True,
            )
        return time.perf_counter() - start

    def ours(locales: list[str], clean: bool) -> float:
        target = work / "ours"
        if clean:
            # Cold as on a fresh clone: no site, and no compiled templates kept from a build before.
            shutil.rmtree(target, ignore_errors=True)
            shutil.rmtree(ROOT / ".cache" / "jinja", ignore_errors=True)
        return timed(build_command(target, locales))

    # `ours` builds the locales of one run in one process, as `make site` does; the bare build
    # runs one `mkdocs build` per locale, the way a bare Material site would be built.
    # "both" is every locale (the name keeps the history's figures comparable).
    # Ours and the bare build alternate, in turn first, so that each run's pair shares the
    # machine's moment; the ratio is the median of the runs' ratios, as the ready ratio is.
    for name, locales in (("both", list(LOCALES)), *((code, [code]) for code in LOCALES)):
        for when, clean in (("cold", True), ("warm", False)):
            times: dict[str, list[float]] = {"build": [], "bare": []}
            for run in range(runs):
                order = ("build", "bare") if run % 2 == 0 else ("bare", "build")
                for which in order:
                    build = ours if which == "build" else bare_build
                    times[which].append(build(locales, clean))
            out[f"build_{name}_{when}_s"] = stats(times["build"], "s")
            out[f"bare_{name}_{when}_s"] = stats(times["bare"], "s")
            if name == "both" and when == "cold":
                ratios = [a / b for a, b in zip(times["build"], times["bare"], strict=True)]
                out["build_ratio_runs"] = stats(ratios, "ratio")
    return out


def bench_preview(runs: int, work: Path) -> dict[str, Any]:
    """`mkdocs serve` on a copy of the project; edit a guide, then the catalog, and read the rebuild time."""
    copy = work / "preview"
    shutil.copytree(
        ROOT,
        copy,
        ignore=shutil.ignore_patterns(".venv", "node_modules", "site", ".git", ".cache", "test-artifacts", "bench"),
    )
    (copy / "node_modules").symlink_to(ROOT / "node_modules")
    log = (work / "serve.log").open("w")
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"127.0.0.1:{port}"
    server = subprocess.Popen(
        [PY, "-m", "mkdocs", "serve", "-a", address], cwd=copy, env=ENV, stdout=log, stderr=subprocess.STDOUT
    )
    built = re.compile(r"Documentation built in ([\d.]+) seconds")

    def count() -> list[float]:
        return [float(x) for x in built.findall((work / "serve.log").read_text())]

    def wait_for(n: int, timeout: float = 120) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = count()
            if len(found) >= n:
                return found[n - 1]
            time.sleep(0.1)
        raise RuntimeError("the preview did not rebuild:\n" + (work / "serve.log").read_text()[-3000:])

    try:
        wait_for(1)
        guide = copy / "docs" / "fr" / "guides" / "nvlink-ou-pcie.md"
        catalog = copy / "catalog" / "nodes.yaml"
        guide_times, catalog_times = [], []

        def edit(path: Path, change: Any) -> float:
            # The watcher can miss an edit that lands while it is rebuilding: edit again then.
            for attempt in range(3):
                time.sleep(2.5)
                before = len(count())
                path.write_text(change(path.read_text(), attempt))
                try:
                    return wait_for(before + 1, timeout=30)
                except RuntimeError:
                    continue
            raise RuntimeError("the preview did not rebuild after three edits")

        price = re.compile(r"price_month: \{value: (\d+),")

        def new_price(text: str, attempt: int) -> str:
            # A value, not a comment: the first node's monthly price up by one dollar, so every
            # figure that depends on the catalog is computed again (a comment's edit keeps them).
            return price.sub(lambda m: f"price_month: {{value: {int(m.group(1)) + 1},", text, count=1)

        for i in range(runs):
            guide_times.append(edit(guide, lambda text, attempt, i=i: text + f"\n<!-- edit {i}.{attempt} -->\n"))
            catalog_times.append(edit(catalog, new_price))
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
    return {"preview_rebuild_s": stats(guide_times, "s"), "preview_rebuild_catalog_s": stats(catalog_times, "s")}


# --- browser --------------------------------------------------------------------------------

# A phone on a slow network: Chromium's emulation of a 9 Mbit/s link with 150 ms of latency and a
# CPU four times slower than the bench's.
SLOW_NETWORK = {
    "offline": False,
    "latency": 150,
    "downloadThroughput": 9_000_000 / 8,
    "uploadThroughput": 9_000_000 / 8,
}
SLOW_CPU = 4
# In the page: a concurrency only the engine can answer, typed while it loads; the milliseconds
# from that change to the card marked busy (aria-busy), on the page's own clock.
CHANGE_TO_PENDING = """() => new Promise((done) => {
  const field = document.querySelector("input[name=concurrency]");
  const card = document.querySelector("[data-answer]");
  const t0 = performance.now();
  field.value = "20";
  field.dispatchEvent(new Event("input", { bubbles: true }));
  field.dispatchEvent(new Event("change", { bubbles: true }));
  const check = () => (card.getAttribute("aria-busy") === "true" ? done(performance.now() - t0) : requestAnimationFrame(check));
  check();
})"""


def mark(page: Any, name: str) -> float | None:
    return page.evaluate(
        f"(() => {{ const m = performance.getEntriesByName({name!r}); return m.length ? m[m.length - 1].startTime : null; }})()"
    )


def wait_mark(page: Any, name: str, timeout: float = 120) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = mark(page, name)
        if value is not None:
            return value
        time.sleep(0.02)
    raise RuntimeError(f"no {name} mark")


# The configurator worker's start-up marks (configurator-worker.js), on its own clock.
WORKER_MARKS = """(() => ({ origin: performance.timeOrigin,
  marks: performance.getEntriesByType("mark").map((m) => [m.name, m.startTime]) }))()"""
WORKER_STEPS = (
    "worker-init",
    "worker-manifest",
    "worker-pyodide-imported",
    "worker-snapshot-checked",
    "worker-runtime-made",
    "worker-pyodide-started",
    "worker-ready",
)


def configurator_worker(page: Any) -> Any:
    """The page's configurator worker (the latest, after a navigation), or None."""
    workers = [w for w in page.workers if "configurator-worker" in w.url]
    return workers[-1] if workers else None


def worker_steps(page: Any) -> dict[str, float]:
    """When the configurator's worker reached each step of its start, in ms on the page's clock."""
    worker = configurator_worker(page)
    if worker is None:
        return {}
    seen = worker.evaluate(WORKER_MARKS)
    shift = seen["origin"] - page.evaluate("performance.timeOrigin")
    return {name: shift + at for name, at in seen["marks"] if name in WORKER_STEPS}


def returned_to(context: Any, url: str) -> tuple[Any, float]:
    """The French configurator opened twice in `context`: the page, and when it was ready the second time."""
    page = context.new_page()
    page.goto(f"{url}/fr/configurateur/")
    wait_mark(page, "configurator-ready")
    page.goto(f"{url}/fr/configurateur/")
    return page, wait_mark(page, "configurator-ready")


def fetched_by_worker(page: Any) -> float:
    """Bytes the configurator's worker took from the network (not the HTTP cache) since the navigation."""
    worker = configurator_worker(page)
    if worker is None:
        return float("nan")
    return worker.evaluate("performance.getEntriesByType('resource').reduce((sum, e) => sum + e.transferSize, 0)")


# Armed before a change: resolves, inside the page, with the change's marks once the widget has
# painted it. One call before and one after, so the measuring does not poll the page meanwhile.
ARM = """(() => {
  const after = performance.now();
  const since = (name) => performance.getEntriesByName(name).filter((e) => e.startTime > after);
  window.__benchPainted = new Promise((resolve) => {
    const check = () => {
      const painted = since("configurator-painted");
      if (!painted.length) return false;
      resolve({
        change: since("configurator-change")[0].startTime,
        painted: painted[0].startTime,
        ready: performance.getEntriesByName("configurator-ready").length > 0,
      });
      return true;
    };
    if (!check()) {
      const observer = new PerformanceObserver(() => check() && observer.disconnect());
      observer.observe({ type: "mark" });
      setTimeout(() => resolve(null), 20000);
    }
  });
})()"""


def timed_change(page: Any, action: Any) -> dict[str, Any]:
    """Milliseconds from the widget's change mark to its painted mark, and whether the engine was ready."""
    page.evaluate(ARM)
    action()
    marks = page.evaluate("window.__benchPainted")
    if marks is None:
        raise RuntimeError("the widget did not paint the change within 20 s")
    return {"ms": marks["painted"] - marks["change"], "ready": marks["ready"]}


def reader_changes(page: Any) -> list[tuple[str, Any]]:
    """Field changes of every kind: catalog choices and numbers only the engine can answer."""

    def select(name: str, value: str) -> Any:
        return lambda: page.select_option(f"select[name={name}]", value)

    def number(name: str, value: str) -> Any:
        return lambda: (page.fill(f"input[name={name}]", value), page.press(f"input[name={name}]", "Enter"))

    # The first, at the instant the engine is ready, is one only the engine can answer; after it
    # the build's answers (kept for the format loaded while Pyodide loaded) rarely apply.
    return [
        ("context", number("context", "32768")),
        ("model", select("model", "llama-3.1-8b")),
        ("format", select("format", "fp8")),
        ("context", number("context", page.get_attribute("[data-configurator]", "data-default-context"))),
        ("model", select("model", "deepseek-v3")),
        ("concurrency", number("concurrency", "8")),
    ]


READER_PAUSE_S = 0.4  # between two changes: faster than a reader, long enough for the page to settle


def bench_browser(runs: int, site: Path) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    _SITE[:] = [site]
    bench_dir = site / "bench"
    bench_dir.mkdir(exist_ok=True)
    for name in ("bare-pyodide.html", "bare-pyodide.js", "bare-pyodide-worker.js", "engine_timing.py"):
        shutil.copy(ROOT / "bench" / name, bench_dir / name)
    out: dict[str, Any] = {}
    ready, bare_ready, first_paint, before_pyodide, pyodide_request = [], [], [], [], []
    return_ready, return_ratio, return_fetched, private_ready, private_fetched = [], [], [], [], []
    return_steps: dict[str, list[float]] = {name: [] for name in WORKER_STEPS}
    repaint, repaint_first, repaint_engine, loading_answer = [], [], [], []
    slow_pending, slow_ready = [], []
    # Under the Cache-Control headers README's Hosting section suggests (return visits use them).
    with serve(site, caching=True) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)

        def ready_of(path: str, mark_name: str) -> float:
            context = browser.new_context()
            page = context.new_page()
            page.goto(f"{url}{path}")
            value = wait_mark(page, mark_name)
            context.close()
            return value

        for run in range(runs):
            # Same browser, fresh contexts (cold caches): the bare page and the untouched
            # configurator one after the other, in turn first; two pairs a run, each a ratio.
            pair = [
                ("bare", "/bench/bare-pyodide.html", "bare-ready"),
                ("ours", "/fr/configurateur/", "configurator-ready"),
            ]
            for turn in (0, 1):
                order = pair if (run + turn) % 2 == 0 else pair[::-1]
                times = {name: ready_of(path, mark_name) for name, path, mark_name in order}
                bare_ready.append(times["bare"])
                ready.append(times["ours"])

            # A return visit: the configurator opened again in the same browser profile (a
            # reader's ordinary one, new for the run: its disk cache is warm with the first visit),
            # against this run's bare page, cold.
            profile = Path(tempfile.mkdtemp(prefix="bench-profile-"))
            context = p.chromium.launch_persistent_context(str(profile), executable_path=str(CHROMIUM), args=FLAGS)
            try:
                page, ready_again = returned_to(context, url)
                return_ready.append(ready_again)
                # Where the return visit's time goes: the worker's steps since the navigation.
                for name, at in worker_steps(page).items():
                    return_steps[name].append(at)
                return_fetched.append(fetched_by_worker(page))
            finally:
                context.close()
                shutil.rmtree(profile, ignore_errors=True)
            return_ratio.append(return_ready[-1] / statistics.median(bare_ready[-2:]))
            # The same in a private window, for information: its cache is in memory and keeps no
            # response above a few megabytes (Chromium 156), so this bench's server, which does
            # not compress, sends the snapshot and the wasm again (README, Hosting).
            context = browser.new_context()
            page, ready_again = returned_to(context, url)
            private_ready.append(ready_again)
            private_fetched.append(fetched_by_worker(page))
            context.close()

            # Then the configurator again, used: while Pyodide loads, then once it is ready.
            context = browser.new_context()
            page = context.new_page()
            requests: list[Any] = []
            # Every request, the worker's too (they are not in the page's resource timing).
            page.on("request", lambda request, seen=requests: seen.append(request))
            page.goto(f"{url}/fr/configurateur/")
            fcp = page.evaluate(
                "(() => { const e = performance.getEntriesByName('first-contentful-paint'); return e.length ? e[0].startTime : null; })()"
            )
            first_paint.append(fcp)
            time_origin = page.evaluate("performance.timeOrigin")
            # While Pyodide loads, as soon as the page is there: a catalog model, then a format,
            # at the default context, answered by the build.
            for name, value in (("model", "qwen3-32b"), ("format", "awq-int4")):
                change = timed_change(page, functools.partial(page.select_option, f"select[name={name}]", value))
                if not change["ready"]:
                    loading_answer.append(change["ms"])
            wait_mark(page, "configurator-ready")
            # The build's table is painted before the first byte of Pyodide is asked for.
            pyodide_start = min(r.timing["startTime"] for r in requests if "/pyodide/" in r.url) - time_origin
            before_pyodide.append(1.0 if fcp is not None and fcp <= pyodide_start else 0.0)
            pyodide_request.append(pyodide_start)
            # From the moment the engine is ready, changes at a reader's pace.
            for i, (field, action) in enumerate(reader_changes(page)):
                change = timed_change(page, action)
                repaint.append(change["ms"])
                if i == 0:
                    repaint_first.append(change["ms"])
                if field in ("context", "concurrency"):
                    repaint_engine.append(change["ms"])
                time.sleep(READER_PAUSE_S)
            context.close()

            # The slow profile: the change shows as pending at once, and the engine is ready when.
            context = browser.new_context()
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.emulateNetworkConditions", SLOW_NETWORK)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": SLOW_CPU})
            page.goto(f"{url}/fr/configurateur/")
            page.wait_for_selector('[data-engine-status="loading"]', timeout=60_000)
            slow_pending.append(page.evaluate(CHANGE_TO_PENDING))
            slow_ready.append(wait_mark(page, "configurator-ready", timeout=300))
            context.close()

        out["slow_pending_ms"] = stats(slow_pending, "ms")
        out["slow_engine_ready_ms"] = stats(slow_ready, "ms")
        out["configurator_first_paint_ms"] = stats(first_paint, "ms")
        out["configurator_ready_ms"] = stats(ready, "ms")
        out["bare_pyodide_ready_ms"] = stats(bare_ready, "ms")
        out["configurator_ready_ratio_runs"] = stats([o / b for o, b in zip(ready, bare_ready, strict=True)], "ratio")
        out["configurator_return_ready_ms"] = stats(return_ready, "ms")
        out["configurator_return_ratio_runs"] = stats(return_ratio, "ratio")
        out["configurator_return_worker_fetched_bytes"] = stats(return_fetched, "bytes")
        out["configurator_return_private_ready_ms"] = stats(private_ready, "ms")
        out["configurator_return_private_worker_fetched_bytes"] = stats(private_fetched, "bytes")
        # worker-init: the worker runs (the page's own work before it); worker-manifest: the
        # manifest revalidated; worker-pyodide-imported: pyodide.asm.mjs imported (parsed and
        # evaluated); worker-snapshot-checked: every part from the cache and checked;
        # worker-runtime-made: Pyodide's wasm compiled and instantiated and its runtime set up
        # (Emscripten's start, before the heap is copied); worker-pyodide-started: restored;
        # worker-ready: the engine's first answer computed.
        for name, values in return_steps.items():
            if values:
                out[f"configurator_return_at_{name.removeprefix('worker-').replace('-', '_')}_ms"] = stats(values, "ms")
        out["repaint_ms"] = stats(repaint, "ms")
        out["repaint_first_change_ms"] = stats(repaint_first, "ms")
        out["repaint_engine_only_ms"] = stats(repaint_engine, "ms")
        if loading_answer:
            out["loading_answer_ms"] = stats(loading_answer, "ms")
        out["first_answer_before_pyodide"] = stats(before_pyodide, "share of runs")
        out["configurator_pyodide_request_ms"] = stats(pyodide_request, "ms")

        # The engine inside Pyodide.
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{url}/bench/bare-pyodide.html?engine=1")
        deadline = time.monotonic() + 180
        while page.get_attribute("body", "data-state") not in ("engine", "error") and time.monotonic() < deadline:
            time.sleep(0.1)
        timings = json.loads(page.get_attribute("body", "data-engine") or "{}")
        context.close()
        if timings:
            out["engine_pyodide_one_workload_ms"] = stats([t * 1000 for t in timings["one_workload_s"]], "ms")
            out["engine_pyodide_other_users_ms"] = stats([t * 1000 for t in timings["other_users_s"]], "ms")
            out["engine_pyodide_every_model_format_s"] = stats([timings["every_model_format_s"]], "s")

        out.update(bench_weight(browser, url))
        browser.close()
    return out


_SITE: list[Path] = []  # the site being measured, to read bodies the browser does not hand back


def _keep_body(bodies: dict[str, bytes], response: Any) -> None:
    """Keep a response's bytes; for bodies the browser streams away (WebAssembly compiled while
    it downloads, or a page already gone), read the same file from the built site."""
    if not response.ok:
        return
    try:
        bodies[response.url] = response.body()
    except Exception:  # the browser kept no body for it
        path = _SITE[0] / response.url.split("/", 3)[3].split("?")[0]
        if path.is_file():
            bodies[response.url] = path.read_bytes()


_PACKED: dict[str, tuple[int, int]] = {}

BROTLI_SIZES = """
import fs from "node:fs"; import zlib from "node:zlib";
const { BROTLI_PARAM_QUALITY: Q, BROTLI_PARAM_LGWIN: W, BROTLI_PARAM_SIZE_HINT: H } = zlib.constants;
const sizes = process.argv.slice(1).map((f) => { const b = fs.readFileSync(f);
  return zlib.brotliCompressSync(b, { params: { [Q]: 11, [W]: 24, [H]: b.length } }).length; });
console.log(JSON.stringify(sizes));
"""


def packed(bodies: list[bytes]) -> tuple[int, int]:
    """gzip (level 6) and brotli (quality 11, 16 MB window, as `brotli` precompresses) sizes, added up.

    Python's standard library has no brotli; Node (which `make site` needs) has it in zlib.
    """
    keys = [hashlib.sha256(b).hexdigest() for b in bodies]
    todo = {k: b for k, b in zip(keys, bodies, strict=True) if k not in _PACKED}
    if todo:
        with tempfile.TemporaryDirectory() as tmp:
            files = []
            for key, body in todo.items():
                (Path(tmp) / key).write_bytes(body)
                files.append(str(Path(tmp) / key))
            run = subprocess.run(
                ["node", "--input-type=module", "-e", BROTLI_SIZES, *files],
                capture_output=True,
                text=True,
                check=True,
            )
            for (key, body), size in zip(todo.items(), json.loads(run.stdout), strict=True):
                _PACKED[key] = (len(gzip.compress(body, 6)), size)
    return sum(_PACKED[k][0] for k in keys), sum(_PACKED[k][1] for k in keys)


def bench_weight(browser: Any, url: str) -> dict[str, Any]:
    """Bytes each page transfers on a first visit (raw, and compressed as a static host would: gzip, brotli)."""
    from tests.test_site import PAGE_PATHS

    out: dict[str, Any] = {}
    pages: dict[str, Any] = {}
    for locale in LOCALES:
        for key, paths in PAGE_PATHS.items():
            context = browser.new_context()
            page = context.new_page()
            bodies: dict[str, bytes] = {}
            page.on("response", lambda r, bodies=bodies: _keep_body(bodies, r))
            page.goto(f"{url}/{locale}/{paths[locale]}")
            page.wait_for_load_state("networkidle")
            if key == "configurator":
                # Every byte of the engine's start: networkidle can come before the worker asks
                # for the snapshot (measured: a run counted none of its 31 MB).
                deadline = time.monotonic() + 120
                while (
                    page.get_attribute("[data-engine-status]", "data-engine-status") != "ready"
                    and time.monotonic() < deadline
                ):
                    time.sleep(0.1)
                page.wait_for_load_state("networkidle")
            raw = sum(len(b) for b in bodies.values())
            gz, br = packed(list(bodies.values()))
            pyodide = sum(len(b) for u, b in bodies.items() if "/pyodide/" in u or "/engine/snapshot-" in u)
            pages[f"{locale}/{key}"] = {
                "snapshot_bytes": sum(len(b) for u, b in bodies.items() if "/engine/snapshot-" in u),
                "raw_bytes": raw,
                "gzip_bytes": gz,
                "brotli_bytes": br,
                "pyodide_bytes": pyodide,
            }
            context.close()
    out["weight_pages"] = pages
    out["guide_pyodide_bytes"] = max(
        v["pyodide_bytes"]
        for k, v in pages.items()
        if k.split("/")[1] in ("nvlink", "image-video", "quantization", "moe")
    )
    # A reader who opens a guide, then the configurator, in one browser session.
    context = browser.new_context()
    page = context.new_page()
    bodies: dict[str, bytes] = {}
    page.on("response", lambda r: _keep_body(bodies, r))
    page.goto(f"{url}/en/guides/nvlink-or-pcie/")
    page.wait_for_load_state("networkidle")
    page.goto(f"{url}/en/configurator/")
    deadline = time.monotonic() + 120
    while page.get_attribute("[data-engine-status]", "data-engine-status") != "ready" and time.monotonic() < deadline:
        time.sleep(0.1)
    context.close()
    gz, br = packed(list(bodies.values()))
    out["journey_guide_then_configurator"] = {
        "raw_bytes": sum(len(b) for b in bodies.values()),
        "gzip_bytes": gz,
        "brotli_bytes": br,
    }
    manifest = json.loads((_SITE[0] / "engine" / "manifest.json").read_text())
    if "snapshot" in manifest and not all(v["snapshot_bytes"] for k, v in pages.items() if k.endswith("/configurator")):
        raise RuntimeError("a configurator's first visit was measured without the snapshot the site ships")
    out["configurator_first_visit_gzip_bytes"] = pages["fr/configurator"]["gzip_bytes"]
    out["configurator_first_visit_brotli_bytes"] = pages["fr/configurator"]["brotli_bytes"]
    return out


# --- engine in CPython ----------------------------------------------------------------------


def bench_engine_cpython(runs: int) -> dict[str, Any]:
    import macros.fitengine

    sys.modules.setdefault("fitengine", macros.fitengine)  # engine_timing imports it as the browser names it
    from engine_timing import time_engine

    from macros.catalog_loader import load_catalog

    catalog = load_catalog()
    timings = [time_engine(catalog) for _ in range(runs)]
    one = [t * 1000 for run in timings for t in run["one_workload_s"]]
    other = [t * 1000 for run in timings for t in run["other_users_s"]]
    every = [run["every_model_format_s"] for run in timings]
    return {
        "engine_cpython_one_workload_ms": stats(one, "ms"),
        "engine_cpython_other_users_ms": stats(other, "ms"),
        "engine_cpython_every_model_format_s": stats(every, "s"),
        "topo_1000_gpus_s": stats([time_topo(1000) for _ in range(runs)], "s"),
    }


def time_topo(gpus: int) -> float:
    """Seconds to read a `nvidia-smi topo -m` matrix of `gpus` GPUs (the parser must stay linear in its size)."""
    from macros.fitengine.nvidia_smi import parse_topo

    head = "\t" + "\t".join(f"GPU{j}" for j in range(gpus)) + "\tCPU Affinity\tNUMA Affinity"
    rows = [f"GPU{i}\t" + "\t".join("X" if i == j else "NV18" for j in range(gpus)) + "\t0-47\t0" for i in range(gpus)]
    text = "\n".join([head, *rows])
    start = time.perf_counter()
    topo = parse_topo(text)
    elapsed = time.perf_counter() - start
    assert topo.gpus == gpus
    return elapsed


# --- report ---------------------------------------------------------------------------------


def versions() -> dict[str, str]:
    from importlib.metadata import version

    chromium = subprocess.run([str(CHROMIUM), "--version"], capture_output=True, text=True, check=False).stdout.strip()
    pyodide = json.loads((ROOT / "node_modules" / "pyodide" / "package.json").read_text())["version"]
    names = ("mkdocs", "mkdocs-material", "mkdocs-macros-plugin", "babel", "pyyaml", "playwright")
    return {
        "python": platform.python_version(),
        "chromium": chromium,
        "pyodide": pyodide,
        **{n: version(n) for n in names},
    }


def machine() -> dict[str, Any]:
    memory = next(
        (line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")), "?"
    )
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        "?",
    )
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_kib": int(memory) if memory.isdigit() else memory,
        "system": platform.platform(),
    }


def check_targets(results: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, (op, target, what) in TARGETS.items():
        value = results.get(name)
        if isinstance(value, dict):
            value = value["median"]
        if value is None:
            out[name] = {"target": f"{op} {target}", "value": None, "met": False, "what": what}
            continue
        met = {"<=": value <= target, "<": value < target, "==": value == target}[op]
        out[name] = {"target": f"{op} {target}", "value": value, "met": met, "what": what}
    return out


def write_report(results: dict[str, Any]) -> None:
    path = ROOT / "bench" / "results.json"
    history = []
    if path.is_file():
        try:
            history = json.loads(path.read_text()).get("history", [])
        except json.JSONDecodeError:
            history = []
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()
    keys = ("configurator_ready_ratio", "configurator_return_ratio", "build_ratio", "repaint_ms", "preview_rebuild_s")
    summary = {k: results[k] for k in keys}
    summary["first_visit_gzip_bytes"] = results["figures"]["configurator_first_visit_gzip_bytes"]
    summary["first_visit_brotli_bytes"] = results["figures"]["configurator_first_visit_brotli_bytes"]
    history.append({"date": results["date"], "commit": commit, "note": results.get("note", ""), **summary})
    results["history"] = history
    path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")

    lines = [
        "# Benchmark results",
        "",
        f"Run {results['date']} on {results['machine']['cpu']} ({results['machine']['cores']} cores), commit {commit}.",
        f"Versions: {', '.join(f'{k} {v}' for k, v in results['versions'].items())}.",
        "",
        "## Targets",
        "",
        "| figure | what | target | median | met |",
        "|---|---|---|---|---|",
    ]
    for name, t in results["targets"].items():
        value = "—" if t["value"] is None else f"{t['value']:.3g}"
        lines.append(f"| `{name}` | {t['what']} | {t['target']} | {value} | {'yes' if t['met'] else '**no**'} |")
    lines += [
        "",
        "## Every figure (median, min–max over the runs)",
        "",
        "| figure | median | min | max | unit |",
        "|---|---|---|---|---|",
    ]
    for name, value in results["figures"].items():
        if isinstance(value, dict) and "median" in value:
            lines.append(
                f"| `{name}` | {value['median']:.4g} | {value['min']:.4g} | {value['max']:.4g} | {value['unit']} |"
            )
    lines += [
        "",
        "## Page weight on a first visit (bytes)",
        "",
        "Pyodide: its files and the snapshot of its heap, uncompressed.",
        "",
        "| page | raw | gzip | brotli | Pyodide |",
        "|---|---|---|---|---|",
    ]
    for page, w in results["figures"]["weight_pages"].items():
        brotli = f"{w['brotli_bytes']:,}" if "brotli_bytes" in w else "—"
        lines.append(f"| {page} | {w['raw_bytes']:,} | {w['gzip_bytes']:,} | {brotli} | {w['pyodide_bytes']:,} |")
    j = results["figures"]["journey_guide_then_configurator"]
    lines += [
        "",
        f"A reader who opens a guide then the configurator downloads {j['raw_bytes']:,} bytes"
        f" ({j['gzip_bytes']:,} gzip-compressed, {j['brotli_bytes']:,} brotli-compressed).",
    ]
    lines += [
        "",
        "## History",
        "",
        "| date | commit | ready ratio | return ratio | first visit MB (gzip/brotli) | build ratio | repaint ms | preview s | note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for h in history:
        back = f"{h['configurator_return_ratio']:.3f}" if "configurator_return_ratio" in h else "—"
        first = (
            f"{h['first_visit_gzip_bytes'] / 1e6:.2f} / {h['first_visit_brotli_bytes'] / 1e6:.2f}"
            if "first_visit_brotli_bytes" in h
            else "—"
        )
        lines.append(
            f"| {h['date']} | {h['commit']} | {h['configurator_ready_ratio']:.3f} | {back} | {first} | {h['build_ratio']:.3f} | {h['repaint_ms']:.1f} | {h['preview_rebuild_s']:.2f} | {h.get('note', '')} |"
        )
    (ROOT / "bench" / "results.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--note", default="", help="what changed since the last run, for the history")
    parser.add_argument(
        "--only",
        choices=["build"],
        help="measure this part alone and print its figures, writing no results (the build: cold and warm, ours and bare)",
    )
    args = parser.parse_args()
    if args.only == "build":
        with tempfile.TemporaryDirectory() as tmp:
            figures = bench_build(args.runs, Path(tmp))
        figures["build_ratio"] = figures["build_ratio_runs"]["median"]
        print(json.dumps(figures, indent=1))
        return
    if not CHROMIUM.exists():
        raise SystemExit(f"the benchmark drives Debian's Chromium at {CHROMIUM}: apt-get install chromium")
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        figures.update(bench_engine_cpython(args.runs))
        figures.update(bench_build(args.runs, work))
        figures.update(bench_preview(args.runs, work))
        site = work / "site"
        subprocess.run(build_command(site, list(LOCALES)), cwd=ROOT, env=ENV, check=True, capture_output=True)
        figures.update(bench_browser(args.runs, site))
    results = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "note": args.note,
        "machine": machine(),
        "versions": versions(),
        "figures": figures,
        # The median of each run's ratio: the two pages of a run share the machine's moment.
        "configurator_ready_ratio": figures["configurator_ready_ratio_runs"]["median"],
        "configurator_return_ratio": figures["configurator_return_ratio_runs"]["median"],
        "build_ratio": figures["build_ratio_runs"]["median"],
        "repaint_ms": figures["repaint_ms"]["median"],
        "preview_rebuild_s": figures["preview_rebuild_s"]["median"],
    }
    results["targets"] = check_targets({**figures, **results})
    write_report(results)
    print((ROOT / "bench" / "results.md").read_text())


if __name__ == "__main__":
    main()
