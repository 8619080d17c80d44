"""The start of the Pyodide whose heap becomes the configurator's snapshot, made smaller.

`macros/build/pyodide_snapshot.mjs` writes this file into that Pyodide's site-packages as
`sitecustomize.py`, which Python's `site` imports before Pyodide imports its own modules. It
runs there only: the build's CPython never imports it, and a browser that starts Pyodide plainly
(no snapshot) never sees it. Two things, each measured on the compressed snapshot:

- Modules that Pyodide's start imports only inside `try: ... except ImportError` (asyncio's TLS,
  the archive formats of shutil and zipfile) are not imported: the worker runs the engine, which
  uses none of them, and the code that tried them carries on without (as where Python is built
  without them). 0.13 MB off the gzip-compressed snapshot.
- The standard library's code (Pyodide ships it as sources, compiled at import) keeps no line
  numbers: each instruction's location is "none", so a traceback through a standard library
  frame shows no line there. The engine, imported from its own folder, keeps every line.
  Another 0.13 MB.

Docstrings and `assert` statements go too, through the builder's `PYTHONOPTIMIZE=2` (Python's
`-OO`): 0.37 MB. The engine has no `assert`, so it computes the same there as at build time.

Once the engine is imported, the builder calls `leave_out()`: the modules Pyodide's start imported
for what the worker never does (running coroutines, and installing packages) are emptied, so what
only they held is freed before the heap is saved. 0.43 MB.

Then, once it has zeroed the heap's free blocks, it calls `renew_std_streams()`: Python's start
gave sys.stdin, stdout and stderr buffers of 128 kB taken from memory freed just before, which
still held what zipimport had read of the standard library's zip (compressed, so incompressible
again), and a buffer nobody fills keeps it. New streams take zeroed memory. 0.15 MB.
"""

from __future__ import annotations

# Only modules built into the wasm or frozen in it here: a module read from the standard
# library's zip before install() would keep its line numbers. The rest is imported below it.
import sys
import zipimport

# Imported by Pyodide's start only where an ImportError is expected (asyncio/base_events.py,
# selector_events.py and sslproto.py for ssl; shutil.py and zipfile/__init__.py for the others).
OPTIONAL = ("ssl", "_ssl", "bz2", "_bz2", "lzma", "_lzma", "compression.zstd", "_zstd")

# A location table entry is one byte, then its data: bit 7 set, the entry's code in bits 3 to 6,
# and in bits 0 to 2 how many code units it covers, less one. Code 15 is "no location" and has no
# data (CPython's InternalDocs/code_objects.md, "Source code locations").
NO_LOCATION = 0x80 | 15 << 3
UNITS_PER_ENTRY = 8


