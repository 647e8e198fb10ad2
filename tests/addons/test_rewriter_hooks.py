"""The Rewriter through its hooks: each mutation of a run's plan, seen in the flow and in the recording.

Plans are given as the JSON data a run stores, never as the Rewriter's internal types, so these tests hold while
the mutation kinds move between modules.
"""

from __future__ import annotations

import json
from typing import Any

from tests.addons.conftest import CALL, CALLS, FORM_REQUEST, RESULT, Rig, upstream_response, wire


def plan(*mutations: dict[str, Any]) -> dict[str, Any]:
    return {"mutations": [{"match": CALLS, **m} for m in mutations]}


def call(request_id: int, **extra_params: Any) -> dict[str, Any]:
    return {**CALL, "id": request_id, "params": {**CALL["params"], **extra_params}}


def result(request_id: int) -> dict[str, Any]:
    return {**RESULT, "id": request_id}


def kinds(rig: Rig) -> list[list[str]]:
    return [[m["kind"] for m in x.mutations] for x in rig.recording().exchanges]


def test_drop_result_type_removes_exactly_the_key_and_nothing_else(rig: Rig):
    run_id = rig.runs.add(plan({"kind": "drop-result-type"}))
    flow = rig.exchange(run_id, CALL, RESULT)
    assert flow.response is not None
    assert flow.response.content == wire(RESULT).replace(b',"resultType":"complete"', b"")
    [record] = rig.recording().exchanges[0].mutations
    assert (record["kind"], record["removed"]) == ("drop-result-type", ',"resultType":"complete"')


def test_a_mutation_leaves_requests_it_does_not_match_alone(rig: Rig):
    run_id = rig.runs.add(plan({"kind": "drop-result-type"}))
    listing = {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}
    answer = {"jsonrpc": "2.0", "id": 3, "result": {"tools": [], "resultType": "complete"}}
    flow = rig.exchange(run_id, listing, answer)
    assert flow.response is not None and flow.response.content == wire(answer)
    assert kinds(rig) == [[]]


def test_a_mutation_with_times_applies_only_that_many_times_per_run(rig: Rig):
    run_id = rig.runs.add(plan({"kind": "drop-result-type", "times": 1}))
    first = rig.exchange(run_id, call(1), result(1))
    second = rig.exchange(run_id, call(2), result(2))
    assert first.response is not None and "resultType" not in first.response.json()["result"]
    assert second.response is not None and second.response.content == wire(result(2))


def test_inject_input_requests_turns_a_complete_result_into_input_required_with_a_request_state(rig: Rig):
    run_id = rig.runs.add(plan({"kind": "inject-input-requests", "inputRequests": FORM_REQUEST}))
    flow = rig.exchange(run_id, CALL, RESULT)
    assert flow.response is not None
    answer = flow.response.json()
    assert answer["id"] == 1 and set(answer["result"]) == {"resultType", "inputRequests", "requestState"}
    assert answer["result"]["resultType"] == "input_required"
    assert answer["result"]["inputRequests"] == FORM_REQUEST
    assert answer["result"]["requestState"].startswith("bc1.")
    [reply] = [m for m in rig.recording().messages if m.direction == "to-client"]
    assert reply.mutation == "inject-input-requests" and reply.upstream_payload == RESULT


def test_inject_follows_the_capability_the_client_declared_on_the_request(rig: Rig):
    sampling = {"ask": {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 10}}}
    options = [
        {"capability": "sampling", "inputRequests": sampling},
        {"capability": "elicitation", "inputRequests": FORM_REQUEST},
    ]
    run_id = rig.runs.add(plan({"kind": "inject-input-requests", "byCapability": options}))
    flow = rig.exchange(run_id, CALL, RESULT)  # CALL declares elicitation only
    assert flow.response is not None and flow.response.json()["result"]["inputRequests"] == FORM_REQUEST
    bare = call(2, _meta={"io.modelcontextprotocol/protocolVersion": "2026-07-28"})
    plain = rig.exchange(run_id, bare, result(2))
    assert plain.response is not None and plain.response.content == wire(result(2)), "nothing declared: no injection"
    decisions = [[m for m in x.mutations if m["kind"] == "inject-decision"] for x in rig.recording().exchanges]
    assert [d[0]["chosen"] for d in decisions] == ["elicitation", None]
    assert decisions[1][0]["reason"] == "client-declares-no-input-capability"


