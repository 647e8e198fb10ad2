"""The scripted client of the server scenario: one 2026-07-28 request at a time, every wait bounded, every way it can
end named (an answer, a JSON-RPC error, no JSON-RPC at all, a timeout, a dropped or refused connection).

It speaks only the modern revision: per-request `_meta` (protocol version, client capabilities, client info) and
the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers. It runs in process and sends through the proxy, so
the recording holds every byte; what it decides from the answers (which keys to answer, the requestState to echo)
is exactly what a client following the spec would.
"""

from __future__ import annotations

import http.client
import itertools
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from backchannel.proxy.clients.toy_agent_wire import answer_in, header_value, sse_events

CLIENT_NAME = "backchannel-server-probe"
CLIENT_VERSION = "0.1.0"
VERSION = "2026-07-28"
META = "io.modelcontextprotocol/"
MAX_BODY = 4 * 1024 * 1024  # a JSON answer past this is not read further (the recording keeps what the proxy saw)
MAX_LINE = 1024 * 1024  # one SSE line past this is read in pieces (the proxy keeps its own limits)

OutcomeKind = Literal["result", "error", "not-jsonrpc", "timeout", "dropped", "unreachable"]


@dataclass(frozen=True)
class Outcome:
    """How one request ended, as the scripted client saw it."""

    kind: OutcomeKind
    status: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    detail: str = ""

    @property
    def answered(self) -> bool:
        return self.kind in ("result", "error")

    def summary(self) -> str:
        if self.kind == "result" and self.result is not None:
            return f"result ({self.result.get('resultType', 'no resultType')})"
        if self.kind == "error" and self.error is not None:
            return f"JSON-RPC error {self.error.get('code')} (HTTP {self.status})"
        return f"{self.kind}: {self.detail}" if self.detail else self.kind


class ScriptedClient:
    """Sends requests to one URL with one set of declared client capabilities."""

    def __init__(self, url: str, capabilities: dict[str, Any], timeout: float) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r} is not an http:// or https:// URL")
        self.url = url
        self.capabilities = capabilities
        self.timeout = timeout
        self._ids = itertools.count(1)

    def params(self, params: dict[str, Any]) -> dict[str, Any]:
        meta = {
            f"{META}protocolVersion": VERSION,
            f"{META}clientCapabilities": self.capabilities,
            f"{META}clientInfo": {"name": CLIENT_NAME, "version": CLIENT_VERSION},
        }
        return {**params, "_meta": meta}

    def request(self, method: str, params: dict[str, Any]) -> Outcome:
        """Send one request and wait at most `timeout` seconds for its answer; never raises for what the server
        does (refusing, hanging, closing, answering HTML), only says what happened."""
        request_id = next(self._ids)
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": self.params(params)}
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": VERSION,
            "Mcp-Method": method,
        }
        if method == "tools/call" and isinstance(params.get("name"), str):
            headers["Mcp-Name"] = header_value(params["name"])
        deadline = time.monotonic() + self.timeout
        parts = urlsplit(self.url)
        factory = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        conn = factory(parts.hostname or "", parts.port, timeout=self.timeout)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        # the socket timeout bounds each read; this bounds them all (a body trickling in byte by byte, forever)
        expired = threading.Event()
        watchdog: threading.Timer | None = None
        timed_out = Outcome("timeout", detail=f"no answer within {self.timeout:g} s")
        try:
            conn.connect()  # bounded by the socket timeout; the socket is kept: a response may take it from conn
            watchdog = threading.Timer(max(0.0, deadline - time.monotonic()), _cut, args=(conn.sock, expired))
            watchdog.daemon = True
            watchdog.start()
            conn.request("POST", path, body=json.dumps(message).encode(), headers=headers)
            response = conn.getresponse()
            kind = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
            if kind == "text/event-stream":
                answer = answer_in(sse_events(_lines(response, deadline)), request_id)
            else:
                answer = answer_in(iter([response.read(MAX_BODY).decode("utf-8", errors="replace")]), request_id)
        except TimeoutError:
            return timed_out
        except ConnectionRefusedError as exc:
            return Outcome("unreachable", detail=str(exc))
        except (OSError, http.client.HTTPException, RecursionError) as exc:
            if expired.is_set():
                return timed_out
            return Outcome("dropped", detail=f"{type(exc).__name__}: {exc}".rstrip(": ")[:300])
        finally:
            if watchdog is not None:
                watchdog.cancel()
            conn.close()
        if expired.is_set():
            return timed_out
        return _classify(answer, response.status, kind)


def _cut(sock: socket.socket, expired: threading.Event) -> None:
    """Past the deadline: wake the read blocked on this socket (shutdown does; close alone may not)."""
    expired.set()
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed


def _lines(response: http.client.HTTPResponse, deadline: float) -> Iterator[bytes]:
    while line := response.readline(MAX_LINE):
        yield line
        if time.monotonic() > deadline:
            raise TimeoutError("no answer within the request timeout")


def _classify(answer: dict[str, Any] | None, status: int, content_type: str) -> Outcome:
    if answer is None:
        return Outcome("not-jsonrpc", status=status, detail=f"HTTP {status} {content_type or 'without a type'}")
    if isinstance(answer.get("error"), dict):
        return Outcome("error", status=status, error=answer["error"])
    result = answer.get("result")
    if isinstance(result, dict):
        return Outcome("result", status=status, result=result)
    return Outcome("not-jsonrpc", status=status, detail="a JSON-RPC answer whose result is not an object")
