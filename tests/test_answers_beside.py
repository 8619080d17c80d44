"""The build-time answers worked out in processes beside the build (macros/build/answers_beside.py) give
the site the hooks alone would have given, byte for byte, and a failure there stops the build
with the message it would have had in the hooks."""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from macros.build import answers_beside, shipping
from macros.build.build_site import BuildFailed, build_site

from .site_build import LOCALE_CONFIGS, ROOT


def contents(site: Path) -> dict[str, str]:
    """Every file of a built site by its path, as the SHA-256 of its bytes."""
    return {
        path.relative_to(site).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(site.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def serial_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both locales built with the answers in the hooks, after each locale's pages."""
    return build_site(tmp_path_factory.mktemp("serial") / "site", beside=False)


@pytest.mark.parametrize(("method", "cores"), [("fork", 2), ("fork", 3), ("spawn", 4)])
def test_the_answers_written_beside_give_the_site_the_hooks_give(serial_site, tmp_path, monkeypatch, method, cores):
    # The build's own process must not work out the answers: the processes beside write them.
    def not_here(*args: object) -> None:
        raise AssertionError("the hooks computed the answers that the processes beside write")

    monkeypatch.setattr(shipping, "ship_answers", not_here)
    monkeypatch.setattr(answers_beside, "start_method", lambda: method)
    monkeypatch.setattr(answers_beside, "usable_cores", lambda: cores)
    site = build_site(tmp_path / "site")
    built, serial = contents(site), contents(serial_site)
    assert sum(name.startswith("engine/answers/") for name in serial) > 100
    assert sorted(built) == sorted(serial)
    assert [name for name in serial if built[name] != serial[name]] == []


def failing_on(locale: str, error: Exception) -> Callable[..., None]:
    """A stand-in for shipping.write_answers that fails on `locale`."""
    real = shipping.write_answers

    def write_answers(shared: Path, answers: dict, code: str, words: dict) -> dict[str, str]:
        if code == locale:
            raise error
        return real(shared, answers, code, words)

    return write_answers


@pytest.mark.parametrize(
    "error",
    [ValueError("no words for the reason 'tp_too_wide'"), PluginError("the answers' folder is full")],
    ids=["exception", "mkdocs-error"],
)
def test_a_failure_of_the_answers_stops_the_build_as_it_would_in_the_hooks(tmp_path, monkeypatch, capsys, error):
    monkeypatch.setattr(shipping, "write_answers", failing_on("en", error))
    monkeypatch.setattr(answers_beside, "start_method", lambda: "fork")  # the processes see the stand-in
    said = {}
    for beside in (False, True):
        target = tmp_path / f"site-{beside}"
        marker = target / "fr" / "index.html"
        marker.parent.mkdir(parents=True)
        marker.write_text("the previous site", encoding="utf-8")
        capsys.readouterr()
        with pytest.raises(BuildFailed) as failed:
            build_site(target, [LOCALE_CONFIGS["fr"], LOCALE_CONFIGS["en"]])
        err = capsys.readouterr().err
        said[beside] = (str(failed.value.code), [line for line in err.splitlines() if str(error) in line])
        assert marker.read_text(encoding="utf-8") == "the previous site"
        assert not (tmp_path / f".site-{beside}.building").exists()
    assert said[True] == said[False]
    message, lines = said[True]
    assert message.startswith(f"build of en ({LOCALE_CONFIGS['en'].name}) failed")
    assert str(error) in message + "".join(lines)


def test_a_process_beside_that_dies_stops_the_build_saying_so(tmp_path, monkeypatch, capsys):
    def dies(shared: Path, answers: dict, code: str, words: dict) -> None:
        os._exit(3)  # as the system's out-of-memory killer would end it: no word, no cleanup

    monkeypatch.setattr(shipping, "write_answers", dies)
    monkeypatch.setattr(answers_beside, "start_method", lambda: "fork")  # the processes see the stand-in
    with pytest.raises(BuildFailed) as failed:
        build_site(tmp_path / "site", [LOCALE_CONFIGS["fr"], LOCALE_CONFIGS["en"]])
    assert failed.value.code == (
        f"build of fr ({LOCALE_CONFIGS['fr'].name}) failed: "
        "the build-time answers' process ended without a word (exit code 3)"
    )
    assert not (tmp_path / "site").exists() and not (tmp_path / ".site.building").exists()


def _stat(pid: int) -> tuple[int, str] | None:
    """A process's parent and state (/proc/<pid>/stat); None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), fields[0]


def _running(pid: int) -> bool:
    found = _stat(pid)
    return found is not None and found[1] not in "ZX"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_processes_beside_end_with_a_killed_build(tmp_path):
    """A build killed while its answers are worked out leaves no process writing into its folder."""
    build = subprocess.Popen(
        [sys.executable, "-m", "macros.build.build_site", str(tmp_path / "site")],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    try:
        own = Path(f"/proc/{build.pid}/cmdline").read_bytes()
        beside: list[int] = []
        deadline = time.monotonic() + 60
        while not beside and build.poll() is None and time.monotonic() < deadline:
            pids = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]
            # The processes beside are forks: the build's own command line, the build their parent.
            for pid in pids:
                with contextlib.suppress(OSError):
                    found = _stat(pid)
                    if found and found[0] == build.pid and Path(f"/proc/{pid}/cmdline").read_bytes() == own:
                        beside.append(pid)
            time.sleep(0.01)
        assert beside, "no process beside the build was seen"
        build.send_signal(signal.SIGKILL)
        build.wait()
        # They would end by themselves once their answers are done, seconds later: the system ends them now.
        deadline = time.monotonic() + 1
        while any(_running(pid) for pid in beside) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [pid for pid in beside if _running(pid)] == []
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_an_answer_encoded_once_is_the_json_of_the_answer_with_its_reasons(catalog, locale):
    """The figures of an answer are encoded once for every locale (shipping.encode_answers) and
    each locale's reason sentences put in their rows: the text is json.dumps's of the answer
    that with_reason_text gives, for every model in two formats."""
    import json

    from macros.build.engine_cache import raw_answer
    from macros.fitengine.api import reason_text, with_reason_text
    from macros.messages import engine_words
    from macros.render.locale_format import Formatter

    words, fmt = engine_words(locale), Formatter(locale)

    def number(value: float) -> str:
        return fmt.number(value, 1)

    raw = {
        model: {fmt_id: raw_answer(catalog, {"model": model, "format": fmt_id}) for fmt_id in ("bf16", "gguf-q4_k_m")}
        for model in [*catalog.llms, *catalog.diffusion]
    }
    encoded = shipping.encode_answers(raw)
    for model, by_format in raw.items():
        for fmt_id, answer in by_format.items():
            one = encoded[model][fmt_id]
            text = one.text([reason_text(row, words, number) for row in answer["rows"]])
            want = with_reason_text(answer, words, number)
            assert text == json.dumps(want, ensure_ascii=False, separators=(",", ":")), (model, fmt_id)