def _injected_state(rig: Rig, run_id: str) -> str:
    flow = rig.exchange(run_id, call(1), result(1))
    assert flow.response is not None
    state: str = flow.response.json()["result"]["requestState"]
    return state


def test_a_retry_carrying_the_state_is_forwarded_without_input_responses_or_request_state(rig: Rig):
    run_id = rig.runs.add(plan({"kind": "inject-input-requests", "times": 1, "inputRequests": FORM_REQUEST}))
    state = _injected_state(rig, run_id)
    responses = {"confirm": {"action": "accept", "content": {}}}
    retry = call(2, inputResponses=responses, requestState=state)
    flow = rig.exchange(run_id, retry, result(2))
    assert flow.request.content == wire(call(2)), "upstream sees the original call"
    assert flow.response is not None and flow.response.content == wire(result(2))
    recording = rig.recording()
    sent = [m for m in recording.messages if m.direction == "to-server" and m.rpc_id == 2]
    assert [(m.mutation, m.payload, m.upstream_payload) for m in sent] == [("answer-input-required", retry, call(2))]
    [answered] = [m for m in recording.exchanges[1].mutations if m["kind"] == "answer-input-required"]
    assert answered["inputResponses"] == responses and answered["requestState"] == state


def _rejected(flow: Any) -> str:
    # a modern-era request: -32602 under HTTP 400, as the scripted endpoint answers it
    assert flow.response is not None and flow.response.status_code == 400
    error = flow.response.json()["error"]
    assert error["code"] == -32602
    return str(error["message"])


def test_a_tampered_request_state_is_answered_with_invalid_params_and_not_forwarded(rig: Rig):
    run_id = rig.runs.add(plan({"kind": "inject-input-requests", "times": 1, "inputRequests": FORM_REQUEST}))
    state = _injected_state(rig, run_id)
    body, tag = state[len("bc1.") :].split(".")
    tampered = f"bc1.{body[:-2]}{'A' if body[-2] != 'A' else 'B'}{body[-1]}.{tag}"
    flow = rig.exchange(run_id, call(2, inputResponses={}, requestState=tampered), result(2))
    assert "requestState was modified" in _rejected(flow)
    [_, exchange] = rig.recording().exchanges
    assert not exchange.forwarded
    assert [m["kind"] for m in exchange.mutations] == ["reject-request-state"]


def test_a_request_state_used_twice_is_rejected_the_second_time(rig: Rig):
    run_id = rig.runs.add(plan({"kind": "inject-input-requests", "times": 1, "inputRequests": FORM_REQUEST}))
    state = _injected_state(rig, run_id)
    rig.exchange(run_id, call(2, inputResponses={}, requestState=state), result(2))
    again = rig.exchange(run_id, call(3, inputResponses={}, requestState=state), result(3))
    assert "stale" in _rejected(again)


def test_a_request_state_minted_for_another_run_is_rejected(rig: Rig):
    mutation = {"kind": "inject-input-requests", "times": 1, "inputRequests": FORM_REQUEST}
    first, second = rig.runs.add(plan(mutation)), rig.runs.add(plan(mutation))
    state = _injected_state(rig, first)
    flow = rig.exchange(second, call(2, inputResponses={}, requestState=state), result(2))
    assert "minted for another run" in _rejected(flow)


