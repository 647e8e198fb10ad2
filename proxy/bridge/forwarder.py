"""The HTTP side: one POST per client line, each answer's messages written back as lines while they arrive.

Each line is POSTed on its own connection from its own thread, so a client may send a second request before the
first is answered; a lock keeps each written line whole. A request (a message with a method and an id) always
gets exactly one answer on the client's stdout: the server's, or, when none can come (connection refused, timeout,
an HTTP error without a JSON-RPC body, an error the server could not pin to an id), a JSON-RPC error for its id
written by the bridge. Anything else that cannot be written as a message is dropped and said on stderr.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from backchannel.proxy.bridge.framing import Incoming, NotAMessage, SseParser, error_line, to_line
from backchannel.proxy.bridge.headers import Negotiated, derive, learn

INTERNAL_ERROR = -32603
DEFAULT_TIMEOUT_S = 300.0  # per socket read: a held retry or a quiet SSE stream must not be cut short

Log = Callable[[str], None]


class LineWriter:
    """The client's stdout: whole lines only, one writer at a time, flushed at once; closed once a write fails."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._lock = threading.Lock()
        self.closed = False

    def write(self, line: bytes) -> bool:
        assert line.endswith(b"\n") and b"\n" not in line[:-1], "one line per message"
        with self._lock:
            if self.closed:
                return False
            try:
                self._out.write(line)
                self._out.flush()
            except (OSError, ValueError):  # the client closed its end
                self.closed = True
                return False
            return True

    def close(self, timeout: float = 1.0) -> bool:
        """Take no more lines, so a request still in flight when the bridge ends writes nothing (not even mid-exit).

        False when a write is stuck (a client that stopped reading a full pipe) past `timeout`."""
        if not self._lock.acquire(timeout=timeout):
            self.closed = True
            return False
        self.closed = True
        self._lock.release()
        return True


def same_id(got: object, want: str | int) -> bool:
    """JSON-RPC ids match by type and value (1 is not "1", and true is not 1)."""
    return type(got) is type(want) and got == want


class _Exchange:
    """What one POST's answer has shown so far: whether the request is answered, and an id-less error, if any."""

    def __init__(self, incoming: Incoming) -> None:
        self.incoming = incoming
        self.answered = False
        self.unpinned: dict[str, Any] | None = None  # an error response with a null id
        self.problem: str | None = None


class Forwarder:
    """POSTs lines to one Streamable HTTP URL and writes the answers to a `LineWriter`."""

    def __init__(self, url: str, writer: LineWriter, *, timeout: float = DEFAULT_TIMEOUT_S, log: Log) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r} is not an http:// or https:// URL")
        self.url = url
        self._parts = parts
        self._path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self.writer = writer
        self.timeout = timeout
        self.log = log
        self.verbose = False
        self._lock = threading.Lock()
        self._negotiated = Negotiated()

    @property
    def negotiated(self) -> Negotiated:
        with self._lock:
            return self._negotiated

    def _connection(self) -> http.client.HTTPConnection:
        factory = http.client.HTTPSConnection if self._parts.scheme == "https" else http.client.HTTPConnection
        return factory(self._parts.hostname or "", self._parts.port, timeout=self.timeout)

    def forward(self, incoming: Incoming) -> None:
        """POST one line and write back its answer; never raises (a failure becomes an error line or a log line)."""
        exchange = _Exchange(incoming)
        headers = derive(incoming.message if incoming.parsed else None, self.negotiated)
        status: int | None = None
        conn = self._connection()
        try:
            conn.request("POST", self._path, body=incoming.raw, headers=headers)
            response = conn.getresponse()
            status = response.status
            if self.verbose:
                self.log(f"POST {incoming.method or '(no method)'} -> HTTP {status}")
            kind = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
            session = response.getheader("Mcp-Session-Id")
            if kind == "text/event-stream":
                parser = SseParser()
                while line := response.readline():
                    event = parser.feed(line)
                    if event is not None:
                        self._deliver(exchange, event, session)
                last = parser.finish()
                if last is not None:
                    self._deliver(exchange, last, session)
            else:
                body = response.read()
                if body.strip():
                    self._deliver(exchange, body, session)
        except (OSError, http.client.HTTPException) as exc:
            exchange.problem = f"cannot talk to {self.url}: {exc or type(exc).__name__}"
        except Exception as exc:  # a bridge thread must never die with its request unanswered
            exchange.problem = f"bridge failure: {type(exc).__name__}: {exc}"
        finally:
            conn.close()
        self._settle(exchange, status)

    def _deliver(self, exchange: _Exchange, body: str | bytes, session: str | None) -> None:
        try:
            line = to_line(body)
        except NotAMessage as exc:
            exchange.problem = f"the server's answer is {exc}"
            return
        message = json.loads(line)
        if exchange.incoming.method == "initialize":
            with self._lock:
                self._negotiated = learn(self._negotiated, exchange.incoming.message, session, message)
        if isinstance(message, dict) and message.get("id") is None and "error" in message:
            error = message["error"]
            exchange.unpinned = error if isinstance(error, dict) else {"message": str(error)}
            return  # a stdio client cannot correlate it: pinned to the request below, or dropped
        want = exchange.incoming.request_id
        if want is not None and isinstance(message, dict) and same_id(message.get("id"), want):
            exchange.answered = exchange.answered or "result" in message or "error" in message
        if not self.writer.write(line):
            exchange.problem = "the client's stdout is closed"

    def _settle(self, exchange: _Exchange, status: int | None) -> None:
        want = exchange.incoming.request_id
        what = exchange.incoming.method or "a line that is not a JSON-RPC request"
        if want is None or exchange.answered:
            if exchange.unpinned is not None:
                self.log(f"dropped an error without an id answering {what}: {exchange.unpinned.get('message')}")
            if exchange.problem is not None:
                self.log(f"{what}: {exchange.problem}")
            return
        if exchange.unpinned is not None:
            code = exchange.unpinned.get("code")
            message = str(exchange.unpinned.get("message", ""))
            code = code if isinstance(code, int) and not isinstance(code, bool) else INTERNAL_ERROR
        else:
            code = INTERNAL_ERROR
            why = exchange.problem or "no JSON-RPC response to this request"
            message = f"backchannel bridge: {f'HTTP {status}: ' if status is not None else ''}{why}"
            self.log(f"{what} (id {want!r}): {why}")
        self.writer.write(error_line(want, code, message))
