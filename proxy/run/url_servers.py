"""Loopback HTTP servers standing behind the URLs a URL-mode elicitation hands out; every hit is recorded.

A capture opens each on a free port; a replay opens each again on the port its recording names (the replayed
elicitations' URLs name those ports), so a client that fetches one is caught as it was when recorded.
"""

from __future__ import annotations

import os
import selectors
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from backchannel.recordings.rows import UrlHitRow

Sink = Callable[[UrlHitRow], None]
ANY_PORT = 0
ACCEPT_BOUND_S = 0.5  # a connection reset between the wake-up and the accept leaves the accept waiting this long
LOWEST_PORT = 1024  # a port named by a recording (which may be hostile) must never be a privileged one
# the page every hit gets, recorded or replayed: the same answer, so a replayed client sees what the recorded one saw
PAGE = b"<html><body>backchannel: this page records that it was fetched.</body></html>"


class UrlServer:
    """One server; `name` tells the oracle which URLs it stands behind (e.g. "declined"); `run_id` is the run whose
    hits it records now. `port` is a free one by default, or the port a recording names (OSError when taken)."""

    def __init__(self, name: str, sink: Sink, *, port: int = ANY_PORT) -> None:
        if port != ANY_PORT and not LOWEST_PORT <= port < 65536:
            raise OSError(f"port {port} is outside {LOWEST_PORT}-65535")
        self.name = name
        self.run_id: str | None = None
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                return

            def _hit(self) -> None:
                headers = tuple(self.headers.items())
                sink(UrlHitRow(run_id=owner.run_id, server=owner.name, method=self.command, path=self.path,
                               headers=headers, t=time.time()))  # fmt: skip
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(PAGE)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(PAGE)

            do_GET = do_HEAD = do_POST = do_OPTIONS = do_PUT = _hit

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self._server.timeout = ACCEPT_BOUND_S
        self.port = self._server.server_address[1]
        self._wake_read, self._wake_write = os.pipe()
        self._thread = threading.Thread(target=self._serve, name=f"url-server-{name}", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        """Accept until `stop` writes to the wake pipe. (socketserver's serve_forever looks for a stop only every
        half second, and a check stops its URL servers after its last run: up to 0.5 s of its time each.)"""
        with selectors.DefaultSelector() as selector:
            selector.register(self._server, selectors.EVENT_READ)
            selector.register(self._wake_read, selectors.EVENT_READ)
            while True:
                ready = {key.fd for key, _ in selector.select()}
                if self._wake_read in ready:
                    return
                self._server.handle_request()  # a connection is waiting: accepted now (bounded by its timeout)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        if self._wake_write >= 0:
            os.write(self._wake_write, b"x")
            self._thread.join(5)
            self._server.server_close()
            os.close(self._wake_write)
            os.close(self._wake_read)
            self._wake_write = self._wake_read = -1
