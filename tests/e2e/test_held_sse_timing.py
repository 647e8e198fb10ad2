"""SSE through the proxy is never buffered: keep-alives reach the client when they are sent, not at the end.

Both clocks are the test process's own monotonic clock: the client's arrival times, and (for the pass-through
case) the raw upstream's send times, since that upstream runs in a thread of this process.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable

import httpx

from backchannel.proxy.run.capture import Capture
from tests.e2e.conftest import (
    HTTP_TIMEOUT,
    REPO_TEXT,
    SSE_HEAD,
    RawRequest,
    RawUpstream,
    Respond,
    close_and_load,
    rpc_headers,
    rpc_request,
    sse_data_messages,
    sse_event_bytes,
)

TOLERANCE_S = 0.050
INTERVAL_S = 0.100


def _read_stream(url: str) -> tuple[float, list[tuple[float, bytes]]]:
    """POST one tools/call and read the raw body chunk by chunk: (time sent, [(arrival time, chunk)])."""
    arrivals: list[tuple[float, bytes]] = []
    body = json.dumps(rpc_request(1)).encode()  # no progressToken: the only proxy-made items are keep-alives
    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        began = time.monotonic()
        with client.stream("POST", url, content=body, headers=rpc_headers()) as response:
            assert response.status_code == 200
            assert response.headers["content-type"] == "text/event-stream"
            for chunk in response.iter_raw():
                arrivals.append((time.monotonic(), chunk))
    return began, arrivals


def _keepalive_arrivals(arrivals: list[tuple[float, bytes]]) -> list[float]:
    """One arrival time per `:` comment line, in order (a chunk holding two comments counts twice, same time)."""
    times: list[float] = []
    pending = b""
    for at, chunk in arrivals:
        pending += chunk
        *lines, pending = pending.split(b"\n")
        times.extend(at for line in lines if line.startswith(b":"))
    return times


def test_held_sse_keepalives_reach_the_client_on_their_schedule_not_bunched_at_the_end(capture: Capture) -> None:
    hold_ms = 1000
    plan = {
        "mutations": [
            {"kind": "hold", "match": {"method": "tools/call"}, "ms": hold_ms, "as": "sse", "keepaliveMs": 100}
        ]
    }
    run = capture.new_run("held-timing", plan)

    began, arrivals = _read_stream(run.url)

    keepalives = _keepalive_arrivals(arrivals)
    assert len(keepalives) >= 8, f"expected about {hold_ms // 100 - 1} keep-alives over the hold, got {keepalives}"
    first = keepalives[0]
    for k, at in enumerate(keepalives):
        scheduled = first + k * INTERVAL_S
        assert abs(at - scheduled) <= TOLERANCE_S, (
            f"keep-alive {k} arrived {at - first:.3f} s after the first; scheduled at {k * INTERVAL_S:.3f} s"
        )
    assert keepalives[-1] - first >= 0.6, "arrivals are spread over the hold"
    assert first - began < 0.2, "the first keep-alive is not held back"

    final_at = arrivals[-1][0]
    assert final_at - began >= hold_ms / 1000
    assert final_at >= keepalives[-1]
    (result,) = sse_data_messages(b"".join(chunk for _, chunk in arrivals))
    assert result["result"]["content"][0]["text"] == REPO_TEXT

    rec = close_and_load(capture)
    (exchange,) = rec.exchanges_in(run.id)
    recorded = [i for i in rec.sse_events if i.flow_id == exchange.flow_id and i.kind == "comment"]
    assert len(recorded) == len(keepalives) and all(i.origin == "proxy" for i in recorded)


def test_an_upstreams_own_keepalives_pass_through_as_they_are_sent(
    capture: Capture, raw_upstream: Callable[[Respond], RawUpstream]
) -> None:
    sent: list[float] = []
    count = 10

    def pace(conn: socket.socket, request: RawRequest, stopping: threading.Event) -> None:
        conn.sendall(SSE_HEAD)
        began = time.monotonic()
        for k in range(1, count + 1):
            if stopping.wait(max(0.0, began + k * INTERVAL_S - time.monotonic())):
                return
            sent.append(time.monotonic())
            conn.sendall(b":\r\n")
        result = {"content": [{"type": "text", "text": REPO_TEXT}], "isError": False, "resultType": "complete"}
        conn.sendall(sse_event_bytes({"jsonrpc": "2.0", "id": request.message["id"], "result": result}))

    upstream = raw_upstream(pace)
    run = capture.new_run("pass-through-timing", upstream=upstream.url)

    _, arrivals = _read_stream(run.url)

    keepalives = _keepalive_arrivals(arrivals)
    assert len(sent) == count and len(keepalives) == count
    for k, (was_sent, arrived) in enumerate(zip(sent, keepalives, strict=True)):
        assert arrived - was_sent <= TOLERANCE_S, f"keep-alive {k} took {arrived - was_sent:.3f} s through the proxy"
    (result,) = sse_data_messages(b"".join(chunk for _, chunk in arrivals))
    assert result["id"] == 1 and result["result"]["content"][0]["text"] == REPO_TEXT
    assert b"".join(chunk for _, chunk in arrivals).startswith(b":\r\n" * count), "CRLF and bytes kept as sent"
    assert upstream.errors == []

    rec = close_and_load(capture)
    (exchange,) = rec.exchanges_in(run.id)
    items = sorted((i for i in rec.sse_events if i.flow_id == exchange.flow_id), key=lambda i: i.idx)
    assert [(i.kind, i.origin) for i in items] == [("comment", "upstream")] * count + [("event", "upstream")]
    assert rec.anomalies == ()
