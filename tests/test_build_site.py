"""A build that fails or is killed leaves the previous site/ as it was and says why; catalog
text reaches pages as text; the locale 404 pages link and load under the site's path; npm
failing to reach its registry says so."""

from __future__ import annotations

import html
import os
import posixpath
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from macros.build.build_site import BuildFailed, build_site
from macros.i18n import SITE

from .conftest import ROOT
from .site_build import LOCALES
from .site_build import build_site as build_locales
from .test_catalog_loader import edit


def broken_config(tmp_path: Path) -> Path:
    """The French build with one guide calling a macro that does not exist."""
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs" / "fr", docs)
    guide = docs / "guides" / "quantification.md"
    guide.write_text(guide.read_text(encoding="utf-8") + "\n{{ no_such_macro() }}\n", encoding="utf-8")
    config = tmp_path / "mkdocs.broken.yml"
    config.write_text(
        f"INHERIT: {ROOT / 'mkdocs.yml'}\n"
        f"docs_dir: {docs}\n"
        f"theme:\n  name: material\n  custom_dir: {ROOT / 'overrides'}\n  language: fr\n"
        f"hooks:\n  - {ROOT / 'macros' / 'build' / 'build_hooks.py'}\n"
        f"watch:\n  - {ROOT / 'catalog'}\n"
        "plugins:\n  - search\n  - macros:\n"
        f"      module_name: {ROOT / 'macros'}\n      on_error_fail: true\n      on_undefined: strict\n",
        encoding="utf-8",
    )
    return config


def previous_site(target: Path) -> Path:
    marker = target / "fr" / "index.html"
    marker.parent.mkdir(parents=True)
    marker.write_text("the previous site", encoding="utf-8")
    return marker


