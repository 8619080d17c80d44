"""Build every locale into site/ in one process: `python -m macros.build.build_site [SITE_DIR]`
(`--locale CODE`, repeated: those locales alone; `--over`: over what SITE_DIR holds, without
the fresh folder and the swap, as the benchmark's warm builds do).

One config per locale sits beside mkdocs.yml (mkdocs.yml is French, mkdocs.<code>.yml the
others). Building them in one process reads the catalog once for all locales. The build-time
answers (every model in every format, most of a cold build's work) are worked out once for all
locales in processes started first, one per core but this one's, while this one checks the
message catalogs and renders the pages (macros/build/answers_beside.py); the build waits for
them before it hashes the answers into the manifest. Then the root files (language chooser,
404) are written.

The site is built into a fresh folder beside the target (`.site.building`) and swapped in only
once every locale and every shipped file is there, in one step (see `_swap`): a build that
fails, or is killed, leaves the previous site/ as it was, and site/ is never missing. What
MkDocs and the macros say goes to stderr, a macro error as the page and the macro's message.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import gc
import logging
import os
import re
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

_MACRO_PAGE = re.compile(r"_File_: `([^`]*)`")
_MACRO_ERROR = re.compile(r"^_(?!File_)(\w+)_: (.+)$", re.MULTILINE)


class BuildLog(logging.Handler):
    """Prints MkDocs' warnings and errors, one line each; a macro error as its page and message."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.locale = ""
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "Macro Rendering Error" in message:
            page = _MACRO_PAGE.search(message)
            error = _MACRO_ERROR.search(message)
            where = page.group(1) if page else "(page unknown)"
            what = f"{error.group(1)}: {error.group(2)}" if error else "macro error"
            line = f"{self.locale}: {where}: {what}"
        else:
            first, *rest = message.strip().splitlines() or [""]
            # A long message (the catalog's problems, one a line) keeps its lines, up to 50.
            line = "\n".join(
                [f"{self.locale}: {record.levelname.lower()}: {first[:500]}"]
                + [f"{self.locale}: {more[:300]}" for more in rest[:50]]
            )
        self.lines.append(line)
        print(line, file=sys.stderr)


_log = BuildLog()


def _listen() -> BuildLog:
    logger = logging.getLogger("mkdocs")
    if _log not in logger.handlers:
        logger.addHandler(_log)
    return _log


def locale_configs() -> list[Path]:
    """Every locale's config, the source language's first (macros/locales.py)."""
    from macros.locales import locales

    return [locale.config for locale in locales()]


class BuildFailed(SystemExit):
    """A locale did not build; the message names it, the site folder is left as it was."""


