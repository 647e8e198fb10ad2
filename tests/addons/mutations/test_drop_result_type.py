"""drop-result-type: exactly the resultType member goes, on a JSON body and on an SSE event alike."""

from __future__ import annotations

import json

from backchannel.addons.mutations.base import ResultStep
from backchannel.addons.mutations.drop_result_type import DropResultType, DropResultTypeRecord
from tests.addons.conftest import CALL, CALLS, RESULT, Rig, wire
from tests.addons.mutations.conftest import SSE, call_flow, event, note, records, streamed

TEXT = wire(RESULT).decode()


def step(payload):
    return ResultStep(request=CALL, payload=payload, records=[], mint=str, injections={}, sse=False)


def test_it_cuts_the_member_with_its_comma_and_records_the_span():
    s = step(RESULT)
    new = DropResultType().on_result(3, TEXT, s)
    assert new is not None and json.loads(new)["result"] == {"content": RESULT["result"]["content"]}
    [record] = s.records
    assert record == DropResultTypeRecord(
        index=3, removed=',"resultType":"complete"', start=record.start, end=record.end
    )
    assert TEXT[: record.start] + TEXT[record.end :] == new


def test_a_result_without_result_type_is_recorded_as_nothing_removed():
    text = '{"jsonrpc":"2.0","id":1,"result":{}}'
    s = step(json.loads(text))
    assert DropResultType().on_result(0, text, s) is None
    assert s.records == [DropResultTypeRecord(index=0, removed=None)]


def test_an_error_answer_is_left_alone_unrecorded():
    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "x"}}
    s = step(error)
    assert DropResultType().on_result(0, wire(error).decode(), s) is None
    assert s.records == []


def test_it_takes_no_parameters_and_says_what_it_does():
    assert DropResultType.parse({"extra": 1}) == DropResultType()
    assert "resultType" in DropResultType().describe()


def test_on_an_sse_stream_the_response_event_is_rewritten_and_recorded_as_the_client_got_it(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "drop-result-type", "match": CALLS}]})
    flow = call_flow(rig, run_id)
    client = streamed(rig, flow, SSE, event(note(1)), event(RESULT))
    assert client is not None and b"resultType" not in client and event(note(1)) in client
    recording = rig.recording()
    [reply] = [m for m in recording.messages if m.direction == "to-client" and m.kind == "response"]
    assert reply.mutation == "drop-result-type"
    assert "resultType" not in reply.payload["result"], "the message is the client's text"
    assert json.loads(reply.upstream_text or "")["result"]["resultType"] == "complete"
    [[record]] = records(rig)
    assert record["kind"] == "drop-result-type" and record["removed"] == ',"resultType":"complete"'
