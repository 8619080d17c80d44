"""The build-time answers worked out in processes beside the build while it renders the pages.

The answers (every model in every format, for each locale: macros/build/shipping.py) are most of
a cold build's work, and they need nothing of the pages. So `make site`
(macros/build/build_site.py) starts these processes first: one per usable core but the one the
pages' build keeps (one at least), each with its share of the formats (an answers file holds one
format's), forked once the catalog is read and the engine imported. Each asks the engine its
answers (macros/build/build_answers.py) while the build checks the message catalogs and renders
the pages; once the catalogs are checked, the build hands them each locale's engine words
(`give_words`); they write their answers files, and the build waits for them (`wait`) before it
hashes the files into the manifest and swaps the folder in. The files are the ones the hooks would have written themselves (a test holds a
build's site equal, byte for byte, to one built with the answers in the hooks).

On two cores, a cold build of both locales ended as soon with one process beside as with two
(the pages' build then shares its core), and two at a lower priority (nice 5) ended later as
soon as other work ran on the machine: they then got little of it.

The hooks learn that a locale's answers are written beside them from the environment
(`ENVIRONMENT`: the locales' codes), which the build sets around its own MkDocs builds only:
`mkdocs build` alone, and the preview, do them in the hooks as before.

A failure here stops the build as it would have in the hooks: named with the locale whose
answers failed (`Failure`; the first locale's, when several did), after anything the pages'
build found wrong (that one stops the processes at once).
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

ENVIRONMENT = "SITE_ANSWERS_BESIDE"  # the locales whose answers the processes beside write, comma-separated


def written_beside(locale: str) -> bool:
    """Whether the build writes `locale`'s answers in processes beside it (the hooks then do not)."""
    return locale in os.environ.get(ENVIRONMENT, "").split(",")


@dataclass(frozen=True)
class Failure:
    """Why the answers of `locale` could not be written: the exception's text, and whether it
    was one MkDocs reports as a build error (logged, where others are raised)."""

    locale: str
    text: str
    build_error: bool = False
    exit: bool = False


def start_method() -> str:
    """How the processes start: a fork where this process runs one thread (started at once,
    with what is already imported and read), else a fresh interpreter (a fork copies the calling
    thread alone, and a lock another thread held would stay locked in the copy)."""
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    return "spawn"


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class AnswersBeside:
    """The answers of `locales`, written into `shared` by processes beside this one: one per
    usable core but this one's, each for its share of the formats (an answers file holds one
    format's)."""

    def __init__(
        self, shared: Path, locales: list[str], method: str | None = None, processes: int | None = None
    ) -> None:
        self.locales = locales
        self.hashes: dict[str, str] = {}  # the SHA-256 of each file written, by name (after `wait`)
        self._jobs: list[tuple[multiprocessing.process.BaseProcess, Connection]] = []
        method = method or start_method()
        # Read here, before a fork, once for every process (catalog_loader.read_catalog keeps it);
        # a catalog with problems is left for the pages' build to report, with no process beside.
        formats = _formats()
        if not formats:
            return
        count = max(1, min(processes or usable_cores() - 1, len(formats)))
        context = multiprocessing.get_context(method)
        for index in range(count):
            ours, theirs = context.Pipe()
            # A fork holds copies of this process's ends of the pipes: it closes them, so that
            # it reads the end of its own pipe when this process is gone.
            copies = [ours, *(connection for _process, connection in self._jobs)] if method == "fork" else []
            share = formats[index::count]
            process = context.Process(
                target=_work, args=(theirs, shared, locales, share, os.getpid(), copies), daemon=True
            )
            process.start()
            theirs.close()
            self._jobs.append((process, ours))

    def __bool__(self) -> bool:
        """Whether processes write the answers (none when the catalog has problems)."""
        return bool(self._jobs)

    def give_words(self) -> None:
        """Hand the processes each locale's engine words (once the message catalogs are checked)."""
        from macros.messages import engine_words

        words = {locale: engine_words(locale) for locale in self.locales}
        for _process, connection in self._jobs:
            with contextlib.suppress(OSError):  # it ended: `wait` says why
                connection.send(words)

    def wait(self) -> Failure | None:
        """Wait for every answers file; the failure, if one stopped them (of the first locale,
        as the hooks would have met it first)."""
        failures = []
        try:
            for process, connection in self._jobs:
                try:
                    outcome = connection.recv()
                except (EOFError, OSError):
                    process.join()
                    text = f"the build-time answers' process ended without a word (exit code {process.exitcode})"
                    outcome = Failure(self.locales[0], text)
                if isinstance(outcome, Failure):
                    failures.append(outcome)
                elif isinstance(outcome, dict):
                    self.hashes.update(outcome)
        finally:
            self.stop()
        return min(failures, key=lambda failure: self.locales.index(failure.locale), default=None)

    def stop(self) -> None:
        """End the processes (done, or no longer wanted) and wait for them."""
        for process, connection in self._jobs:
            if process.is_alive():
                process.kill()
            process.join()
            connection.close()


def _formats() -> list[str]:
    """The catalog's format ids, read (with what both processes use imported) before a fork; none
    when the catalog has problems."""
    from macros.build import build_answers, shipping  # noqa: F401 (imported for the fork)
    from macros.catalog_loader import CATALOG_DIR, read_catalog
    from macros.render import locale_format  # noqa: F401 (imported for the fork)

    data, problems = read_catalog(os.environ.get("GUIDE_CATALOG") or CATALOG_DIR)
    return [] if problems else [fmt["id"] for fmt in data["formats"]]


def _work(
    connection: Connection, shared: Path, locales: list[str], formats: list[str], parent: int, copies: list[Connection]
) -> None:
    """A process beside the build: the answers in `formats`, then their files once the words come."""
    for copy in copies:
        copy.close()
    _end_with_parent(parent)
    # It ends when its files are written: the collector stays off, as in the build that made it
    # (build_site.collector_paused; a fresh interpreter starts with it on).
    gc.disable()
    locale = locales[0]
    try:
        from macros.build.build_answers import raw_answers
        from macros.build.shipping import encode_answers, write_answers
        from macros.catalog_loader import read_for_build

        answers = encode_answers(raw_answers(read_for_build(), formats))
        words: dict[str, dict[str, str]] = connection.recv()
        hashes: dict[str, str] = {}
        for locale in locales:
            hashes |= write_answers(shared, answers, locale, words[locale])
        connection.send(hashes)  # the files' SHA-256, for the manifest: the build need not read them
    except EOFError:  # the build gave up (its pages failed): nothing to say
        return
    except BaseException as error:  # every failure is the build's to report
        with contextlib.suppress(OSError):  # unless the build is gone
            connection.send(_failure(locale, error))
    finally:
        connection.close()


def _failure(locale: str, error: BaseException) -> Failure:
    from mkdocs.exceptions import BuildError

    return Failure(
        locale,
        "" if isinstance(error, SystemExit) else str(error),
        build_error=isinstance(error, BuildError),
        exit=isinstance(error, SystemExit),
    )


def _end_with_parent(parent: int) -> None:
    """Linux: have the system kill this process when the build's process dies (a killed build
    leaves no writer behind in its folder)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    pr_set_pdeathsig = 1  # <linux/prctl.h>
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the build died before the request took hold
        os._exit(0)


@contextlib.contextmanager
def announced(locales: list[str]) -> Iterator[None]:
    """Tell the hooks, for the time of the build, which locales' answers are written beside."""
    before = os.environ.get(ENVIRONMENT)
    os.environ[ENVIRONMENT] = ",".join(locales)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENVIRONMENT, None)
        else:
            os.environ[ENVIRONMENT] = before