def build_site(target: Path, configs: list[Path] | None = None, clean: bool = True, beside: bool = True) -> Path:
    """Build the given locale configs (all by default) into target/<locale>/.

    With `clean` (the default), into a fresh folder swapped in for `target` once complete;
    without, over what `target` holds (the benchmark's warm builds). With `beside` (the
    default), the build-time answers are worked out in processes beside this one meanwhile
    (macros/build/answers_beside.py); without, in the hooks after each locale's pages.
    """
    with collector_paused():
        return _build_site(target, configs, clean, beside)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a build runs, resumed after (as it was).

    A build makes millions of short-lived objects (the engine's steady states, the pages' trees)
    and reference counting frees nearly all of them; the collector's passes over them took about
    a fifth of the build-time answers' time (1.39 s against 1.12 s for every model and format),
    while the memory the build holds at its peak is the same with it paused (about 95 MB, and
    112 MB for the answers' process). What cycles a build leaves are collected once it resumes:
    a process that builds again (the tests') does not keep them."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _build_site(target: Path, configs: list[Path] | None, clean: bool, beside: bool) -> Path:
    chosen = configs or locale_configs()
    every = len(chosen) == len(locale_configs())
    if not clean:
        _build_all(target, chosen, every, beside)
        return target
    staging = target.with_name(f".{target.name}.building")
    shutil.rmtree(staging, ignore_errors=True)  # what a killed build left
    try:
        locales = _build_all(staging, chosen, every, beside)
        missing = incomplete(staging, locales, every)
        if missing:
            raise BuildFailed(f"build incomplete, {target} left as it was: missing {', '.join(missing[:5])}")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _swap(staging, target)
    return target


def _build_all(site: Path, chosen: list[Path], every: bool, beside: bool) -> list[str]:
    """The messages' check, every chosen locale's pages and, beside them, their answers."""
    from macros.build.answers_beside import AnswersBeside, announced
    from macros.locales import locales

    known = {locale.config.resolve(): locale.code for locale in locales()}
    codes = [known[config.resolve()] for config in chosen if config.resolve() in known] if beside else []
    # Started first, so that the answers are worked out while the catalogs are checked and the
    # pages rendered; a config of no known locale (a test's) has its answers in the hooks.
    job = AnswersBeside(site, codes) if codes else None
    # Started once the processes beside are forked (a fork copies one thread alone): Node, which
    # writes the configurator's markup, and git's answers, while the catalogs are checked.
    from macros.render.node_render import start

    start()
    git = GitInfoOnce()
    try:
        check_messages()
        if not job:
            return _build_into(site, chosen, every)
        job.give_words()
        with announced(codes):
            built = _build_into(site, chosen, every)
        failure = job.wait()
        if failure is not None:
            config = next(c for c in chosen if known.get(c.resolve()) == failure.locale)
            if failure.build_error:  # as MkDocs reports one: logged, then the build aborted
                _log.locale = failure.locale
                logging.getLogger("mkdocs.commands.build").error(failure.text)
                _log.locale = ""
            raise _failed(failure.locale, config, "" if failure.exit or failure.build_error else failure.text)
        from macros.build.shipping import hash_answers

        hash_answers(site, job.hashes)
        return built
    finally:
        git.close()
        if job is not None:
            job.stop()


class GitInfoOnce:
    """mkdocs-macros asks git for the repository's commit, tag, author and date (twelve commands,
    its `git` variable) at each locale's config, the build waiting for each command in turn: about
    0.1 s for two locales. The locales of a build share one repository, so this asks once, in a
    thread started with the build while the catalogs are checked, and hands each locale's config
    its own copy of the same answers until `close`."""

    def __init__(self) -> None:
        try:
            from mkdocs_macros import context
        except ImportError:  # another version of the plugin: it asks as it will
            self._context = None
            return
        self._context, self._real = context, context.get_git_info
        self._found: dict[str, Any] = {}
        self._thread = threading.Thread(target=self._ask, name="git-info", daemon=True)
        self._thread.start()
        context.get_git_info = self.get

    def _ask(self) -> None:
        self._found["info"] = self._real()

    def get(self) -> Any:
        """What mkdocs-macros' get_git_info gives (asked again here if the thread failed)."""
        self._thread.join()
        return copy.deepcopy(self._found["info"]) if "info" in self._found else self._real()

    def close(self) -> None:
        """mkdocs-macros' own lookup back in place."""
        if self._context is not None and self._context.get_git_info == self.get:
            self._context.get_git_info = self._real


def check_messages() -> None:
    """Check and compile every locale's message catalog first (macros/messages.py): a message
    missing, empty, fuzzy or with other placeholders stops the build, each named."""
    from macros.locales import codes
    from macros.messages import MessagesError, compile_all

    try:
        compile_all(codes())
    except MessagesError as error:
        lines = str(error).splitlines()
        for line in lines[1:]:
            print(line, file=sys.stderr)
        raise BuildFailed(f"message catalogs: {lines[0]}") from None


def _build_into(target: Path, chosen: list[Path], every: bool) -> list[str]:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from macros.build.site_root import write_root
    from macros.locales import locales as site_locales

    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    log = _listen()
    known = {locale.config.resolve(): locale.code for locale in site_locales()}
    locales = []
    for config_file in chosen:
        # A locale's config builds the language macros/locales.py gives it; another config is
        # read once more to learn its language (theme.language).
        locale = known.get(config_file.resolve()) or load_config(str(config_file))["theme"]["language"]
        log.locale = locale
        config = load_config(str(config_file), site_dir=str(target / locale), strict=True)
        try:
            build(config)
        except (Exception, SystemExit) as error:
            raise _failed(locale, config_file, "" if isinstance(error, SystemExit) else str(error)) from error
        locales.append(locale)
    log.locale = ""
    if every:
        write_root(target)
    return locales


def _failed(locale: str, config_file: Path, message: str) -> BuildFailed:
    """A locale's build failed with `message` (empty: MkDocs already said why)."""
    lines = message.strip().splitlines()
    if len(lines) > 1:  # a long message (the catalog's problems, one a line) goes before
        for line in lines[:50]:
            print(f"{locale}: {line[:300]}", file=sys.stderr)
    detail = f": {lines[0][:300]}" if len(lines) == 1 else ""
    return BuildFailed(f"build of {locale} ({config_file.name}) failed{detail}")


def incomplete(site: Path, locales: list[str], every: bool) -> list[str]:
    """What a complete build has and `site` lacks: each locale's pages, the engine, its answers."""
    wanted = [f"{locale}/index.html" for locale in locales] + [f"{locale}/404.html" for locale in locales]
    wanted += ["engine/manifest.json", "engine/catalog.json"]
    wanted += [f"engine/messages/{locale}.json" for locale in locales]
    if every:
        wanted += ["index.html", "404.html", "choose-language.js"]
    missing = [name for name in wanted if not (site / name).is_file()]
    missing += [f"engine/answers/{loc}/" for loc in locales if not any((site / "engine/answers" / loc).glob("*.json"))]
    pyodide = site / "pyodide"
    if not pyodide.is_dir() or not any(pyodide.rglob("pyodide.mjs")):
        missing.append("pyodide/")
    return missing


def _swap(staging: Path, target: Path) -> None:
    """Put the new site in place of the old so that `target` is a whole site at every instant.

    The first build renames its folder into place. Later ones exchange the two folders in one
    step (Linux's renameat2 with RENAME_EXCHANGE), then remove the old site, which the exchange
    left at `staging` (a build killed before that removal leaves it there, and the next build
    clears it first). Where the system has no such exchange, the old folder is moved aside and
    the new one renamed into its place: two renames, with no site between them.
    """
    if not target.exists():
        staging.rename(target)
        return
    if exchange(staging, target):
        shutil.rmtree(staging, ignore_errors=True)
        return
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)


_AT_FDCWD = -100  # <fcntl.h>: paths relative to the working directory
_RENAME_EXCHANGE = 2  # <linux/fs.h>


def exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step; False where the system cannot (not Linux, or a file system
    without the exchange), having changed nothing."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # a C library older than glibc 2.28
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    error = ctypes.get_errno()
    if error in (errno.EINVAL, errno.ENOSYS, errno.EPERM):  # the exchange is not offered here
        return False
    raise OSError(error, os.strerror(error), str(b))


def main(argv: list[str]) -> int:
    import argparse

    from macros.locales import locales

    parser = argparse.ArgumentParser(prog="python -m macros.build.build_site", description="Build the site.")
    parser.add_argument("target", nargs="?", type=Path, default=ROOT / "site", help="the site's folder (site/)")
    parser.add_argument(
        "--locale", action="append", choices=[locale.code for locale in locales()], help="build this one"
    )
    parser.add_argument("--over", action="store_true", help="build over the folder's files, without a swap")
    args = parser.parse_args(argv)
    configs = [locale.config for locale in locales() if locale.code in args.locale] if args.locale else None
    # The command builds, then ends: the collector stays paused past the build (collector_paused
    # resumes it only where it ran before), since resumed it would first walk every object the
    # build made (0.05 s), and what is left is frozen, since Python's last collections at the exit
    # would walk it all again (a quarter of a second).
    gc.disable()
    try:
        build_site(args.target, configs, clean=not args.over)
    except BuildFailed as failed:
        print(f"error: {failed.code}", file=sys.stderr)
        return 1
    finally:
        gc.freeze()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
