"""A static server for the built site on 127.0.0.1, sending the Content Security Policy the site must live under."""

from __future__ import annotations

import functools
import http.server
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
    """Serve `directory`; with `caching`, under the Cache-Control headers of README's Hosting section."""
    handler = type("CspHandler", (Handler,), {"csp": csp, "caching": caching})
    httpd = Server(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
