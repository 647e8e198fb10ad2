"""Answering a flow whose upstream stays silent: the proxy's 504 is fed into the flow as if the upstream had sent it.

mitmproxy has no way for an addon to answer a request once it went upstream, but its connection handler takes
events from the outside (as `inject.*` does): the response bytes are handed to the flow's server connection, so
mitmproxy parses them as the upstream's answer, runs every response hook (the Recorder records the exchange as
usual) and closes the upstream connection after it (`Connection: close`).
"""

from __future__ import annotations

import asyncio
from http.client import responses
from typing import Any

from mitmproxy import ctx, http
from mitmproxy.proxy import events

_TASKS: set[asyncio.Task[Any]] = set()


def response_bytes(status: int, body: bytes) -> bytes:
    """A complete HTTP/1.1 response carrying a JSON body, framed by its length, closing the connection."""
    reason = responses.get(status, "").encode()
    head = b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % (status, reason, len(body))
    return head + b"Connection: close\r\n\r\n" + body


def answer_as_upstream(flow: http.HTTPFlow, status: int, body: bytes) -> bool:
    """Feed the response into the flow's upstream connection; False if that cannot be done (no live HTTP/1 link)."""
    server = flow.server_conn
    if server is None or server.alpn not in (None, b"", b"http/1.1") or server.timestamp_start is None:
        return False
    proxyserver: Any = ctx.master.addons.get("proxyserver")  # type: ignore[no-untyped-call]
    handler = getattr(proxyserver, "connections", {}).get(flow.client_conn.id)
    if handler is None:
        return False
    task = asyncio.get_running_loop().create_task(
        handler.server_event(events.DataReceived(server, response_bytes(status, body)))
    )
    _TASKS.add(task)  # keep a reference until it ran
    task.add_done_callback(_TASKS.discard)
    return True