def test_the_error_mutation_answers_without_the_upstream(rig: Rig):
    error = {"code": -32021, "message": "Input required", "data": {"why": "test"}}
    run_id = rig.runs.add(plan({"kind": "error", "status": 400, "error": error}))
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    assert flow.response is not None, "answered in the request hook: nothing goes upstream"
    assert flow.response.status_code == 400
    assert flow.response.headers["content-type"] == "application/json"
    assert flow.response.json() == {"jsonrpc": "2.0", "id": 1, "error": error}
    rig.reply(flow, upstream_response(b"never sent"))
    rig.finish(flow)
    recording = rig.recording()
    [exchange] = recording.exchanges
    assert (exchange.status, exchange.forwarded, exchange.upstream_response_body) == (400, False, None)
    [reply] = [m for m in recording.messages if m.direction == "to-client"]
    assert (reply.mutation, reply.kind, reply.payload["error"]) == ("error", "error", error)


def test_json_to_sse_reframes_the_json_answer_as_one_event(rig: Rig):
    run_id = rig.runs.add(plan({"kind": "json-to-sse"}))
    flow = rig.exchange(run_id, CALL, RESULT)
    assert flow.response is not None
    assert flow.response.headers["content-type"] == "text/event-stream"
    assert flow.response.headers["cache-control"] == "no-cache"
    assert flow.response.content == b"event: message\r\ndata: " + wire(RESULT) + b"\r\n\r\n"
    recording = rig.recording()
    [event] = recording.sse_events
    assert (event.idx, event.kind, event.origin, event.upstream_raw) == (0, "event", "proxy", wire(RESULT))
    [reply] = [m for m in recording.messages if m.direction == "to-client"]
    assert (reply.sse_idx, reply.mutation, reply.payload) == (0, "json-to-sse", RESULT)


def test_json_to_sse_carries_the_result_rewrites_of_the_same_plan(rig: Rig):
    run_id = rig.runs.add(plan({"kind": "drop-result-type"}, {"kind": "json-to-sse"}))
    flow = rig.exchange(run_id, CALL, RESULT)
    assert flow.response is not None
    data = flow.response.content.split(b"data: ", 1)[1].split(b"\r\n", 1)[0]
    assert json.loads(data)["result"] == {"content": RESULT["result"]["content"]}
    assert kinds(rig) == [["drop-result-type", "json-to-sse"]]


def test_a_json_hold_returns_a_positive_delay_and_records_it(rig: Rig):
    run_id = rig.runs.add(plan({"kind": "hold", "ms": 250}))
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    assert rig.reply(flow, upstream_response(wire(RESULT))) == 0.25
    assert flow.response is not None and flow.response.content == wire(RESULT), "held, not changed"
    rig.finish(flow)
    [record] = rig.recording().exchanges[0].mutations
    assert (record["kind"], record["as"], record["ms"]) == ("hold", "json", 250)


def test_a_response_without_a_plan_is_not_held(rig: Rig):
    run_id = rig.runs.add()
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    assert rig.reply(flow, upstream_response(wire(RESULT))) == 0.0


def test_an_sse_answer_is_streamed_and_rewritten_event_by_event(rig: Rig):
    run_id = rig.runs.add(plan({"kind": "drop-result-type"}))
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    sse = upstream_response(None, content_type="text/event-stream", streamed=True)
    sse.headers["content-length"] = "999"
    rig.reply(flow, sse)
    assert "content-length" not in flow.response.headers, "a rewrite may change the length"
    assert flow.response.headers["transfer-encoding"] == "chunked"
    client = rig.stream(flow, b"event: message\ndata: " + wire(RESULT) + b"\n\n")
    rig.finish(flow)
    assert client == b"event: message\ndata: " + wire(RESULT).replace(b',"resultType":"complete"', b"") + b"\n\n"
    recording = rig.recording()
    [reply] = [m for m in recording.messages if m.direction == "to-client"]
    assert (reply.sse_idx, reply.mutation, reply.upstream_payload) == (0, "drop-result-type", RESULT)
    [exchange] = recording.exchanges
    assert exchange.response_body == client and exchange.upstream_response_body != client
