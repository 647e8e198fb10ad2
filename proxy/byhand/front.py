"""The stable URL of a by-hand lab: one loopback port whose `/mcp` forwards to the proxy's current run.

The proxy keeps runs apart by a `/r/<run-id>/` prefix (proxy/run/capture.py); a host a person configured once
cannot follow that prefix from run to run, so this front rewrites the path of each request to the run the lab says
is current, and forwards it to the proxy unchanged otherwise. Each request gets its own upstream connection
(`Connection: close`): a request belongs to the run that was current when it arrived, never to one a kept-alive
connection happened to start in. Bodies are bounded; chunked request bodies are refused (MCP clients send a length).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass

STABLE_PATH = "/mcp"
MAX_HEAD = 64 * 1024
MAX_BODY = 16 * 1024 * 1024
HEAD_TIMEOUT_S = 30.0  # a client that opens a connection and sends no request head is dropped
READY_TIMEOUT_S = 10.0
CLOSE_TIMEOUT_S = 2.0  # a socket that does not finish closing is left to the loop's end


class FrontError(OSError):
    """The stable port could not be bound (in use, or not allowed); the message names the port."""


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    head: bytes  # the head as forwarded: the path rewritten, `Connection: close`
    length: int


def _reply(status: int, reason: str, text: str) -> bytes:
    body = text.encode()
    return (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode() + body


def rewrite(head: bytes, run_path: str) -> Request | bytes:
    """The request head with its path moved under the current run, or the error reply a bad head gets."""
    try:
        lines = head.decode("latin-1").split("\r\n")
        method, target, version = lines[0].split(" ")
    except ValueError:
        return _reply(400, "Bad Request", "malformed request line")
    path, _, query = target.partition("?")
    if path.rstrip("/") != STABLE_PATH:
        return _reply(404, "Not Found", f"this lab serves MCP at {STABLE_PATH} only")
    length = 0
    kept = []
    for line in lines[1:]:
        if not line:
            continue
        name, _, value = line.partition(":")
        lowered = name.strip().lower()
        if lowered == "connection" or lowered == "keep-alive":
            continue
        if lowered == "transfer-encoding":
            return _reply(411, "Length Required", "send the request body with a Content-Length")
        if lowered == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                return _reply(400, "Bad Request", "Content-Length is not a number")
            if not 0 <= length <= MAX_BODY:
                return _reply(413, "Content Too Large", f"bodies above {MAX_BODY} bytes are refused")
        kept.append(line)
    forwarded = run_path + ("?" + query if query else "")
    text = "\r\n".join([f"{method} {forwarded} {version}", *kept, "Connection: close", "", ""])
    return Request(method, forwarded, text.encode("latin-1"), length)


class Front:
    """Serve the stable URL on 127.0.0.1 (`port` 0: a free one) in its own thread until `stop`.

    `current` names the path the proxy serves the current run at (`/r/<id>/mcp`), asked again for every request."""

    def __init__(self, proxy_host: str, proxy_port: int, current: Callable[[], str], port: int = 0) -> None:
        self.proxy = (proxy_host, proxy_port)
        self.current = current
        self.requests = 0  # requests forwarded, for the guide's "what it saw" when a wait ends empty
        self._wanted = port
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, name="backchannel-front", daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{STABLE_PATH}"

    def start(self) -> None:
        self._thread.start()
        started = asyncio.run_coroutine_threadsafe(self._listen(), self._loop)
        try:
            started.result(READY_TIMEOUT_S)
        except OSError as exc:
            self.stop()
            raise FrontError(f"cannot listen on 127.0.0.1:{self._wanted}: {exc.strerror or exc}") from exc

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self._wanted)
        self.port = self._server.sockets[0].getsockname()[1]

    def stop(self) -> None:
        async def close() -> None:
            if self._server is not None:
                self._server.close()  # no new connections
            running = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in running:
                task.cancel()
            # each cancelled connection (a host's SSE stream held open, say) closes its sockets in its own `finally`:
            # let it finish, so no stream is left half-closed for the garbage collector to warn about
            await asyncio.gather(*running, return_exceptions=True)
            if self._server is not None:  # since 3.12 this waits for every connection, hence after the cancels
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._server.wait_closed(), CLOSE_TIMEOUT_S)

        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(READY_TIMEOUT_S)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(READY_TIMEOUT_S)
        self._loop.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._one(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            pass  # the client or the proxy went away: nothing to answer to
        finally:
            await _closed(writer)

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
        if len(head) > MAX_HEAD:
            writer.write(_reply(431, "Request Header Fields Too Large", "request head too large"))
            return
        request = rewrite(head, self.current())
        if isinstance(request, bytes):
            writer.write(request)
            await writer.drain()
            return
        body = await reader.readexactly(request.length) if request.length else b""
        up_reader, up_writer = await asyncio.open_connection(*self.proxy)
        self.requests += 1
        try:
            up_writer.write(request.head + body)
            await up_writer.drain()
            while chunk := await up_reader.read(64 * 1024):  # streamed as it comes: SSE events stay live
                writer.write(chunk)
                await writer.drain()
        finally:
            await _closed(up_writer)


async def _closed(writer: asyncio.StreamWriter) -> None:
    """Close a stream and wait (bounded) until its socket is gone, even while its task is being cancelled."""
    writer.close()
    with contextlib.suppress(Exception, asyncio.CancelledError):
        await asyncio.wait_for(writer.wait_closed(), CLOSE_TIMEOUT_S)
