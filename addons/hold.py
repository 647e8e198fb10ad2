"""A loopback helper inside the mitmdump process that holds a response open as SSE while the real answer waits.

mitmproxy can only stream bytes that arrive from an upstream, so a held SSE response needs an upstream that
emits keep-alives on a clock: the Rewriter points the flow here, and this server fetches the real upstream.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import secrets
import socket
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .transforms import KEEPALIVE, progress_event, sse_event


@dataclass
class HoldTicket:
    """Everything needed to answer one held request."""

    upstream: str  # scheme://host:port
    path: str
    headers: list[tuple[str, str]]
    body: bytes
    hold_ms: int
    keepalive_ms: int
    progress_token: str | int | None
    request_id: Any = None
    # filled in by the server, read by the Recorder: what the real upstream answered
    upstream_status: int | None = None
    upstream_headers: list[tuple[str, str]] = field(default_factory=list)
    upstream_body: bytes | None = None
    upstream_error: str | None = None


def _fetch(ticket: HoldTicket) -> None:
    parts = urlsplit(ticket.upstream)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=300)
    try:
        headers = {k: v for k, v in ticket.headers if k.lower() not in ("host", "content-length", "connection")}
        conn.request("POST", ticket.path, body=ticket.body, headers=headers)
        response = conn.getresponse()
        ticket.upstream_status = response.status
        ticket.upstream_headers = list(response.getheaders())
        ticket.upstream_body = response.read()
    except (OSError, http.client.HTTPException) as exc:
        ticket.upstream_error = f"{type(exc).__name__}: {exc}"
    finally:
        conn.close()


class HoldServer:
    def __init__(self) -> None:
        self.tickets: dict[str, HoldTicket] = {}
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def issue(self, ticket: HoldTicket) -> str:
        token = secrets.token_hex(8)
        self.tickets[token] = ticket
        return f"/hold/{token}"

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            path = head.split(b" ", 2)[1].decode("latin-1")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip() or 0)
            if length:
                await reader.readexactly(length)
            ticket = self.tickets.get(path.rsplit("/", 1)[-1])
            if ticket is None:
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            await self._hold(ticket, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError):
            return  # the proxy side went away; the Recorder sees the flow's error
        finally:
            writer.close()

    async def _hold(self, ticket: HoldTicket, writer: asyncio.StreamWriter) -> None:
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
            b"X-Accel-Buffering: no\r\nConnection: close\r\n\r\n"
        )
        await writer.drain()
        fetch = asyncio.ensure_future(asyncio.to_thread(_fetch, ticket))
        began = time.monotonic()
        deadline = began + ticket.hold_ms / 1000
        interval = ticket.keepalive_ms / 1000
        next_tick = began + interval
        tick = 0
        while True:
            now = time.monotonic()
            if now >= deadline and fetch.done():
                break
            wake = next_tick if now >= deadline else min(next_tick, deadline)
            if fetch.done():
                await asyncio.sleep(max(0.0, wake - now))
            else:
                await asyncio.wait({fetch}, timeout=max(0.0, wake - now))
            if time.monotonic() >= next_tick and not (time.monotonic() >= deadline and fetch.done()):
                tick += 1
                next_tick += interval
                writer.write(KEEPALIVE)
                if ticket.progress_token is not None:
                    writer.write(progress_event(ticket.progress_token, tick))
                await writer.drain()
        writer.write(self._final(ticket))
        await writer.drain()

    @staticmethod
    def _final(ticket: HoldTicket) -> bytes:
        body = ticket.upstream_body or b""
        ctype = dict((k.lower(), v) for k, v in ticket.upstream_headers).get("content-type", "")
        if ticket.upstream_error is None and ctype.startswith("text/event-stream"):
            return body
        if ticket.upstream_error is None and body:
            return sse_event(body.decode("utf-8", "replace"))
        reason = ticket.upstream_error or f"upstream answered HTTP {ticket.upstream_status} with no body"
        error = {"code": -32603, "message": f"backchannel hold: the upstream failed: {reason}"}
        note = json.dumps({"jsonrpc": "2.0", "id": ticket.request_id, "error": error}, separators=(",", ":"))
        return sse_event(note)
