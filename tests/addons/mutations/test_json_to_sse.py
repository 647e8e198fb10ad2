"""json-to-sse: a JSON answer reaches the client as one SSE message event."""

from __future__ import annotations

from backchannel.addons.mutations.base import DeliveryStep
from backchannel.addons.mutations.json_to_sse import JsonToSse, JsonToSseRecord
from tests.addons.conftest import CALL, CALLS, RESULT, Rig
from tests.addons.mutations.conftest import event, records


def test_it_asks_for_the_reframing_and_records_it():
    step = DeliveryStep(records=[])
    JsonToSse.parse({}).on_delivery(2, step)
    assert step.to_sse and step.records == [JsonToSseRecord(index=2)]
    assert "SSE" in JsonToSse().describe()


def test_the_client_gets_an_event_stream_carrying_the_upstream_text(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "json-to-sse", "match": CALLS}]})
    flow = rig.exchange(run_id, CALL, RESULT)
    assert flow.response is not None and flow.response.headers["content-type"] == "text/event-stream"
    assert flow.response.content == event(RESULT)
    assert records(rig) == [[{"kind": "json-to-sse", "index": 0}]]
    recording = rig.recording()
    [item] = recording.sse_events
    assert (item.kind, item.origin, item.client_raw) == ("event", "proxy", event(RESULT))
    [reply] = [m for m in recording.messages if m.direction == "to-client"]
    assert (reply.mutation, reply.sse_idx, reply.payload) == ("json-to-sse", 0, RESULT)
