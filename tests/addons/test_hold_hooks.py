"""The HoldServer in process: started and stopped on an event loop of the test's own, every wait bounded.

A tiny asyncio upstream on 127.0.0.1 plays the MCP server; the HoldServer fetches it from a worker thread while
the loop stays free to answer.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from backchannel.addons.hold import HoldTicket, SinkTicket
from tests.addons.conftest import CALL, CALLS, RESULT, WAIT_S, Rig, run_bounded, upstream_response, wire

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    return head, await reader.readexactly(length) if length else b""


def answering(body: bytes, content_type: str = "application/json", seen: list[Any] | None = None) -> Handler:
    """An upstream that answers every request with `body`, noting what it was sent."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head, sent = await read_request(reader)
        if seen is not None:
            seen.append((head, sent))
        writer.write(
            f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n".encode()
            + body
        )
        await writer.drain()
        writer.close()

    return handle


async def serve(handler: Handler) -> tuple[asyncio.Server, int]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    return server, int(server.sockets[0].getsockname()[1])


async def post(port: int, path: str, body: bytes) -> tuple[bytes, bytes]:
    """POST as mitmproxy would to the HoldServer, and read until it closes; (head, body)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
    await writer.drain()
    raw = await reader.read()
    writer.close()
    await writer.wait_closed()
    head, _, rest = raw.partition(b"\r\n\r\n")
    return head, rest


def ticket(upstream_port: int, **overrides: Any) -> HoldTicket:
    fields: dict[str, Any] = {
        "upstream": f"http://127.0.0.1:{upstream_port}",
        "path": "/mcp",
        "headers": [("content-type", "application/json"), ("host", "client.test")],
        "body": wire(CALL),
        "hold_ms": 0,
        "keepalive_ms": 1000,
        "progress_token": None,
        "request_id": 1,
    }
    return HoldTicket(**{**fields, **overrides})


def events(body: bytes) -> list[Any]:
    """The JSON payload of each SSE event in a body."""
    found = []
    for block in body.replace(b"\r\n", b"\n").split(b"\n\n"):
        data = [line[6:] for line in block.split(b"\n") if line.startswith(b"data: ")]
        if data:
            found.append(json.loads(b"\n".join(data)))
    return found


def test_a_ticket_is_issued_and_read_back_as_sse_carrying_the_upstreams_answer(rig: Rig):
    holds = rig.addons.holds
    seen: list[Any] = []

    async def scenario() -> None:
        upstream, upstream_port = await serve(answering(wire(RESULT), seen=seen))
        await holds.start()
        try:
            assert holds.port > 0
            held = ticket(upstream_port)
            path = holds.issue(held)
            assert path.startswith("/hold/") and holds.tickets[path.rsplit("/", 1)[1]] is held
            head, body = await post(holds.port, path, b"ignored: the ticket carries the body")
            assert head.startswith(b"HTTP/1.1 200 OK") and b"Content-Type: text/event-stream" in head
            assert body == b"event: message\r\ndata: " + wire(RESULT) + b"\r\n\r\n"
            assert (held.upstream_status, held.upstream_body, held.upstream_error) == (200, wire(RESULT), None)
        finally:
            await holds.stop()
            upstream.close()
            await upstream.wait_closed()

    run_bounded(scenario())
    [(head, sent)] = seen
    assert head.startswith(b"POST /mcp HTTP/1.1") and sent == wire(CALL)
    assert b"client.test" not in head, "the client's Host header is not passed on"


def test_an_unknown_ticket_is_answered_404(rig: Rig):
    holds = rig.addons.holds

    async def scenario() -> bytes:
        await holds.start()
        try:
            head, _ = await post(holds.port, "/hold/0123456789abcdef", b"")
            return head
        finally:
            await holds.stop()

    assert run_bounded(scenario()).startswith(b"HTTP/1.1 404 Not Found")


def test_an_upstream_that_is_down_becomes_a_jsonrpc_error_event_for_the_held_request(rig: Rig):
    holds = rig.addons.holds

    async def scenario() -> list[Any]:
        gone, port = await serve(answering(b""))
        gone.close()
        await gone.wait_closed()
        await holds.start()
        try:
            _, body = await post(holds.port, holds.issue(ticket(port, request_id=7)), b"")
            return events(body)
        finally:
            await holds.stop()

    [note] = run_bounded(scenario())
    assert note["id"] == 7 and note["error"]["code"] == -32603
    assert note["error"]["message"].startswith("backchannel hold: the upstream failed: ConnectionRefusedError")


def test_an_sse_answer_from_upstream_is_passed_on_verbatim_after_the_hold(rig: Rig):
    holds = rig.addons.holds
    stream = b"event: message\ndata: " + wire(RESULT) + b"\n\n"

    async def scenario() -> bytes:
        upstream, port = await serve(answering(stream, "text/event-stream"))
        await holds.start()
        try:
            _, body = await post(holds.port, holds.issue(ticket(port)), b"")
            return body
        finally:
            await holds.stop()
            upstream.close()
            await upstream.wait_closed()

    assert run_bounded(scenario()) == stream


def test_a_stopped_hold_server_accepts_no_more_connections(rig: Rig):
    holds = rig.addons.holds

    async def scenario() -> None:
        await holds.start()
        port = holds.port
        await holds.stop()
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except ConnectionRefusedError:
            return
        writer.close()
        raise AssertionError(f"port {port} still accepts connections after stop()")

    run_bounded(scenario())


def test_a_held_sse_response_goes_through_the_hold_server_and_is_recorded_with_the_upstreams_answer(rig: Rig):
    """Rewriter, HoldServer and Recorder together: the test plays mitmproxy's part between them."""
    holds = rig.addons.holds
    request = {**CALL, "params": {**CALL["params"], "_meta": {**CALL["params"]["_meta"], "progressToken": "tok"}}}
    mutation = {"kind": "hold", "match": CALLS, "as": "sse", "ms": 150, "keepaliveMs": 25}

    async def scenario() -> bytes:
        upstream, port = await serve(answering(wire(RESULT)))
        await holds.start()
        try:
            run_id = rig.runs.add({"mutations": [mutation]}, upstream=f"http://127.0.0.1:{port}/mcp")
            flow = rig.flow(run_id, wire(request))
            rig.send(flow)
            assert (flow.request.host, flow.request.port) == ("127.0.0.1", holds.port)
            assert flow.request.path.startswith("/hold/")
            _, body = await post(holds.port, flow.request.path, flow.request.raw_content or b"")
            rig.reply(flow, upstream_response(None, content_type="text/event-stream", streamed=True))
            client = rig.stream(flow, body)
            rig.finish(flow)
            return client
        finally:
            await holds.stop()
            upstream.close()
            await upstream.wait_closed()

    client = run_bounded(scenario())
    *progress, final = events(client)
    assert final == RESULT
    assert progress, "a 150 ms hold with 25 ms keep-alives sends progress while it waits"
    assert [p["params"]["progressToken"] for p in progress] == ["tok"] * len(progress)
    assert client.count(b":\r\n") == len(progress), "one keep-alive comment per progress notification"
    recording = rig.recording()
    assert {e.origin for e in recording.sse_events if e.kind == "comment"} == {"proxy"}
    [exchange] = recording.exchanges
    assert exchange.upstream_response_body == wire(RESULT), "what the real upstream said, not the hold server"
    assert exchange.response_body == client
    assert [(m["kind"], m["as"], m["ms"]) for m in exchange.mutations] == [("hold", "sse", 150)]
    held = [
        m.mutation for m in recording.messages if m.direction == "to-client" and m.method == "notifications/progress"
    ]
    assert held == ["hold"] * len(progress)


