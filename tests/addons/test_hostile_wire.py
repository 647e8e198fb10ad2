"""The proxy path survives any JSON shape and any depth from the client or the upstream, and loses no exchange."""

from __future__ import annotations

from typing import Any

import pytest

from tests.addons.conftest import CALL, CALLS, FORM_REQUEST, RESULT, Rig, upstream_response, wire

INJECT = {"mutations": [{"match": CALLS, "kind": "inject-input-requests", "inputRequests": FORM_REQUEST}]}
DROP = {"mutations": [{"match": CALLS, "kind": "drop-result-type"}]}


def assert_whole(rig: Rig, exchanges: int) -> None:
    """Every exchange has its row, and no row failed to be made."""
    rec = rig.recording()
    assert len(rec.exchanges) == exchanges
    assert [a.detail for a in rec.anomalies if a.kind == "recorder-failed"] == []


def deep(depth: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":' + b"[" * depth + b"]" * depth + b"}"


@pytest.mark.parametrize("depth", [500, 1000, 5000, 100_000])
@pytest.mark.parametrize("plan", [None, INJECT, DROP])
def test_a_deeply_nested_request_body_still_leaves_an_exchange_a_message_and_an_anomaly(
    rig: Rig, depth: int, plan: dict[str, Any] | None
):
    run_id = rig.runs.add(plan)
    rig.exchange(run_id, deep(depth), RESULT)
    rec = rig.recording()
    assert len(rec.exchanges) == 1
    [sent] = [m for m in rec.messages if m.direction == "to-server"]
    # deeper than a reader accepts: the message stays, as `invalid`, with a stand-in text; the bytes are in the row
    assert sent.kind == "invalid" and sent.method == ("tools/call" if depth <= 1000 else None)
    assert sent.payload.startswith("backchannel: message nested deeper than 64 levels")
    assert "json-too-deep" in [a.kind for a in rec.anomalies]
    assert rec.exchanges[0].request_body == deep(depth)


ODD_CALLS: list[Any] = [
    {**CALL, "params": []},
    {**CALL, "params": "x"},
    {**CALL, "params": {**CALL["params"], "_meta": "x"}},
    {**CALL, "params": {**CALL["params"], "_meta": []}},
    {**CALL, "id": {"a": [1]}},
    {**CALL, "id": [1, 2]},
    {**CALL, "id": None},
    {**CALL, "id": True},
    {**CALL, "id": 1.5},
    {**CALL, "method": 7},
    {**CALL, "params": {**CALL["params"], "name": {"x": 1}, "arguments": [1]}},
    {**CALL, "params": {**CALL["params"], "requestState": 5, "inputResponses": "x"}},
    {**CALL, "params": {**CALL["params"], "requestState": "bc1.x.y", "inputResponses": []}},
    {**CALL, "params": {**CALL["params"], "requestState": "bc1." + "\u00e9" * 10 + ".y"}},
    {**CALL, "params": {**CALL["params"], "requestState": "bc1.!!!.x"}},
    [CALL, CALL],
    [],
    "x",
    7,
    None,
]
ODD_ANSWERS: list[Any] = [
    {**RESULT, "result": []},
    {**RESULT, "result": "x"},
    {**RESULT, "result": None},
    {**RESULT, "result": {"_meta": "x", "resultType": 5}},
    {**RESULT, "result": {"_meta": [], "content": "x"}},
    {**RESULT, "id": {"a": 1}},
    {"jsonrpc": "2.0", "id": 1, "error": "x"},
    {"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": []}},
    [RESULT, RESULT],
    [],
    "x",
    None,
]


@pytest.mark.parametrize("plan", [None, INJECT, DROP])
@pytest.mark.parametrize("message", ODD_CALLS, ids=range(len(ODD_CALLS)))
def test_a_request_of_any_shape_is_recorded_and_never_crashes_the_proxy(
    rig: Rig, message: Any, plan: dict[str, Any] | None
):
    run_id = rig.runs.add(plan)
    rig.exchange(run_id, message, RESULT)
    assert_whole(rig, 1)


@pytest.mark.parametrize("plan", [None, INJECT, DROP])
@pytest.mark.parametrize("answer", ODD_ANSWERS, ids=range(len(ODD_ANSWERS)))
def test_an_upstream_answer_of_any_shape_is_recorded_and_never_crashes_the_proxy(
    rig: Rig, answer: Any, plan: dict[str, Any] | None
):
    run_id = rig.runs.add(plan)
    rig.exchange(run_id, CALL, answer)
    assert_whole(rig, 1)


@pytest.mark.parametrize("plan", [None, INJECT, DROP])
@pytest.mark.parametrize("answer", ODD_ANSWERS, ids=range(len(ODD_ANSWERS)))
def test_an_sse_event_of_any_shape_is_recorded_and_never_crashes_the_proxy(
    rig: Rig, answer: Any, plan: dict[str, Any] | None
):
    run_id = rig.runs.add(plan)
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    rig.reply(flow, upstream_response(None, content_type="text/event-stream", streamed=True))
    rig.stream(flow, b"event: message\ndata: " + wire(answer) + b"\n\n")
    rig.finish(flow)
    assert_whole(rig, 1)


