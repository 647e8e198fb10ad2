"""truncate-sse: the stream ends, cleanly, before its response event."""

from __future__ import annotations

import json

from backchannel.addons.mutations.base import HeadersStep, ResultStep
from backchannel.addons.mutations.truncate_sse import TruncateSse, TruncateSseRecord
from tests.addons.conftest import CALL, CALLS, RESULT, Rig, wire
from tests.addons.mutations.conftest import SSE, call_flow, event, note, records, streamed


def step(sse: bool) -> ResultStep:
    return ResultStep(request=CALL, payload=RESULT, records=[], mint=str, injections={}, sse=sse, sse_idx=4)


def test_it_holds_every_event_until_complete_and_cuts_at_the_answer_of_a_stream_only():
    headers = HeadersStep(sse=True, records=[])
    TruncateSse.parse({}).on_headers(0, headers)
    assert headers.hold_events
    on_stream = step(sse=True)
    assert TruncateSse().on_result(2, wire(RESULT).decode(), on_stream) is None
    assert on_stream.cut == "truncate-sse" and on_stream.records == [TruncateSseRecord(index=2, event=4)]
    on_json = step(sse=False)
    assert TruncateSse().on_result(2, wire(RESULT).decode(), on_json) is None
    assert on_json.cut is None and on_json.records == []
    assert "before its response event" in TruncateSse().describe()


def test_the_notifications_go_out_the_response_event_never_does_and_the_stream_ends_cleanly(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "truncate-sse", "match": CALLS}]})
    flow = call_flow(rig, run_id)
    answer = event(RESULT)
    client = streamed(rig, flow, SSE, event(note(1)), b": ping\r\n", answer[:10], answer[10:], event(note(2)))
    assert client == event(note(1)) + b": ping\r\n", "not even the answer's event: line leaks"
    assert flow.error is None, "a clean end, not a broken connection"
    recording = rig.recording()
    assert [(e.idx, e.kind, e.client_raw == e.upstream_raw) for e in recording.sse_events] == [
        (0, "event", True),
        (1, "comment", True),
        (2, "event", False),
        (3, "event", False),
    ]
    assert [e.client_raw for e in recording.sse_events[2:]] == [b"", b""]
    to_client = [m for m in recording.messages if m.direction == "to-client"]
    assert [json.loads(m.text)["params"]["progress"] for m in to_client] == [1]
    assert records(rig) == [[{"kind": "truncate-sse", "index": 0, "event": 2}]]
    [exchange] = recording.exchanges
    assert exchange.response_body == client and exchange.upstream_response_body == (
        event(note(1)) + b": ping\r\n" + answer + event(note(2))
    )
    assert [a.kind for a in recording.anomalies] == ["sse-without-response"], "what the client saw, on the wire"


def test_a_json_answer_is_not_a_stream_and_passes_untouched(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "truncate-sse", "match": CALLS}]})
    flow = rig.exchange(run_id, CALL, RESULT)
    assert flow.response is not None and flow.response.content == wire(RESULT)
    assert records(rig) == [[]]
