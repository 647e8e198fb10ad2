"""ASGI plumbing for the scripted endpoint: reading bodies, sending JSON and SSE replies, noticing disconnects."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from starlette.types import Receive, Send

from backchannel.proxy.endpoint.wire import (
    INVALID_REQUEST,
    KEEPALIVE,
    MAX_BODY_BYTES,
    dumps,
    fail,
    progress_notification,
    sse_event,
)

SSE_HEADERS = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"), (b"x-accel-buffering", b"no")]


async def read_body(receive: Receive, headers: dict[str, str]) -> bytes | None:
    """The request body, or None if the client left first.

    Raises:
        RpcError: 413 for a body larger than MAX_BODY_BYTES, declared or streamed.
    """
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        fail(INVALID_REQUEST, f"Request body larger than {MAX_BODY_BYTES} bytes", status=413)
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            fail(INVALID_REQUEST, f"Request body larger than {MAX_BODY_BYTES} bytes", status=413)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def send_bytes(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """A complete response in one start and one body message, so nothing reaches the socket before it is ready."""
    length = (b"content-length", str(len(body)).encode())
    await send({"type": "http.response.start", "status": status, "headers": [*(headers or []), length]})
    await send({"type": "http.response.body", "body": body})


async def send_json(
    send: Send, status: int, message: dict[str, Any], headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    """A complete `application/json` response."""
    await send_bytes(send, status, dumps(message), [(b"content-type", b"application/json"), *(headers or [])])


async def send_sse(
    send: Send,
    *,
    status: int,
    hold_ms: int,
    keepalive_ms: int,
    progress_token: str | int | None,
    final: dict[str, Any],
) -> None:
    """An SSE response: keep-alives (and progress, given a token) every `keepalive_ms` while holding, then `final`."""
    await send({"type": "http.response.start", "status": status, "headers": SSE_HEADERS})
    loop = asyncio.get_running_loop()
    start = loop.time()
    deadline = start + max(hold_ms, 0) / 1000
    interval = keepalive_ms / 1000
    ticks = 0
    # Ticks are scheduled from `start`, not from the previous tick, so slow sends do not stretch the hold.
    while interval > 0 and (tick_at := start + (ticks + 1) * interval) < deadline:
        await asyncio.sleep(tick_at - loop.time())
        ticks += 1
        await send({"type": "http.response.body", "body": KEEPALIVE, "more_body": True})
        if progress_token is not None:
            event = sse_event(progress_notification(progress_token, ticks))
            await send({"type": "http.response.body", "body": event, "more_body": True})
    await asyncio.sleep(max(deadline - loop.time(), 0))
    await send({"type": "http.response.body", "body": sse_event(final), "more_body": False})


async def until_disconnected(receive: Receive, work: Coroutine[Any, Any, None]) -> None:
    """Run `work`, cancelling it quietly if the client goes away first."""
    task = asyncio.create_task(work)
    watcher = asyncio.create_task(_disconnect(receive))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for pending in (task, watcher):
            pending.cancel()
        await asyncio.gather(task, watcher, return_exceptions=True)
    if not task.cancelled():
        task.result()


async def _disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def lifespan(receive: Receive, send: Send) -> None:
    """Acknowledge ASGI lifespan events; the endpoint has nothing to set up or tear down."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
