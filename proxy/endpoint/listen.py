"""The 2025 eras' GET stream: where a listening client gets requests unrelated to any request of its own.

A 2025-06-18 or 2025-11-25 client MAY open an SSE stream with an HTTP GET once its session exists; the server MAY
send it requests and notifications there, which SHOULD be unrelated to any request the client has running. The
endpoint offers one such stream per session: a second GET of the same session while one is open is refused (409),
a GET without a session it knows, or in a session of the 2026-07-28 era (which has no GET stream), keeps the 405 it
always answered. The stream carries keep-alive comments every `KEEPALIVE_S`, and ends when the session ends
(DELETE), when the client goes away, when the endpoint stops, or after `MAX_OPEN_S` at most.

What goes out on it is the scenario's choice, not the endpoint's: `EndpointConfig.listen` is called when the stream
opens (trigger `opened`) and on every notification the client POSTs while it is open (trigger: the notification's
method, e.g. `notifications/roots/list_changed`), and returns the input requests (`{"method", "params"}`, as a
tool's `inputRequests` hold them) to send. Each goes out as a server-initiated request under an id of the
endpoint's `Answers`, so the client's POSTed answer pairs with it (and is answered 202) exactly as an answer on a
call's stream does; an answer that never comes is forgotten after the endpoint's answer timeout.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.types import Receive, Send

from backchannel.proxy.endpoint.io import SSE_HEADERS, send_json, until_disconnected
from backchannel.proxy.endpoint.server_requests import Answers, server_request
from backchannel.proxy.endpoint.tools import ListenEvent, ListenHook
from backchannel.proxy.endpoint.wire import INVALID_REQUEST, KEEPALIVE, error_response, sse_event

logger = logging.getLogger(__name__)

KEEPALIVE_S = 15.0
MAX_OPEN_S = 600.0  # no stream outlives this, whatever the client does
OPENED = "opened"


class Listener:
    """One open GET stream: what to send on it, in order, and whether it is to end."""

    def __init__(self, session: str, version: str) -> None:
        self.session = session
        self.version = version
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()

    def close(self) -> None:
        self.queue.put_nowait(None)

    async def serve(self, send: Send, keepalive_s: float = KEEPALIVE_S, max_open_s: float = MAX_OPEN_S) -> None:
        """The stream: the head, then each queued event (keep-alives while idle) until closed or `max_open_s`."""
        await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max_open_s
        while (left := deadline - loop.time()) > 0:
            try:
                item = await asyncio.wait_for(self.queue.get(), min(keepalive_s, left))
            except TimeoutError:
                if deadline - loop.time() > 0:
                    await send({"type": "http.response.body", "body": KEEPALIVE, "more_body": True})
                continue
            if item is None:
                break
            await send({"type": "http.response.body", "body": item, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


@dataclass
class Listeners:
    """The open GET streams, one per session, and the requests a scenario sends on them."""

    answers: Answers
    hook: ListenHook | None
    answer_timeout_s: float
    params: Mapping[str, str] = field(default_factory=dict)
    open: dict[str, Listener] = field(default_factory=dict)

    def opening(self, session: str, version: str) -> Listener | None:
        """A new stream for `session`; None when one is already open (one per session)."""
        if session in self.open:
            return None
        listener = self.open[session] = Listener(session, version)
        return listener

    async def get(
        self, headers: Mapping[str, str], version: str, capabilities: Mapping[str, Any], receive: Receive, send: Send
    ) -> None:
        """A GET of a 2025 session the endpoint knows (the caller checked): its stream, or 406 for a client that does
        not accept SSE, 409 while the session has one open already."""
        session = headers.get("mcp-session-id", "")
        if "text/event-stream" not in headers.get("accept", ""):
            error = {"code": INVALID_REQUEST, "message": "Not Acceptable: the GET stream is text/event-stream"}
            await send_json(send, 406, error_response(None, error))
            return
        listener = self.opening(session, version)
        if listener is None:
            error = {"code": INVALID_REQUEST, "message": "Conflict: this session's GET stream is already open"}
            await send_json(send, 409, error_response(None, error))
            return
        try:
            self.notify(session, OPENED, capabilities)
            await until_disconnected(receive, listener.serve(send))
        finally:
            self.closed(listener)

    def closed(self, listener: Listener) -> None:
        if self.open.get(listener.session) is listener:
            del self.open[listener.session]

    def end(self, session: str) -> None:
        """The session ended: its stream (if any) ends too."""
        listener = self.open.pop(session, None)
        if listener is not None:
            listener.close()

    def notify(self, session: str, trigger: str, capabilities: Mapping[str, Any]) -> int:
        """Ask the scenario what to send on `session`'s stream for `trigger`, and queue it; how many were queued
        (0 when the session has no open stream or the scenario sends nothing)."""
        listener = self.open.get(session)
        if listener is None or self.hook is None:
            return 0
        try:
            requests = list(self.hook(ListenEvent(trigger, listener.version, capabilities, self.params)))
        except Exception:  # a scenario's hook failing must not break the POST it answers, nor the stream
            logger.warning("the listen hook failed on %r", trigger, exc_info=True)
            return 0
        loop = asyncio.get_running_loop()
        for request in requests:
            request_id = self.answers.new_id()
            self.answers.expect(session, request_id)
            # unanswered, it is forgotten (so a late answer gets 400, like one on a call's stream)
            loop.call_later(self.answer_timeout_s, self.answers.forget, session, request_id)
            listener.queue.put_nowait(sse_event(server_request(request_id, dict(request), listener.version)))
        return len(requests)

    def close_all(self) -> None:
        for session in list(self.open):
            self.end(session)
