"""Loopback HTTP servers standing behind the URLs a URL-mode elicitation hands out; every hit is recorded."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from backchannel.recordings.rows import UrlHitRow

Sink = Callable[[UrlHitRow], None]


class UrlServer:
    """One server; `name` tells the oracle which URLs it stands behind (e.g. "declined")."""

    def __init__(self, name: str, sink: Sink) -> None:
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
                body = b"<html><body>backchannel: this page records that it was fetched.</body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            do_GET = do_HEAD = do_POST = do_OPTIONS = do_PUT = _hit

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name=f"url-server-{name}", daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
