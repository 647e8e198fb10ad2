"""Loopback servers on the recorded ports of a scenario's URL servers, so a replayed URL-mode elicitation, whose
URLs name those ports, still records a client that fetches one (`url_hits`), as the original run did."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from backchannel.recordings.rows import UrlHitRow

Sink = Callable[[UrlHitRow], None]
LOWEST_PORT = 1024  # a hostile recording must not make the replay try privileged ports


class HitRecorder:
    """One server on a recorded port; `run_id` is the run whose hits it records now."""

    def __init__(self, name: str, port: int, sink: Sink) -> None:
        if not LOWEST_PORT <= port < 65536:
            raise OSError(f"port {port} is outside {LOWEST_PORT}-65535")
        self.name = name
        self.run_id: str | None = None
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                return

            def _hit(self) -> None:
                row = UrlHitRow(
                    server=owner.name,
                    method=self.command,
                    path=self.path,
                    headers=tuple(self.headers.items()),
                    run_id=owner.run_id,
                    t=time.time(),
                )
                sink(row)
                self.send_response(204)  # what the original page said is not recorded: say nothing
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_HEAD = do_POST = do_OPTIONS = do_PUT = _hit

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name=f"replay-url-{name}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