@pytest.mark.parametrize("depth", [500, 1000, 5000, 100_000])
@pytest.mark.parametrize("plan", [None, INJECT, DROP])
def test_a_deeply_nested_answer_is_recorded_raw(rig: Rig, depth: int, plan: dict[str, Any] | None):
    run_id = rig.runs.add(plan)
    body = b'{"jsonrpc":"2.0","id":1,"result":{"x":' + b"[" * depth + b"]" * depth + b"}}"
    rig.exchange(run_id, CALL, body)
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    rig.reply(flow, upstream_response(None, content_type="text/event-stream", streamed=True))
    rig.stream(flow, b"data: " + body + b"\n\n")
    rig.finish(flow)
    assert_whole(rig, 2)


def test_a_post_with_an_empty_body_is_flagged_and_the_recording_goes_on(rig: Rig):
    run_id = rig.runs.add()
    rig.exchange(run_id, b"", RESULT)
    rig.exchange(run_id, CALL, RESULT)
    rec = rig.recording()
    assert len(rec.exchanges) == 2 and "empty-body" in [a.kind for a in rec.anomalies]
    assert [m.direction for m in rec.messages] == ["to-client", "to-server", "to-client"]


LONE_SURROGATES = [
    b'{"jsonrpc":"2.0","id":1,"method":"\\ud800"}',
    b'{"jsonrpc":"2.0","id":"\\udfff","method":"tools/call","params":{"name":"x"}}',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/\\ud83d","params":{"name":"\\udc00"}}',
]


@pytest.mark.parametrize("plan", [None, INJECT, DROP])
@pytest.mark.parametrize("body", LONE_SURROGATES, ids=range(len(LONE_SURROGATES)))
def test_a_lone_surrogate_escape_from_either_side_is_recorded_and_the_recording_goes_on(
    rig: Rig, body: bytes, plan: dict[str, Any] | None
):
    # valid JSON that decodes to text SQLite cannot hold as UTF-8: once, it stopped the writer for good
    run_id = rig.runs.add(plan)
    rig.exchange(run_id, body, RESULT)
    rig.exchange(run_id, CALL, body)
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    rig.reply(flow, upstream_response(None, content_type="text/event-stream", streamed=True))
    rig.stream(flow, b"event: message\ndata: " + body + b"\n\n")
    rig.finish(flow)
    rig.exchange(run_id, CALL, RESULT)  # and the next exchange is recorded as usual
    assert_whole(rig, 4)
    methods = [m.method for m in rig.recording().messages if m.method is not None]
    assert all("\ud800" not in method and "\ud83d" not in method for method in methods)
    if b'"method":"\\ud800"' in body:
        assert "\\ud800" in methods


def test_an_http_status_past_64_bits_is_recorded_as_null_with_an_anomaly_and_the_recording_goes_on(rig: Rig):
    run_id = rig.runs.add()
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    rig.reply(flow, upstream_response(wire(RESULT), status=10**20))  # mitmproxy parses any run of digits
    rig.finish(flow)
    rig.exchange(run_id, CALL, RESULT)
    rec = rig.recording()
    assert [e.status for e in rec.exchanges] == [None, 200]
    [anomaly] = [a for a in rec.anomalies if a.kind == "value-out-of-range"]
    assert "100000000000000000000" in anomaly.detail
    assert_whole(rig, 2)


MALFORMED = {"mutations": [{"match": CALLS, "kind": "malformed", "shape": "wrong-id"}]}
JSON_TO_SSE = {"mutations": [{"match": CALLS, "kind": "json-to-sse"}]}


@pytest.mark.parametrize("plan", [MALFORMED, INJECT, JSON_TO_SSE])
@pytest.mark.parametrize(
    "answer",
    [
        b'{"jsonrpc":"2.0","id":1,"result":{"x":"\\ud800","_meta":{"y":"\\udfff"}}}',
        b'{"jsonrpc":"2.0","id":1,"result":{"x":"\xff"}}',
    ],
)
def test_a_rewrite_of_an_answer_holding_a_lone_surrogate_or_a_stray_byte_reaches_the_client_as_utf8(
    rig: Rig, plan: dict[str, Any], answer: bytes
):
    run_id = rig.runs.add(plan)
    flow = rig.exchange(run_id, CALL, answer)
    assert flow.response is not None
    sent = flow.response.raw_content or b""
    sent.decode("utf-8")  # what the client got is UTF-8 whatever the upstream sent
    assert_whole(rig, 1)
    assert [a.kind for a in rig.recording().anomalies if a.kind == "rewriter-failed"] == []
