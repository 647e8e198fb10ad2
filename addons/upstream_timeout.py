"""Ending a flow whose upstream went silent, before or after it started answering.

mitmproxy has no way for an addon to answer a request once it went upstream, nor to see a body's progress, but its
connection handler takes events from the outside (as `inject.*` does) and reads each connection's events through one
method. So:
- `last_upstream_bytes` taps that method (per handler, once) to learn when the upstream last sent bytes;
- `answer_as_upstream` hands a whole response to the flow's server connection before any of the upstream's arrived,
  so mitmproxy parses it as the upstream's answer, runs every hook (the Recorder records it as usual) and closes
  the upstream connection after it (`Connection: close`);
- `cut_off` ends a flow whose response already began: the client gets the proxy's last bytes on its connection,
  which is then closed (mitmproxy writes nothing to a closing transport), and the upstream connection is closed so
  mitmproxy ends the flow.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from http.client import responses
from typing import Any

from mitmproxy import ctx, http
from mitmproxy.proxy import events

_TASKS: set[asyncio.Task[Any]] = set()
_HTTP1 = (None, b"", b"http/1.1")
_TAP = "_backchannel_last_bytes"  # the handler attribute holding {connection id: monotonic time of its last bytes}


def response_bytes(status: int, body: bytes) -> bytes:
    """A complete HTTP/1.1 response carrying a JSON body, framed by its length, closing the connection."""
    reason = responses.get(status, "").encode()
    head = b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % (status, reason, len(body))
    return head + b"Connection: close\r\n\r\n" + body


def _handler(flow: http.HTTPFlow) -> Any | None:
    """The connection handler serving this flow's client, or None outside a running mitmproxy."""
    try:
        proxyserver: Any = ctx.master.addons.get("proxyserver")  # type: ignore[no-untyped-call]
    except AttributeError:
        return None
    return getattr(proxyserver, "connections", {}).get(flow.client_conn.id)


def last_upstream_bytes(flow: http.HTTPFlow) -> Callable[[], float]:
    """A reading of when this flow's upstream last sent bytes (time.monotonic(); 0.0 when never or unknown).

    The first call for a client connection wraps its handler's `server_event`, through which mitmproxy passes every
    read of every connection; the wrapper only notes the time of a server connection's bytes (no await, no copy).
    """
    handler = _handler(flow)
    if handler is None:
        return lambda: 0.0
    stamps: dict[str, float] | None = handler.__dict__.get(_TAP)
    if stamps is None:
        stamps = {}
        original = handler.server_event
        client_id = flow.client_conn.id

        def server_event(event: events.Event) -> Any:
            if type(event) is events.DataReceived and event.connection.id != client_id:
                stamps[event.connection.id] = time.monotonic()
            return original(event)

        handler.server_event = server_event  # the read loop looks the method up per event: the instance's wins
        setattr(handler, _TAP, stamps)
    return lambda: stamps.get(flow.server_conn.id, 0.0) if flow.server_conn is not None else 0.0


def answer_as_upstream(flow: http.HTTPFlow, status: int, body: bytes) -> bool:
    """Feed the response into the flow's upstream connection; False if that cannot be done (no live HTTP/1 link)."""
    server = flow.server_conn
    if server is None or server.alpn not in _HTTP1 or server.timestamp_start is None:
        return False
    handler = _handler(flow)
    if handler is None:
        return False
    task = asyncio.get_running_loop().create_task(
        handler.server_event(events.DataReceived(server, response_bytes(status, body)))
    )
    _TASKS.add(task)  # keep a reference until it ran
    task.add_done_callback(_TASKS.discard)
    return True


def cut_off(flow: http.HTTPFlow, last: bytes) -> bool:
    """Send `last` as the final bytes of the client's connection and close it and the upstream's; False if the
    client's link is not HTTP/1 (raw bytes would break its framing) or is gone."""
    if flow.client_conn.alpn not in _HTTP1:
        return False
    handler = _handler(flow)
    transports = getattr(handler, "transports", None) or {}
    client = transports.get(flow.client_conn)
    writer = getattr(client, "writer", None)
    if not isinstance(writer, asyncio.StreamWriter) or writer.is_closing():
        return False
    writer.write(last)
    writer.close()  # flushes `last` first; from now on mitmproxy skips every write to this client (is_closing)
    upstream = getattr(transports.get(flow.server_conn), "writer", None) if flow.server_conn is not None else None
    if isinstance(upstream, asyncio.StreamWriter):
        upstream.close()  # mitmproxy reads the end of the upstream and ends the flow (its error hook runs)
    return True


def chunk(data: bytes) -> bytes:
    """`data` as one HTTP/1.1 chunk followed by the last-chunk marker: the end of a chunked body."""
    return b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data)
