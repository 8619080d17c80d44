"""The build-time answers worked out in a second process while the first one renders the pages.

The answers (every model in every format, for each locale: macros/build/shipping.py) are most of
a cold build's work, and they need nothing of the pages. So `make site`
(macros/build/build_site.py) starts this process first, before anything else: it reads the
catalog and asks the engine every answer (macros/build/build_answers.py) while the first process
checks the message catalogs and renders the pages on the machine's other core. Once the catalogs
are checked, the first process hands it each locale's engine words (`give_words`); it writes the
answers files, and the build waits for it (`wait`) before it hashes them into the manifest and
swaps the folder in. The files are the ones the hooks would have written themselves (a test
holds a build's site equal, byte for byte, to one built with the answers in the hooks).

The hooks learn that a locale's answers are written beside them from the environment
(`ENVIRONMENT`: the locales' codes), which the build sets around its own MkDocs builds only:
`mkdocs build` alone, and the preview, do them in the hooks as before.

A failure here stops the build as it would have in the hooks: named with the locale whose
answers failed (`Failure`), after anything the pages' build found wrong (that one stops the
second process at once).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

ENVIRONMENT = "SITE_ANSWERS_BESIDE"  # the locales whose answers another process writes, comma-separated


def written_beside(locale: str) -> bool:
    """Whether the build writes `locale`'s answers in its second process (the hooks then do not)."""
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
    """How the second process starts: a fork where this process runs one thread (it is then
    started at once, with what is already imported), else a fresh interpreter (a fork copies
    the calling thread alone, and a lock another thread held would stay locked in the copy)."""
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    return "spawn"


class AnswersBeside:
    """The second process of one build: it writes the answers of `locales` into `shared`."""

    def __init__(self, shared: Path, locales: list[str], method: str | None = None) -> None:
        self.shared = shared
        self.locales = locales
        method = method or start_method()
        if method == "fork":
            _prepare()
        context = multiprocessing.get_context(method)
        self._connection, theirs = context.Pipe()
        self._process = context.Process(target=_work, args=(theirs, shared, locales, os.getpid()), daemon=True)
        self._process.start()
        theirs.close()

    def give_words(self) -> None:
        """Hand the process each locale's engine words (once the message catalogs are checked)."""
        from macros.messages import engine_words

        with contextlib.suppress(OSError):  # it ended: `wait` says why
            self._connection.send({locale: engine_words(locale) for locale in self.locales})

    def wait(self) -> Failure | None:
        """Wait for every answers file; the failure, if one stopped them."""
        try:
            outcome = self._connection.recv()
        except (EOFError, OSError):
            self._process.join()
            code = self._process.exitcode
            return Failure(self.locales[0], f"the build-time answers' process ended without a word (exit code {code})")
        finally:
            self.stop()
        return outcome if isinstance(outcome, Failure) else None

    def stop(self) -> None:
        """End the process (done, or no longer wanted) and wait for it."""
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
        self._connection.close()


def _prepare() -> None:
    """Before a fork: import what both processes use and read the catalog (kept by
    catalog_loader.read_catalog), once for the two of them. A catalog with problems is left for
    the pages' build to report, as it would without this process."""
    from macros.build import build_answers, shipping  # noqa: F401 (imported for the fork)
    from macros.catalog_loader import CATALOG_DIR, read_catalog
    from macros.render import locale_format  # noqa: F401 (imported for the fork)

    read_catalog(os.environ.get("GUIDE_CATALOG") or CATALOG_DIR)


def _work(connection: Connection, shared: Path, locales: list[str], parent: int) -> None:
    """The second process: the answers, then their files once the words come."""
    _end_with_parent(parent)
    locale = locales[0]
    try:
        from macros.build.build_answers import raw_answers
        from macros.build.shipping import write_answers
        from macros.catalog_loader import read_for_build

        answers = raw_answers(read_for_build())
        words: dict[str, dict[str, str]] = connection.recv()
        for locale in locales:
            write_answers(shared, answers, locale, words[locale])
        connection.send(None)
    except EOFError:  # the build gave up (its pages failed): nothing to say
        return
    except BaseException as error:  # every failure is the build's to report
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
