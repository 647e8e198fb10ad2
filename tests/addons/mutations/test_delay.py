"""delay: through the loopback relay, the upstream's answer arrives late (all of it) or paced (event by event).

The relay runs in process on an event loop of the test's own, against a tiny asyncio upstream on 127.0.0.1;
every wait is bounded.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest

from backchannel.addons.hold import HoldServer, HoldTicket
from backchannel.addons.mutations.base import PlanError, Relay, RequestStep
from backchannel.addons.mutations.delay import Delay, DelayRecord
from tests.addons.conftest import CALL, CALLS, RESULT, Rig, run_bounded, upstream_response, wire
from tests.addons.mutations.conftest import call_flow, event, note, records

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def test_it_parses_ms_and_where_and_describes_both():
    assert Delay.parse({"ms": 250}) == Delay(ms=250, where="response")
    paced = Delay.parse({"ms": 40, "where": "between-events"})
    assert paced == Delay(ms=40, where="between-events")
    assert "250 ms" in Delay(ms=250).describe() and "each SSE event after the first" in paced.describe()
    with pytest.raises(PlanError, match="ms is required"):
        Delay.parse({"where": "response"})


def test_it_claims_the_relay_records_itself_and_leaves_nothing_for_later_steps():
    step = RequestStep(request=CALL, records=[])
    assert Delay(ms=30, where="between-events").on_request(1, step) is False
    assert step.relay == Relay(between_events_ms=30)
    assert step.records == [DelayRecord(index=1, where="between-events", ms=30)]
    assert Delay(ms=99).on_request(2, step) is False and len(step.records) == 1, "the relay was already taken"
    step = RequestStep(request=CALL, records=[])
    Delay(ms=30).on_request(0, step)
    assert step.relay == Relay(delay_ms=30)


def test_the_rewriter_sends_a_delayed_request_to_the_relay_in_relay_mode(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "delay", "match": CALLS, "ms": 120}]})
    flow = call_flow(rig, run_id)
    ticket = rig.session.flows[flow.id].hold_ticket
    assert ticket is not None and not ticket.hold and (ticket.delay_ms, ticket.between_events_ms) == (120, 0)
    assert flow.request.path.startswith("/hold/")
    assert rig.session.flows[flow.id].active == ()
    assert [r.KIND for r in rig.session.flows[flow.id].applied] == ["delay"]


# ---- the relay itself ---------------------------------------------------------------------------------------------


def upstream(head: bytes, *parts: bytes) -> Handler:
    """An upstream that reads one request and writes `head`, then each part as its own write."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request_head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":")[1])
                for line in request_head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            ),
            0,
        )
        await reader.readexactly(length)
        writer.write(head)
        for part in parts:
            writer.write(part)
            await writer.drain()
        writer.close()

    return handle


async def through_relay(ticket: HoldTicket, handler: Handler) -> list[tuple[float, bytes]]:
    """Serve `handler` as the upstream, post to the relay as mitmproxy would; (seconds since posting, bytes) read."""
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    ticket.upstream = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    relay = HoldServer()
    await relay.start()
    try:
        path = relay.issue(ticket)
        reader, writer = await asyncio.open_connection("127.0.0.1", relay.port)
        began = time.monotonic()
        writer.write(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{{}}".encode())
        await writer.drain()
        reads = []
        while chunk := await reader.read(65536):
            reads.append((time.monotonic() - began, chunk))
        writer.close()
        return reads
    finally:
        await relay.stop()
        server.close()


def ticket(**kwargs) -> HoldTicket:
    fields = {"hold_ms": 0, "keepalive_ms": 500, "progress_token": None, "hold": False, **kwargs}
    return HoldTicket(upstream="", path="/mcp", headers=[("content-type", "application/json")], body=b"{}", **fields)


JSON_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nX-Up: 1\r\n\r\n"
SSE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


def chunked(*parts: bytes) -> list[bytes]:
    return [b"%x\r\n%s\r\n" % (len(p), p) for p in parts] + [b"0\r\n\r\n"]


def test_a_response_delay_sends_nothing_until_the_delay_is_over_then_the_upstreams_answer_unchanged():
    body = wire(RESULT)
    made = ticket(delay_ms=150)
    reads = run_bounded(through_relay(made, upstream(JSON_HEAD % len(body), body)))
    assert reads[0][0] >= 0.15, f"the first byte came after {reads[0][0]:.3f} s"
    raw = b"".join(chunk for _, chunk in reads)
    head, _, got = raw.partition(b"\r\n\r\n")
    assert got == body and made.upstream_body == body and made.upstream_status == 200
    assert head.startswith(b"HTTP/1.1 200 OK") and b"X-Up: 1" in head and b"Connection: close" in head
    assert b"Content-Length: %d" % len(body) in head


def test_between_events_the_first_event_goes_at_once_and_each_later_one_waits():
    events = [event(note(1)), event(note(2)), event(RESULT)]
    made = ticket(between_events_ms=120)
    reads = run_bounded(through_relay(made, upstream(SSE_HEAD, *chunked(b": hi\r\n", *events))))
    raw = b"".join(chunk for _, chunk in reads)
    head, _, body = raw.partition(b"\r\n\r\n")
    assert b"Transfer-Encoding" not in head, "the relay frames by close: the upstream's chunking is gone"
    assert body == b": hi\r\n" + b"".join(events)
    arrivals = {}
    for at, chunk in reads:
        for n, one in enumerate(events):
            if one in chunk:
                arrivals[n] = at
    # event n leaves after n pauses, each begun once the one before it was written: so it arrives at least n pauses
    # after the post (a gap between two arrivals can look shorter when a loaded loop reads the earlier one late)
    assert arrivals[1] >= 0.12 and arrivals[2] >= 0.24, arrivals
    assert made.made == 0 and made.upstream_body == b": hi\r\n" + b"".join(events)


def test_an_unreachable_upstream_is_a_502_with_a_jsonrpc_error():
    async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.transport.abort()

    made = ticket(delay_ms=10, request_id=7)
    raw = b"".join(chunk for _, chunk in run_bounded(through_relay(made, refuse)))
    assert raw.startswith(b"HTTP/1.1 502 Bad Gateway") and b'"id":7' in raw and b"-32603" in raw


def test_the_delay_is_recorded_and_marks_the_message_it_delayed(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "delay", "match": CALLS, "ms": 5}]})
    flow = call_flow(rig, run_id)
    rig.session.flows[flow.id].hold_ticket.upstream_headers = [("Content-Type", "application/json")]
    rig.reply(flow, upstream_response(wire(RESULT)))
    rig.finish(flow)
    assert records(rig) == [[{"kind": "delay", "index": 0, "where": "response", "ms": 5}]]
    [reply] = [m for m in rig.recording().messages if m.direction == "to-client"]
    assert reply.mutation == "delay"