def test_many_held_requests_wait_on_their_upstream_at_once_none_queued_behind_another(rig: Rig):
    # more than asyncio's default executor has threads on a small machine (min(32, CPUs + 4)): an upstream that
    # answers only once every request has reached it would never answer if the fetches took turns
    holds = rig.addons.holds
    count = 40
    arrived: list[bytes] = []
    everyone = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        _, sent = await read_request(reader)
        arrived.append(sent)
        if len(arrived) == count:
            everyone.set()
        await everyone.wait()
        body = wire(RESULT)
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
            + b"Connection: close\r\n\r\n"
            + body
        )
        await writer.drain()
        writer.close()

    async def scenario() -> list[tuple[bytes, bytes]]:
        upstream, upstream_port = await serve(handle)
        await holds.start()
        try:
            tickets = [ticket(upstream_port, hold=hold) for hold in [True, False] * (count // 2)]  # held and relayed
            posts = [post(holds.port, holds.issue(each), b"") for each in tickets]
            return await asyncio.gather(*posts)
        finally:
            await holds.stop()
            upstream.close()
            await upstream.wait_closed()

    answers = run_bounded(scenario())
    assert len(arrived) == count
    assert all(head.startswith(b"HTTP/1.1 200 OK") and wire(RESULT) in body for head, body in answers)
    # and the stopped server's threads end with it (none left waiting for work in the test's process)
    fetchers = [thread for thread in threading.enumerate() if thread.name.startswith("backchannel-hold")]
    deadline = time.monotonic() + WAIT_S  # one bound for all of them
    for thread in fetchers:
        thread.join(max(0.0, deadline - time.monotonic()))
    assert not [thread.name for thread in fetchers if thread.is_alive()]


def test_a_path_http_client_cannot_send_is_said_in_the_held_answer_not_as_a_missing_status(rig: Rig):
    holds = rig.addons.holds

    async def scenario() -> bytes:
        upstream, upstream_port = await serve(answering(wire(RESULT)))
        await holds.start()
        try:
            _, body = await post(holds.port, holds.issue(ticket(upstream_port, path="/mcp/\u00e9t\u00e9")), b"")
            return body
        finally:
            await holds.stop()
            upstream.close()
            await upstream.wait_closed()

    [answer] = events(run_bounded(scenario()))
    assert answer["id"] == 1 and "UnicodeEncodeError" in answer["error"]["message"]
    assert "HTTP None" not in answer["error"]["message"]


def test_a_held_answer_past_the_bound_is_not_held_whole_the_client_gets_an_error_event_naming_the_bound(rig: Rig):
    holds = rig.addons.holds
    big = b'{"jsonrpc":"2.0","id":1,"result":{"text":"' + b"x" * 300_000 + b'"}}'

    async def scenario() -> tuple[HoldTicket, list[Any]]:
        upstream, port = await serve(answering(big))
        await holds.start()
        try:
            held = ticket(port, max_held=100_000)
            _, body = await post(holds.port, holds.issue(held), b"")
            return held, events(body)
        finally:
            await holds.stop()
            upstream.close()
            await upstream.wait_closed()

    held, [note] = run_bounded(scenario())
    assert held.too_large and held.upstream_body == big[:100_000], "only the bound was read and kept"
    assert note["id"] == 1 and "past 100000 bytes" in note["error"]["message"]


def test_a_relayed_body_passes_whole_while_only_the_bound_is_kept_for_the_recording(rig: Rig):
    holds = rig.addons.holds
    big = b'{"jsonrpc":"2.0","id":1,"result":{"text":"' + b"y" * 3_000_000 + b'"}}'

    async def scenario() -> tuple[HoldTicket, bytes]:
        upstream, port = await serve(answering(big))
        await holds.start()
        try:
            relayed = ticket(port, hold=False, max_held=100_000)
            _, body = await post(holds.port, holds.issue(relayed), b"")
            return relayed, body
        finally:
            await holds.stop()
            upstream.close()
            await upstream.wait_closed()

    relayed, body = run_bounded(scenario())
    assert body == big, "the client gets every byte"
    assert relayed.upstream_body == big[:100_000] and not relayed.too_large


def test_a_paced_event_past_the_bound_goes_on_at_once_and_the_events_around_it_keep_their_gaps(rig: Rig):
    holds = rig.addons.holds
    small = b"event: message\ndata: " + wire(RESULT) + b"\n\n"
    huge = b"data: " + b"z" * 500_000 + b"\n\n"
    stream = small + huge + small

    async def scenario() -> tuple[bytes, float]:
        upstream, port = await serve(answering(stream, "text/event-stream"))
        await holds.start()
        try:
            began = time.monotonic()
            paced = ticket(port, hold=False, between_events_ms=300, max_held=4096)
            _, body = await post(holds.port, holds.issue(paced), b"")
            return body, time.monotonic() - began
        finally:
            await holds.stop()
            upstream.close()
            await upstream.wait_closed()

    body, took = run_bounded(scenario())
    assert body == stream, "every byte, in order"
    # the huge event is not paced (it went on as it came) but the next one still waits its gap: one gap at least
    assert 0.3 <= took < WAIT_S, took


async def raw_exchange(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    raw = await reader.read()
    writer.close()
    await writer.wait_closed()
    return raw


def test_the_sink_reads_a_body_to_its_end_drops_it_and_answers_once_whatever_its_framing(rig: Rig):
    holds = rig.addons.holds
    body = b"y" * 3_000_000

    async def scenario() -> list[bytes]:
        await holds.start()
        try:
            answers = []
            for framing in ("length", "chunked"):
                path = holds.issue(SinkTicket(404, b'{"error":"no such run"}'))
                if framing == "length":
                    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                    sent = head + body
                else:
                    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
                    sent = head + b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in (body[:7], body[7:])) + b"0\r\n\r\n"
                answers.append(await raw_exchange(holds.port, sent))
                assert path.rsplit("/", 1)[1] not in holds.tickets, "a ticket is used once"
            again = await raw_exchange(holds.port, f"POST {path} HTTP/1.1\r\nContent-Length: 0\r\n\r\n".encode())
            answers.append(again)
            return answers
        finally:
            await holds.stop()

    length, chunked, again = run_bounded(scenario())
    for answer in (length, chunked):
        assert answer.startswith(b"HTTP/1.1 404 Not Found\r\n") and answer.endswith(b'{"error":"no such run"}')
    assert again.startswith(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0"), "a used ticket answers nothing"


def test_a_sink_ticket_is_gone_after_a_client_that_leaves_mid_body_or_sends_bad_framing(rig: Rig):
    holds = rig.addons.holds

    async def scenario() -> int:
        await holds.start()
        try:
            for request in (b"Content-Length: 100\r\n\r\nabc", b"Transfer-Encoding: chunked\r\n\r\nzz\r\n"):
                path = holds.issue(SinkTicket(404, b"{}"))
                _, writer = await asyncio.open_connection("127.0.0.1", holds.port)
                writer.write(f"POST {path} HTTP/1.1\r\n".encode() + request)
                await writer.drain()
                writer.close()
                await writer.wait_closed()
            for _ in range(100):  # the server sees each connection end on its own loop turn
                if not holds.tickets:
                    break
                await asyncio.sleep(0.01)
            return len(holds.tickets)
        finally:
            await holds.stop()

    assert run_bounded(scenario()) == 0
