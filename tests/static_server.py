"""A static server for the built site on 127.0.0.1, sending the Content Security Policy the site must live under."""

from __future__ import annotations

import functools
import gzip
import http.server
import os
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'"
)


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
        ".zip": "application/zip",
    }
    csp: ClassVar[str | None] = CSP
    caching: ClassVar[bool] = False
    gzipped: ClassVar[dict[str, bytes]] = {}  # with `caching`: the immutable files' bodies, gzip

    def do_GET(self) -> None:
        body = (
            self.gzipped.get(self.path.split("?", 1)[0]) if "gzip" in self.headers.get("Accept-Encoding", "") else None
        )
        if body is None:
            super().do_GET()
            return
        # Served as README's Hosting section says: compressed, for good (so never revalidated).
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(self.path.split("?", 1)[0]))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def end_headers(self) -> None:
        if self.csp:
            self.send_header("Content-Security-Policy", self.csp)
        if self.caching:
            self.send_header("Cache-Control", cache_control(self.path))
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


IMMUTABLE = re.compile(
    r"^/(?:.*/)?(?:pyodide/[^/]+/.+|engine/(?:snapshot|stdlib)-[0-9a-f]{16}\.(?:bin|zip)"
    r"|assets/(?:javascripts|stylesheets)/(?:[\w-]+/)*[\w-]+\.[0-9a-f]{8}\.min\.(?:js|css))$"
)


def gzip_immutable(directory: Path) -> dict[str, bytes]:
    """The files served for good (Pyodide, the snapshot's parts, hashed assets), gzip at level 6, by URL path.

    Zip files are left as they are, as README says (already deflated)."""
    out: dict[str, bytes] = {}
    for folder, _dirs, files in os.walk(directory):
        for name in files:
            path = Path(folder) / name
            url = "/" + path.relative_to(directory).as_posix()
            if IMMUTABLE.match(url) and not name.endswith(".zip"):
                out[url] = gzip.compress(path.read_bytes(), 6)
    return out


def cache_control(path: str) -> str:
    """The Cache-Control README's Hosting section suggests: for good where the name says the version."""
    return "public, max-age=31536000, immutable" if IMMUTABLE.match(path.split("?", 1)[0]) else "no-cache"


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        # A page closed while a large file (Pyodide) was still being sent: not the site's fault.
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


@contextmanager
def serve(directory: Path, csp: str | None = CSP, caching: bool = False) -> Iterator[str]:
    """Serve `directory`; with `caching`, under the Cache-Control headers and compression of README's
    Hosting section (what is named for good is sent gzip, so that a private window's in-memory
    HTTP cache, which keeps no large response, keeps the 9.6 MB wasm: 3.6 MB gzip)."""
    gzipped = gzip_immutable(directory) if caching else {}
    handler = type("CspHandler", (Handler,), {"csp": csp, "caching": caching, "gzipped": gzipped})
    httpd = Server(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
