"""A loopback relay inside the mitmdump process, for mutations that need a clock on the response side.

mitmproxy can only stream bytes that arrive from an upstream, and its stream callable is synchronous, so a
response that must wait (a hold, a delay) needs an upstream that emits on a clock: the Rewriter points the flow
here with a ticket, and this server fetches the real upstream. Two modes:

- hold (ticket.hold_ms set): answer SSE at once, with `:` keep-alives every keepalive_ms (and progress events when
  the request carried a progressToken) until both the hold is over and the upstream answered, then the answer.
- relay: pass the upstream's answer on unchanged, as it streams: the head `delay_ms` after it arrived, then the
  body, with `between_events_ms` before each SSE event after the first.

Every item this server makes itself is counted in `ticket.made` before its bytes are written; they all come
before the first upstream byte, so the Rewriter marks the stream's first `made` items as the proxy's own.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import secrets
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .sse import SseLineSplitter
from .transforms import INTERNAL_ERROR, KEEPALIVE, progress_event, proxy_error, sse_event
from .unread_body import bound_words, keep_first

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"}
_READ = 65536
_TRAILERS = 100  # trailer lines a drained chunked body may end with
# upstream requests held or relayed at once, a blocking thread each (made only when needed). Not asyncio's default
# executor: that one has min(32, CPUs + 4) threads (the CPUs this process may use, from Python 3.13), so on a small
# machine, or a proxy kept to one CPU (proxy/run/one_cpu.py), a seventh long stream would wait for one to end
FETCHERS = 256
# chunks of a relayed body read from the upstream but not yet written on: past it the fetching thread waits, so a
# fast upstream and a slow client (or a paced relay) never make the proxy hold more than this many reads
QUEUED = 16


@dataclass
class HoldTicket:
    """Everything needed to answer one relayed request."""

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
    # relay mode (hold=False): pass the answer on, late and paced
    hold: bool = True
    delay_ms: int = 0
    between_events_ms: int = 0
    made: int = 0  # SSE items this server made itself so far; they precede every upstream byte
    # the most bytes of the upstream's body this server holds (Limits.max_held): a hold answers an error past it, and
    # a relay keeps only this much of it for the recording (the client still gets every byte)
    max_held: int = 16 * 1024 * 1024
    too_large: bool = False  # a hold's upstream body was past max_held: the client got the error event instead
    gone: threading.Event = field(default_factory=threading.Event)  # the relay's writer side ended
    room: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(QUEUED))  # see QUEUED


def _connection(ticket: HoldTicket) -> http.client.HTTPConnection:
    parts = urlsplit(ticket.upstream)
    host = parts.hostname or "127.0.0.1"
    if parts.scheme == "https":
        return http.client.HTTPSConnection(host, parts.port or 443, timeout=300)
    return http.client.HTTPConnection(host, parts.port or 80, timeout=300)


def _request(conn: http.client.HTTPConnection, ticket: HoldTicket) -> http.client.HTTPResponse:
    headers = {k: v for k, v in ticket.headers if k.lower() not in ("host", "content-length", "connection")}
    conn.request("POST", ticket.path, body=ticket.body, headers=headers)
    response = conn.getresponse()
    ticket.upstream_status = response.status
    ticket.upstream_headers = list(response.getheaders())
    return response


def _fetch(ticket: HoldTicket) -> None:
    conn = _connection(ticket)
    try:
        body = _request(conn, ticket).read(ticket.max_held + 1)  # a hold sends the body whole: held up to the bound
        if len(body) > ticket.max_held:
            ticket.too_large = True
            body = body[: ticket.max_held]
            ticket.upstream_error = f"its response body is past {bound_words(ticket.max_held)}"
        ticket.upstream_body = body
    except (OSError, http.client.HTTPException, ValueError) as exc:  # ValueError: a path http.client cannot send
        ticket.upstream_error = f"{type(exc).__name__}: {exc}"
    finally:
        conn.close()


def _stream(ticket: HoldTicket, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[bytes | None]) -> None:
    """Fetch the upstream in a thread, handing the head (b"") and then each body chunk to the event loop."""
    conn = _connection(ticket)
    body = bytearray()  # kept for the recording up to the bound; the client gets every byte
    try:
        response = _request(conn, ticket)
        loop.call_soon_threadsafe(queue.put_nowait, b"")
        while chunk := response.read1(_READ):
            keep_first(body, chunk, ticket.max_held)
            while not ticket.room.acquire(timeout=1.0):  # the relay is behind: wait for it, unless it is gone
                if ticket.gone.is_set():
                    return
            loop.call_soon_threadsafe(queue.put_nowait, chunk)
    except (OSError, http.client.HTTPException, ValueError) as exc:  # ValueError: a path http.client cannot send
        ticket.upstream_error = f"{type(exc).__name__}: {exc}"
    finally:
        ticket.upstream_body = bytes(body)
        conn.close()
        loop.call_soon_threadsafe(queue.put_nowait, None)


async def _drain(reader: asyncio.StreamReader, head: bytes) -> None:
    """Read a request's body to its end without keeping it: Content-Length or chunked framing."""
    length, chunked = 0, False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value.strip() or 0)
        elif name == b"transfer-encoding":
            chunked = b"chunked" in value.lower()
    if not chunked:
        await _skip(reader, length)
        return
    while True:
        size = int((await _line(reader)).split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            for _ in range(_TRAILERS):  # trailers, then the blank line
                if await _line(reader) == b"\r\n":
                    return
            raise ValueError("too many trailer lines")
        await _skip(reader, size + 2)  # the chunk and its CRLF


async def _line(reader: asyncio.StreamReader) -> bytes:
    return await asyncio.wait_for(reader.readuntil(b"\r\n"), 30)


async def _skip(reader: asyncio.StreamReader, count: int) -> None:
    while count > 0:
        chunk = await asyncio.wait_for(reader.read(min(count, _READ)), 30)
        if not chunk:
            raise asyncio.IncompleteReadError(b"", count)
        count -= len(chunk)


def _error_event(ticket: HoldTicket, reason: str) -> bytes:
    error = {"code": -32603, "message": f"backchannel hold: the upstream failed: {reason}"}
    return sse_event(json.dumps({"jsonrpc": "2.0", "id": ticket.request_id, "error": error}, separators=(",", ":")))


@dataclass(frozen=True)
class SinkTicket:
    """The proxy's own answer to a request it must not forward, whose body was too large to hold: the body streams
    here (mitmproxy sends it before any hook could answer), is read and dropped, and this answer goes back."""

    status: int
    body: bytes


class HoldServer:
    def __init__(self) -> None:
        self.tickets: dict[str, HoldTicket | SinkTicket] = {}
        self.port = 0
        self._server: asyncio.Server | None = None
        self._fetchers: ThreadPoolExecutor | None = None  # from start to stop: its threads end with the server

    async def start(self) -> None:
        self._fetchers = ThreadPoolExecutor(max_workers=FETCHERS, thread_name_prefix="backchannel-hold")
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def issue(self, ticket: HoldTicket | SinkTicket) -> str:
        token = secrets.token_hex(8)
        self.tickets[token] = ticket
        return f"/hold/{token}"

    def withdraw(self, path: str) -> None:
        """Forget a ticket that will not be used (the proxy answered the flow itself)."""
        self.tickets.pop(path.rsplit("/", 1)[-1], None)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        if self._fetchers is not None:  # idle threads end now; a fetch still running ends with its upstream's body
            self._fetchers.shutdown(wait=False)
            self._fetchers = None

    def _in_thread(self, fetch: Callable[..., None], *args: Any) -> asyncio.Future[None]:
        """`fetch(*args)` on one of the server's threads (RuntimeError: the server was stopped meanwhile)."""
        if self._fetchers is None:
            raise RuntimeError("the hold server was stopped")
        return asyncio.get_running_loop().run_in_executor(self._fetchers, fetch, *args)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            path = head.split(b" ", 2)[1].decode("latin-1")
            ticket = self.tickets.pop(path.rsplit("/", 1)[-1], None)  # used once, even if the body never ends
            await _drain(reader, head)  # a ticket carries the body it forwards; a sink's is dropped
            if ticket is None:
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            if isinstance(ticket, SinkTicket):
                writer.write(
                    b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nConnection: close\r\n"
                    % (ticket.status, http.client.responses.get(ticket.status, "").encode())
                    + b"Content-Length: %d\r\n\r\n" % len(ticket.body)
                    + ticket.body
                )
                await writer.drain()
                return
            await (self._hold(ticket, writer) if ticket.hold else self._relay(ticket, writer))
        except (
            OSError,
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            TimeoutError,
            ValueError,
            RuntimeError,  # the server was stopped before this request's fetch began (_in_thread)
        ):
            return  # the proxy side went away, or the server stopped; the Recorder sees the flow's error
        finally:
            writer.close()

    async def _hold(self, ticket: HoldTicket, writer: asyncio.StreamWriter) -> None:
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
            b"X-Accel-Buffering: no\r\nConnection: close\r\n\r\n"
        )
        await writer.drain()
        fetch = self._in_thread(_fetch, ticket)
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
                ticket.made += 1  # counted before written: the Rewriter may see the bytes at once
                writer.write(KEEPALIVE)
                if ticket.progress_token is not None:
                    ticket.made += 1
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
        return _error_event(
            ticket, ticket.upstream_error or f"upstream answered HTTP {ticket.upstream_status} with no body"
        )

    async def _relay(self, ticket: HoldTicket, writer: asyncio.StreamWriter) -> None:
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        # the thread ends on its own when the upstream's body does, even if the proxy side went away meanwhile
        fetch = self._in_thread(_stream, ticket, asyncio.get_running_loop(), queue)
        if await queue.get() is None:  # no head: the upstream could not be reached
            message = f"backchannel relay: the upstream failed: {ticket.upstream_error}"
            status, body = proxy_error({"id": ticket.request_id}, INTERNAL_ERROR, message, upstream_failed=True)
            reason = http.client.responses.get(status, "").encode()
            writer.write(
                b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nConnection: close\r\n" % (status, reason)
                + b"Content-Length: %d\r\n\r\n" % len(body)
                + body
            )
            await fetch
            return
        try:
            if ticket.delay_ms:
                await asyncio.sleep(ticket.delay_ms / 1000)
            writer.write(_relay_head(ticket))
            await writer.drain()
            ctype = dict((k.lower(), v) for k, v in ticket.upstream_headers).get("content-type", "")
            if ticket.between_events_ms and ctype.lower().startswith("text/event-stream"):
                await _paced(queue, writer, ticket)
            else:
                while (chunk := await _taken(queue, ticket)) is not None:
                    writer.write(chunk)
                    await writer.drain()
        finally:
            ticket.gone.set()  # a fetch waiting for room ends: nobody will write its chunks on
        await fetch


