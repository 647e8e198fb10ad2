"""hold: a JSON hold waits in the response hook; an SSE hold goes through the relay, whose own items are marked
structurally (by position: the relay counts them), never by matching their text."""

from __future__ import annotations

import json

from backchannel.addons.mutations.base import DeliveryStep, Relay, RequestStep
from backchannel.addons.mutations.hold import Hold, HoldRecord
from backchannel.addons.transforms import KEEPALIVE, progress_event
from tests.addons.conftest import CALL, CALLS, RESULT, Rig, upstream_response, wire
from tests.addons.mutations.conftest import SSE, call_flow, event, records, streamed


def test_it_parses_with_todays_defaults_and_describes_both_forms():
    assert Hold.parse({}) == Hold(ms=0, as_="json", keepalive_ms=500, progress=True)
    sse = Hold.parse({"ms": 900, "as": "sse", "keepaliveMs": 100, "progress": False})
    assert sse == Hold(ms=900, as_="sse", keepalive_ms=100, progress=False)
    assert "no bytes" in Hold(ms=5).describe()
    assert "keep-alives every 100 ms" in sse.describe() and "progress" not in sse.describe()


def test_a_json_hold_stays_for_the_delivery_and_waits_there():
    step = RequestStep(request=CALL, records=[])
    assert Hold(ms=700).on_request(0, step) is True and step.relay is None and step.records == []
    delivery = DeliveryStep(records=[])
    Hold(ms=700).on_delivery(1, delivery)
    assert delivery.wait_s == 0.7 and delivery.records == [HoldRecord(index=1, as_="json", ms=700)]


def test_an_sse_hold_claims_the_relay_unless_another_mutation_already_did():
    step = RequestStep(request=CALL, records=[])
    assert Hold(ms=300, as_="sse", keepalive_ms=50).on_request(0, step) is False
    assert step.relay == Relay(hold_ms=300, keepalive_ms=50, progress=True)
    assert step.records == [HoldRecord(index=0, as_="sse", ms=300)]
    assert Hold(ms=1, as_="sse").on_request(1, step) is False
    assert len(step.records) == 1, "the second one is not applied, so not recorded"


def test_the_rewriter_points_a_held_request_at_the_relay_with_a_ticket(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "hold", "match": CALLS, "ms": 250, "as": "sse"}]})
    flow = call_flow(rig, run_id)
    ticket = rig.session.flows[flow.id].hold_ticket
    assert ticket is not None and ticket.hold and ticket.hold_ms == 250
    assert (flow.request.host, flow.request.port) == ("127.0.0.1", rig.addons.holds.port)
    assert flow.request.path.startswith("/hold/") and rig.addons.holds.tickets
    assert ticket.upstream == "http://127.0.0.1:8123" and ticket.path == "/mcp"


def test_items_the_relay_made_are_marked_by_count_and_look_alikes_from_upstream_are_not(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "hold", "match": CALLS, "ms": 250, "as": "sse"}]})
    flow = call_flow(rig, run_id)
    made = KEEPALIVE + progress_event("p", 1)
    rig.session.flows[flow.id].hold_ticket.made = 2  # what the relay counted before writing those bytes
    upstream_look_alikes = KEEPALIVE + progress_event("p", 2)  # same bytes, but the upstream's
    client = streamed(rig, flow, SSE, made, upstream_look_alikes, event(RESULT))
    assert client == made + upstream_look_alikes + event(RESULT)
    recording = rig.recording()
    assert [(e.kind, e.origin) for e in recording.sse_events] == [
        ("comment", "proxy"),
        ("event", "proxy"),
        ("comment", "upstream"),
        ("event", "upstream"),
        ("event", "upstream"),
    ]
    to_client = [m for m in recording.messages if m.direction == "to-client"]
    assert [(m.kind, m.mutation) for m in to_client] == [
        ("notification", "hold"),
        ("notification", None),
        ("response", None),
    ]
    assert records(rig) == [[{"kind": "hold", "index": 0, "as": "sse", "ms": 250}]]


def test_a_json_hold_delays_through_the_rewriter_and_marks_the_message(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "hold", "match": CALLS, "ms": 40}]})
    flow = rig.flow(run_id, json.dumps(CALL).encode())
    rig.send(flow)
    assert rig.reply(flow, upstream_response(wire(RESULT))) == 0.04
    rig.finish(flow)
    assert records(rig) == [[{"kind": "hold", "index": 0, "as": "json", "ms": 40}]]
    [reply] = [m for m in rig.recording().messages if m.direction == "to-client"]
    assert reply.mutation == "hold"
