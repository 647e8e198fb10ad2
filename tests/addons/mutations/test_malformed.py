"""malformed: the answer is replaced by bytes that are not valid JSON-RPC, in a chosen shape."""

from __future__ import annotations

import json

import pytest

from backchannel.addons.mutations.base import PlanError, ResultStep
from backchannel.addons.mutations.malformed import Malformed, MalformedRecord, wrong_id
from tests.addons.conftest import CALL, CALLS, RESULT, Rig, wire
from tests.addons.mutations.conftest import SSE, call_flow, event, note, records, streamed

TEXT = wire(RESULT).decode()


def apply(kind: Malformed, text: str = TEXT) -> tuple[str | None, list]:
    step = ResultStep(request=CALL, payload=json.loads(text), records=[], mint=str, injections={}, sse=False)
    return kind.on_result(0, text, step), step.records


def test_not_json_is_the_answer_cut_in_half():
    new, recorded = apply(Malformed())
    assert new == TEXT[: len(TEXT) // 2]
    with pytest.raises(ValueError):
        json.loads(new or "")
    assert recorded == [MalformedRecord(index=0, shape="not-json")]


def test_no_jsonrpc_field_removes_only_that_member():
    new, _ = apply(Malformed(shape="no-jsonrpc-field"))
    assert json.loads(new or "") == {k: v for k, v in RESULT.items() if k != "jsonrpc"}
    assert TEXT.replace('"jsonrpc":"2.0",', "") == new


def test_wrong_id_answers_an_id_no_request_carries():
    new, _ = apply(Malformed(shape="wrong-id"))
    assert json.loads(new or "") == {**RESULT, "id": 1_000_001}
    assert (wrong_id("a"), wrong_id(None), wrong_id(True)) == ("a-wrong", "bckch-wrong-id", "bckch-wrong-id")


def test_a_literal_body_is_sent_exactly():
    assert Malformed.parse({"body": "<html>502</html>"}) == Malformed(shape="body", body="<html>502</html>")
    assert apply(Malformed(shape="body", body="<html>502</html>"))[0] == "<html>502</html>"


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({"shape": "pretty"}, "shape must be"),
        ({"shape": "body"}, "body must be a string"),
        ({"shape": "body", "body": 5}, "body must be a string"),
        ({"shape": "wrong-id", "body": "x"}, "body goes only with shape 'body'"),
    ],
)
def test_invalid_members_are_named(raw, words):
    with pytest.raises(PlanError, match=words):
        Malformed.parse(raw)


def test_each_shape_describes_itself():
    assert "first half" in Malformed().describe()
    assert "jsonrpc" in Malformed(shape="no-jsonrpc-field").describe()
    assert "id" in Malformed(shape="wrong-id").describe()
    assert '"<x>"' in Malformed(shape="body", body="<x>").describe()


def test_a_wrong_id_json_answer_reaches_the_client_and_is_recorded_as_the_malformed_message(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "malformed", "match": CALLS, "shape": "wrong-id"}]})
    flow = rig.exchange(run_id, CALL, RESULT)
    assert flow.response is not None and json.loads(flow.response.content or b"")["id"] == 1_000_001
    assert records(rig) == [[{"kind": "malformed", "index": 0, "shape": "wrong-id"}]]
    [reply] = [m for m in rig.recording().messages if m.direction == "to-client"]
    assert (
        reply.mutation == "malformed" and reply.rpc_id == 1_000_001 and json.loads(reply.upstream_text or "") == RESULT
    )


def test_a_not_json_answer_is_recorded_on_the_exchange_and_flagged_as_not_json(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "malformed", "match": CALLS}]})
    flow = rig.exchange(run_id, CALL, RESULT)
    assert flow.response is not None and flow.response.content == wire(RESULT)[: len(TEXT) // 2]
    recording = rig.recording()
    [exchange] = recording.exchanges
    assert exchange.upstream_response_body == wire(RESULT) and exchange.response_body == flow.response.content
    assert [a.kind for a in recording.anomalies] == ["not-json"]


def test_on_an_sse_stream_only_the_response_event_is_malformed(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "malformed", "match": CALLS, "shape": "no-jsonrpc-field"}]})
    flow = call_flow(rig, run_id)
    client = streamed(rig, flow, SSE, event(note(1)), event(RESULT))
    assert (
        client is not None and client.startswith(event(note(1))) and b'"jsonrpc"' not in client[len(event(note(1))) :]
    )
    [reply] = [m for m in rig.recording().messages if m.kind == "response"]
    assert reply.mutation == "malformed" and "jsonrpc" not in reply.payload