async def _taken(queue: asyncio.Queue[bytes | None], ticket: HoldTicket) -> bytes | None:
    """The next chunk of the upstream's body (None at its end), making room for the fetching thread's next read."""
    chunk = await queue.get()
    if chunk is not None:
        ticket.room.release()
    return chunk


def _relay_head(ticket: HoldTicket) -> bytes:
    """The upstream's status and headers, framed by close: its own framing does not survive the relay."""
    chunked = any(k.lower() == "transfer-encoding" for k, _ in ticket.upstream_headers)
    lines = [f"HTTP/1.1 {ticket.upstream_status} {http.client.responses.get(ticket.upstream_status or 0, '')}"]
    for name, value in ticket.upstream_headers:
        if name.lower() in _HOP_BY_HOP or (chunked and name.lower() == "content-length"):
            continue
        lines.append(f"{name}: {value}")
    lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def _paced(queue: asyncio.Queue[bytes | None], writer: asyncio.StreamWriter, ticket: HoldTicket) -> None:
    """Write an SSE body event by event, the ticket's gap before each event after the first; lines outside events at
    once. An event that outgrows `ticket.max_held` is not held for its gap: what was held of it goes on at once, and
    the rest as it comes."""
    gap_s = ticket.between_events_ms / 1000
    split = SseLineSplitter()
    block: list[bytes] = []  # the lines of the event being read
    held = 0  # bytes in block
    has_fields = False
    passing = False  # the event being read outgrew the bound: its lines go on as they come
    events = 0
    while True:
        chunk = await _taken(queue, ticket)
        lines = split.feed(chunk) if chunk is not None else ([rest] if (rest := split.flush()) else [])
        for line in lines:
            body = line.rstrip(b"\r\n")
            if passing:
                writer.write(line)
                if not body:
                    passing, has_fields, events = False, False, events + 1
                continue
            if body and not has_fields and body[:1] == b":":
                writer.write(line)  # a comment between events is not an event: it passes at once
                continue
            block.append(line)
            held += len(line)
            has_fields = has_fields or bool(body)
            if body or not has_fields:
                continue
            if events:
                await writer.drain()
                await asyncio.sleep(gap_s)
            events += 1
            writer.write(b"".join(block))
            block, held, has_fields = [], 0, False
        if chunk is not None and held + split.size > ticket.max_held:
            writer.write(b"".join(block) + split.flush())
            block, held, passing = [], 0, True
        await writer.drain()
        if chunk is None:
            if block:
                writer.write(b"".join(block))  # an event cut off at the end goes out as it came
                await writer.drain()
            return