def no_lines(code: types.CodeType) -> types.CodeType:
    """`code` and the code it holds (functions, classes, comprehensions) with no location for any instruction."""
    units = len(code.co_code) // 2
    table = bytes([NO_LOCATION | UNITS_PER_ENTRY - 1]) * (units // UNITS_PER_ENTRY)
    if units % UNITS_PER_ENTRY:
        table += bytes([NO_LOCATION | units % UNITS_PER_ENTRY - 1])
    consts = tuple(no_lines(c) if isinstance(c, type(code)) else c for c in code.co_consts)
    return code.replace(co_linetable=table, co_consts=consts)


_zip_get_code = zipimport.zipimporter.get_code


def _get_code_without_lines(self: zipimport.zipimporter, fullname: str) -> types.CodeType:
    return no_lines(_zip_get_code(self, fullname))


def install() -> None:
    """Keep the optional modules out and strip the zipped standard library's lines from here on."""
    for name in OPTIONAL:
        sys.modules.setdefault(name, None)  # `import name` then raises ImportError
    zipimport.zipimporter.get_code = _get_code_without_lines


if __name__ == "sitecustomize":
    install()

# Imported once install() has run, so stripped like the rest of the standard library.
import atexit  # noqa: E402
import dis  # noqa: E402
import gc  # noqa: E402
import io  # noqa: E402
import os  # noqa: E402
import types  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402

# Imported by Pyodide's start for what the configurator's worker never does, and by nothing the
# engine imports (tests/test_pyodide_snapshot.py checks the restored heap with still_needed()):
# - asyncio and Pyodide's event loop (pyodide.webloop), with what asyncio alone imported: the
#   worker runs no coroutine (Pyodide's core keeps the asyncio module itself: emptied, it stays);
# - the package loader's archive and file tools: the worker installs no package.
# Not these, which functions kept in the heap import when they run (still_needed() names them):
# struct (zipimport reads the standard library's zip with it), threading, heapq, locale.
LEFT_OUT = (
    "asyncio",
    "concurrent",
    "contextvars",
    "logging",
    "pyodide.webloop",
    "selectors",
    "signal",
    "socket",
    "string",
    "subprocess",
    "bisect",
    "compression",
    "fnmatch",
    "glob",
    "pathlib",
    "pyodide.common",
    "random",
    "shutil",
    "tempfile",
    "zipfile",
)

# Kept functions that import a left-out module and may stay: os.popen starts a process, which no
# browser can.
MAY_IMPORT_LEFT_OUT = {("os", "popen"): "subprocess"}

# What Pyodide reads of its package loader when it restores a heap (finalizeBootstrap in
# pyodide.asm.mjs): the two folders, by `__str__()`, and init_loaded_packages(). The rest of the
# module goes with the tools it imported.
PACKAGE_LOADER = "pyodide._package_loader"


class Folder:
    """A folder's path that Pyodide's JavaScript reads with `__str__()`, as it reads a pathlib.Path."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def __str__(self) -> str:
        return self.path


def no_package_to_record(site_packages: str) -> Callable[[], None]:
    """Pyodide's init_loaded_packages() for a runtime that installs none: a restored heap starts on
    a new file system, whose site-packages holds no package. Says so if one is there after all."""

    def init_loaded_packages() -> None:
        # os, not pathlib: pathlib is left out.
        found = sorted(name for name in os.listdir(site_packages) if name.endswith(".dist-info"))  # noqa: PTH208
        if found:
            raise RuntimeError(
                f"{site_packages} holds packages ({', '.join(found)}), which the configurator's "
                "Pyodide snapshot cannot load (macros/build/snapshot_site.py)"
            )

    return init_loaded_packages


def _is_left_out(name: str, names: tuple[str, ...]) -> bool:
    return any(name == left or name.startswith(left + ".") for left in names)


def _codes(value: object) -> Iterator[types.CodeType]:
    """The code of a function, or of a class's methods and properties."""
    members = list(vars(value).values()) if isinstance(value, type) else [value]
    for member in members:
        if isinstance(member, (classmethod, staticmethod)):
            member = member.__func__
        elif isinstance(member, property):
            member = member.fget
        if isinstance(member, types.FunctionType):
            yield member.__code__


def _imports(code: types.CodeType) -> Iterator[str]:
    for instruction in dis.get_instructions(code):
        if instruction.opname == "IMPORT_NAME":
            yield instruction.argval
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _imports(const)


def still_needed(names: tuple[str, ...] = LEFT_OUT) -> list[str]:
    """Why `names` cannot be left out: kept modules holding one of them, or a function of one, or
    kept functions importing one when they run (what MAY_IMPORT_LEFT_OUT allows aside)."""
    reasons = []
    for module_name, module in sorted(sys.modules.items()):
        # (Pyodide lists JavaScript objects among the modules: pyodide_js, js.)
        if (
            not isinstance(module, types.ModuleType)
            or _is_left_out(module_name, names)
            or module_name == PACKAGE_LOADER
        ):
            continue
        for key, value in list(vars(module).items()):
            if isinstance(value, types.ModuleType) and _is_left_out(value.__name__, names):
                if value.__name__ != f"{module_name}.{key}":  # a package's own submodule: emptied too
                    reasons.append(f"{module_name}.{key} is the module {value.__name__}")
            elif isinstance(value, types.FunctionType) and _is_left_out(value.__module__ or "", names):
                reasons.append(f"{module_name}.{key} is a function of {value.__module__}")
            elif isinstance(value, types.FunctionType) or (
                isinstance(value, type) and vars(value).get("__module__") == module_name
            ):
                for code in _codes(value):
                    for imported in _imports(code):
                        allowed = MAY_IMPORT_LEFT_OUT.get((module_name, code.co_name)) == imported
                        if _is_left_out(imported, names) and not allowed:
                            reasons.append(f"{module_name}.{code.co_qualname} imports {imported}")
    return sorted(set(reasons))


def _emptied(name: str) -> Callable[[str], object]:
    def __getattr__(attribute: str) -> object:
        raise AttributeError(
            f"{name}.{attribute}: {name} is left out of the configurator's Pyodide snapshot (macros/build/snapshot_site.py)"
        )

    return __getattr__


def _empty(module: types.ModuleType, keep: dict[str, object]) -> None:
    """Empty `module`'s namespace but for `keep` and the JavaScript objects it holds, which the
    snapshot must find where they were (Pyodide saves its table of them with the heap)."""
    # Imported by Pyodide's start; elsewhere there is no JavaScript object to keep.
    ffi = sys.modules.get("pyodide.ffi")
    js_proxy = ffi.JsProxy if ffi is not None else ()
    name = module.__name__
    namespace = vars(module)
    for value in list(namespace.values()):
        if callable(value):
            atexit.unregister(value)  # logging registers its shutdown, which would find nothing
    keep = {**{k: v for k, v in namespace.items() if isinstance(v, js_proxy)}, **keep}
    namespace.clear()
    namespace.update(keep, __name__=name, __getattr__=_emptied(name))


def leave_out(names: tuple[str, ...] = LEFT_OUT) -> list[str]:
    """Empty the modules `names` (and their submodules) and forget them, then collect: the objects
    only they held are freed. A module another object still refers to (Pyodide's core keeps
    asyncio) stays as an empty shell whose attributes raise an AttributeError saying why; an
    import of one raises ImportError (the restored runtime's standard library does not hold it).
    Whether a kept module still needs one is checked by the tests, in the restored heap
    (still_needed()): reading the functions' bytecode here would keep a copy of each in the heap."""
    gone = sorted(name for name in sys.modules if _is_left_out(name, names))
    # Freed as they go, objects of an emptied module may run a callback of it that finds its names
    # gone (logging's handlers remove themselves from its list): said nowhere, as nothing is lost.
    hook = sys.unraisablehook
    emptied = {id(vars(sys.modules[name])) for name in gone if sys.modules[name] is not None}

    def quiet(unraisable: object) -> None:
        if not (isinstance(getattr(unraisable, "exc_value", None), NameError) and _raised_in(unraisable, emptied)):
            hook(unraisable)  # type: ignore[arg-type]

    sys.unraisablehook = quiet
    try:
        for name in gone:
            module = sys.modules.pop(name)
            if module is not None:
                _empty(module, {})
        loader = sys.modules.get(PACKAGE_LOADER)
        if loader is not None:
            site_packages = str(loader.SITE_PACKAGES)
            _empty(
                loader,
                {
                    "SITE_PACKAGES": Folder(site_packages),
                    "DSO_DIR": Folder(str(loader.DSO_DIR)),
                    "init_loaded_packages": no_package_to_record(site_packages),
                },
            )
        gc.collect()
    finally:
        sys.unraisablehook = hook
    return gone


def _raised_in(unraisable: object, namespaces: set[int]) -> bool:
    """Whether the unraisable error was raised by code whose globals are one of `namespaces`."""
    trace = getattr(unraisable, "exc_traceback", None)
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    return trace is not None and id(trace.tb_frame.f_globals) in namespaces


# sys's names for the standard streams: each stream is also kept under its dunder name.
STD_STREAMS = (("stdin", 0, "rb"), ("stdout", 1, "wb"), ("stderr", 2, "wb"))


def file_of(stream: io.TextIOWrapper) -> io.FileIO:
    """The file under a text stream: its buffer's raw file, or the buffer itself when unbuffered."""
    return getattr(stream.buffer, "raw", stream.buffer)


def renew_std_streams() -> None:
    """Replace sys.stdin, stdout and stderr (and their `__std*__` names) with new streams on the same
    file descriptors, with the settings Python's start gave them (its `create_stdio`): encoding,
    errors, newline "\\n", buffering, line buffering, write-through, mode and name. All three are made before
    any old one is dropped, so none takes the memory an old buffer frees."""
    made = []
    for name, fd, mode in STD_STREAMS:
        old = getattr(sys, name)
        if old.writable():
            old.flush()
        # Unbuffered (`python -u`), Python's start gives the text stream the file itself.
        unbuffered = isinstance(old.buffer, io.FileIO)
        buffered = open(fd, mode, buffering=0 if unbuffered else -1, closefd=False)  # noqa: SIM115 (kept by sys)
        stream = io.TextIOWrapper(
            buffered,
            encoding=old.encoding,
            errors=old.errors,
            newline="\n",
            line_buffering=old.line_buffering,
            write_through=old.write_through,
        )
        stream.mode = old.mode
        file_of(stream).name = file_of(old).name
        made.append((name, stream))
    for name, stream in made:
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