def test_a_failing_build_names_the_page_and_the_message_and_keeps_the_site(tmp_path, capsys):
    target = tmp_path / "site"
    marker = previous_site(target)
    with pytest.raises(BuildFailed, match=r"build of fr \(mkdocs.broken.yml\) failed"):
        build_site(target, [broken_config(tmp_path)])
    err = capsys.readouterr().err
    assert "fr: quantification.md: UndefinedError: 'no_such_macro' is undefined" in err.replace("guides/", "")
    assert marker.read_text(encoding="utf-8") == "the previous site"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_the_collector_is_paused_for_a_build_and_resumed_as_it_was(tmp_path, monkeypatch, capsys):
    """Python's cyclic collector is off while a build runs, back on after it (a failed one too),
    and left off after it where it was off before."""
    import gc

    from macros.build import build_site as module

    seen = []
    real = module._build_site
    monkeypatch.setattr(module, "_build_site", lambda *a: seen.append(gc.isenabled()) or real(*a))
    assert gc.isenabled()
    with pytest.raises(BuildFailed):
        build_site(tmp_path / "site", [broken_config(tmp_path)])
    assert seen == [False]
    assert gc.isenabled()
    gc.disable()
    try:
        with module.collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_command_exits_non_zero_with_the_reason(tmp_path):
    target = tmp_path / "site"
    previous_site(target)
    code = (
        "import sys; from pathlib import Path; from macros.build.build_site import BuildFailed, build_site\n"
        "try:\n"
        f"    build_site(Path({str(target)!r}), [Path({str(broken_config(tmp_path))!r})])\n"
        "except BuildFailed as failed:\n"
        "    print('error:', failed.code, file=sys.stderr); sys.exit(1)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert run.returncode == 1
    lines = run.stderr.strip().splitlines()
    assert any("quantification.md: UndefinedError: 'no_such_macro' is undefined" in line for line in lines), lines
    assert lines[-1] == "error: build of fr (mkdocs.broken.yml) failed"
    assert "Traceback" not in run.stderr


def test_the_command_builds_the_locales_asked_over_the_folder(tmp_path):
    """`--locale en --over` (the benchmark's builds): English alone, written over what the folder
    holds (no fresh folder swapped in: a file already there stays); an unknown locale is refused."""
    target = tmp_path / "site"
    marker = target / "kept.txt"
    marker.parent.mkdir()
    marker.write_text("the previous site", encoding="utf-8")

    def command(*args: str) -> subprocess.CompletedProcess[str]:
        build = [sys.executable, "-m", "macros.build.build_site", *args, str(target)]
        return subprocess.run(build, cwd=ROOT, capture_output=True, text=True, check=False)

    run = command("--over", "--locale", "en")
    assert run.returncode == 0, run.stderr[-2000:]
    assert marker.read_text(encoding="utf-8") == "the previous site"
    assert (target / "en" / "index.html").is_file()
    assert not (target / "fr").exists()
    assert not (tmp_path / ".site.building").exists()
    wrong = command("--locale", "xx")
    assert wrong.returncode == 2 and "invalid choice: 'xx'" in wrong.stderr


def test_a_killed_build_leaves_the_previous_site_untouched(tmp_path):
    target = tmp_path / "site"
    marker = previous_site(target)
    staging = tmp_path / ".site.building"
    build = subprocess.Popen(
        [sys.executable, "-m", "macros.build.build_site", str(target)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    try:
        deadline = time.monotonic() + 120
        while not (staging / "fr" / "index.html").exists() and build.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        assert build.poll() is None, "the build ended before it could be interrupted"
        build.send_signal(signal.SIGKILL)
        build.wait()
    finally:
        if build.poll() is None:
            build.kill()
    assert marker.read_text(encoding="utf-8") == "the previous site"
    assert sorted(p.name for p in target.iterdir()) == ["fr"]
    # The next build clears what the killed one left, and swaps in a complete site.
    build_site(target)
    assert "the previous site" not in (target / "fr" / "index.html").read_text(encoding="utf-8")
    assert (target / "en" / "index.html").is_file() and (target / "engine" / "manifest.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


# Kills _swap before its n-th operation on the file system (a rename, a folder exchange or a
# removal): os._exit, like SIGKILL, runs no cleanup.
KILL_AT = """
import os, shutil, sys
from pathlib import Path
import macros.build.build_site as build
staging, target, at = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
done = [0]
def counted(real):
    def step(*args, **kwargs):
        if done[0] == at:
            os._exit(9)
        done[0] += 1
        return real(*args, **kwargs)
    return step
Path.rename = counted(Path.rename)
shutil.rmtree = counted(shutil.rmtree)
build.exchange = counted(build.exchange)
build._swap(staging, target)
print(done[0])
"""


def _site(folder: Path, text: str) -> None:
    (folder / "fr").mkdir(parents=True)
    (folder / "fr" / "index.html").write_text(text, encoding="utf-8")


def test_the_swap_leaves_a_whole_site_in_place_whenever_it_is_killed(tmp_path):
    from macros.build.build_site import _swap, exchange

    if sys.platform.startswith("linux"):  # the one-step exchange is what this machine uses
        a, b = tmp_path / "a", tmp_path / "b"
        _site(a, "a")
        _site(b, "b")
        assert exchange(a, b) and (a / "fr" / "index.html").read_text() == "b"
        shutil.rmtree(a)
        shutil.rmtree(b)
    at = 0
    while True:
        work = tmp_path / f"kill-{at}"
        staging, target = work / ".site.building", work / "site"
        _site(target, "the previous site")
        _site(staging, "the new site")
        run = subprocess.run(
            [sys.executable, "-c", KILL_AT, str(staging), str(target), str(at)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        assert (target / "fr" / "index.html").read_text(encoding="utf-8") in ("the previous site", "the new site"), at
        # The next build clears what this one left (build_site removes its staging folder first).
        shutil.rmtree(staging, ignore_errors=True)
        _site(staging, "the next site")
        _swap(staging, target)
        assert (target / "fr" / "index.html").read_text(encoding="utf-8") == "the next site"
        assert sorted(p.name for p in work.iterdir()) == ["site"], at
        if run.returncode == 0:  # killed before none of its steps: every point was tried
            assert int(run.stdout) == at
            break
        assert run.returncode == 9, run.stderr
        at += 1
    assert at >= 2


HOSTILE_SOURCE = '<script>alert(1)</script> [docs](javascript:alert(2)) <img src=x onerror="alert(3)"> *b* _i_'


def test_catalog_sources_are_rendered_as_text(tmp_path, catalog_copy):
    shown = 'memory_bandwidth: {value: 300, unit: GB/s, source: "yobitel.com/knowledge-base/nvidia-l4"'
    edit(catalog_copy, "gpus", shown, shown.replace('"yobitel.com/knowledge-base/nvidia-l4"', f"'{HOSTILE_SOURCE}'"))
    site = build_locales(tmp_path / "site", locales=("fr",), catalog=catalog_copy)
    page = (site / "fr" / "catalogue" / "index.html").read_text(encoding="utf-8")
    body = page[page.index("<article") :]
    assert "<script>alert" not in body and 'href="javascript' not in body and "<img src=x" not in body
    cells = [html.unescape(cell) for cell in re.findall(r"<td>(?:<cite[^>]*>)?([^<]*)(?:</cite>)?</td>", body)]
    assert HOSTILE_SOURCE in cells  # shown as it was typed, every character as text


@pytest.mark.parametrize("base", ["/", "/guides/gpu/"])
def test_locale_404_pages_link_and_load_under_the_site_path(tmp_path, monkeypatch, base):
    monkeypatch.setenv("SITE_BASE", base)
    site = build_locales(tmp_path / "site")
    for locale in LOCALES:
        html = (site / locale / "404.html").read_text(encoding="utf-8")
        urls = set(re.findall(r'(?:href|src)="([^"]+)"', html))
        assert urls
        for url in urls:
            assert url.startswith(base), url  # absolute: the page is served at any depth
            path = posixpath.normpath(url[len(base) - 1 :]).lstrip("/")
            assert not url.startswith("//"), url
            assert (site / path).is_file() or (site / path / "index.html").is_file(), url
        assert f'"base": "{base}{locale}"' in html
        # In the locale's own words, its way home under the site's path.
        assert f'<a href="{base}{locale}/">{SITE[locale]["not_found_home"]}</a>' in html.replace("&rsquo;", "’")
    root = (site / "404.html").read_text(encoding="utf-8")
    assert {f"{base}fr/", f"{base}en/"} <= set(re.findall(r'href="([^"]+)"', root))


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_npm_ci_failing_offline_says_why(tmp_path):
    for name in ("Makefile", "package.json", "package-lock.json"):
        shutil.copy(ROOT / name, tmp_path / name)
    env = {
        **os.environ,
        "npm_config_registry": "http://127.0.0.1:9/",
        "npm_config_cache": str(tmp_path / "cache"),
        "npm_config_fetch_retries": "0",
    }
    run = subprocess.run(
        ["make", "node_modules/.installed"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert run.returncode != 0
    assert "npm ci could not install Pyodide" in run.stderr
    assert "http://127.0.0.1:9/" in run.stderr


def test_the_manifest_holds_every_file_the_widgets_trust(site):
    import hashlib
    import json

    manifest = json.loads((site / "engine" / "manifest.json").read_text(encoding="utf-8"))
    trusted = {
        "catalog.json",
        *(p.relative_to(site / "engine").as_posix() for p in site.glob("engine/answers/**/*.json")),
        *(p.relative_to(site / "engine").as_posix() for p in site.glob("engine/messages/*.json")),
    }
    assert {f"messages/{locale}.json" for locale in ("fr", "en")} <= trusted
    # Every model's answers per format, and each model's alone.
    assert {n.count("/") for n in trusted if n.startswith("answers/")} == {2, 3}
    assert set(manifest["data"]) == trusted
    for name, digest in manifest["data"].items():
        assert hashlib.sha256((site / "engine" / name).read_bytes()).hexdigest() == digest, name


def test_an_invalid_catalog_fails_the_build_with_every_problem(tmp_path, catalog_copy, monkeypatch, capsys):
    edit(catalog_copy, "nodes", "    gpu: b200\n", "    gpu: b300\n")
    monkeypatch.setenv("GUIDE_CATALOG", str(catalog_copy))
    target = tmp_path / "site"
    marker = previous_site(target)
    with pytest.raises(BuildFailed):
        build_site(target)
    err = capsys.readouterr().err
    assert "node 8x-b200: gpu: expected a GPU id of catalog/gpus.yaml, got 'b300'" in err
    assert marker.read_text(encoding="utf-8") == "the previous site"
