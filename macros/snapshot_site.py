"""The start of the Pyodide whose heap becomes the configurator's snapshot, made smaller.

`macros/pyodide_snapshot.mjs` writes this file into that Pyodide's site-packages as
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
"""

from __future__ import annotations

import sys
import types
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
    consts = tuple(no_lines(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
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
