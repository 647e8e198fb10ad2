"""The Recorder's hooks in process: what lands in the recording, read back with backchannel.recordings.load."""

from __future__ import annotations

import json

import msgpack

from tests.addons.conftest import CALL, CALLS, RESULT, Rig, upstream_response, wire

NOTE = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p", "progress": 1}}


def test_an_exchange_row_keeps_both_sides_bytes_and_headers_with_secrets_redacted(rig: Rig):
    run_id = rig.runs.add()
    flow = rig.exchange(run_id, CALL, RESULT, headers={"authorization": "Bearer s3cret", "mcp-method": "tools/call"})
    [exchange] = rig.recording().exchanges
    assert (exchange.flow_id, exchange.method, exchange.status, exchange.forwarded) == (flow.id, "POST", 200, True)
    assert exchange.request_body == wire(CALL)
    assert exchange.upstream_request_body == wire(CALL), "forwarded unchanged"
    assert exchange.upstream_response_body == exchange.response_body == wire(RESULT)
    assert exchange.header("mcp-method") == "tools/call"
    assert exchange.header("authorization") == "[redacted]"
    assert exchange.header("content-type", response=True) == "application/json"
    assert exchange.t_request is not None and exchange.t_end is not None and exchange.error is None


def test_the_jsonrpc_messages_are_recorded_with_direction_id_and_method(rig: Rig):
    run_id = rig.runs.add()
    rig.exchange(run_id, CALL, RESULT)
    rig.exchange(run_id, NOTE, b"")
    messages = rig.recording().messages
    assert [(m.direction, m.kind, m.rpc_id, m.method) for m in messages] == [
        ("to-server", "request", 1, "tools/call"),
        ("to-client", "response", 1, "tools/call"),  # a response is named by the request it answers
        ("to-server", "notification", None, "notifications/progress"),
    ]
    assert messages[0].text == wire(CALL).decode() and messages[1].payload == RESULT
    assert [m.mutation for m in messages] == [None, None, None]


def test_an_sse_streams_items_are_recorded_as_they_pass_with_the_response_inside(rig: Rig):
    run_id = rig.runs.add()
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    rig.reply(flow, upstream_response(None, content_type="text/event-stream", streamed=True))
    event = b"event: message\r\ndata: " + wire(RESULT) + b"\r\n\r\n"
    client = rig.stream(flow, b": keep-alive\r\n", event[:20], event[20:])
    rig.finish(flow)
    assert client == b": keep-alive\r\n" + event, "an unchanged stream reaches the client byte for byte"
    recording = rig.recording()
    assert [(e.idx, e.kind, e.origin, e.upstream_raw) for e in recording.sse_events] == [
        (0, "comment", "upstream", b": keep-alive\r\n"),
        (1, "event", "upstream", event),
    ]
    [reply] = [m for m in recording.messages if m.direction == "to-client"]
    assert (reply.sse_idx, reply.rpc_id, reply.method, reply.payload) == (1, 1, "tools/call", RESULT)
    [exchange] = recording.exchanges
    assert exchange.streamed and exchange.upstream_response_body == exchange.response_body == client
    assert recording.anomalies == ()


def test_a_stream_that_ends_without_the_response_is_flagged(rig: Rig):
    run_id = rig.runs.add()
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    rig.reply(flow, upstream_response(None, content_type="text/event-stream", streamed=True))
    rig.stream(flow, b"data: " + wire(NOTE) + b"\n\n", b'data: {"jsonrpc"')
    rig.finish(flow)
    recording = rig.recording()
    assert [e.kind for e in recording.sse_events] == ["event", "truncated"]
    assert [a.kind for a in recording.anomalies] == ["truncated-sse", "sse-without-response"]


def test_a_client_disconnect_is_recorded_as_the_exchanges_error_and_an_anomaly(rig: Rig):
    run_id = rig.runs.add()
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    rig.reply(flow, upstream_response(None, content_type="text/event-stream", streamed=True))
    rig.stream(flow, b": ping\n")
    rig.fail(flow, "Client disconnected.")
    recording = rig.recording()
    [exchange] = recording.exchanges
    assert exchange.error == "Client disconnected." and exchange.status == 200 and exchange.streamed
    assert [(a.kind, a.flow_id, a.run_id) for a in recording.anomalies] == [("client-disconnected", flow.id, run_id)]
    assert [e.kind for e in recording.sse_events] == ["comment"], "what passed before the drop is kept"


def test_an_upstream_that_never_answers_is_recorded_as_unreachable(rig: Rig):
    run_id = rig.runs.add()
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    rig.fail(flow, "Connection refused")
    recording = rig.recording()
    [exchange] = recording.exchanges
    assert (exchange.error, exchange.status, exchange.request_body) == ("Connection refused", None, wire(CALL))
    assert [a.kind for a in recording.anomalies] == ["upstream-unreachable"]


def test_a_non_json_request_body_is_kept_raw_with_an_anomaly(rig: Rig):
    run_id = rig.runs.add()
    rig.exchange(run_id, b"hello, not json", RESULT)
    recording = rig.recording()
    [exchange] = recording.exchanges
    assert exchange.request_body == b"hello, not json"
    assert [m.direction for m in recording.messages] == ["to-client"]
    [anomaly] = recording.anomalies
    assert anomaly.kind == "not-json" and anomaly.detail.startswith("request: body is not JSON")


def test_an_invalid_utf8_response_body_is_kept_raw_with_an_anomaly(rig: Rig):
    run_id = rig.runs.add()
    body = b'{"jsonrpc":"2.0","id":1,"result":{"text":"\xff\xfe"}}'
    rig.exchange(run_id, CALL, body)
    recording = rig.recording()
    [exchange] = recording.exchanges
    assert exchange.upstream_response_body == exchange.response_body == body
    assert [m.direction for m in recording.messages] == ["to-server"]
    [anomaly] = recording.anomalies
    bad = body.index(b"\xff")
    assert anomaly.kind == "invalid-utf8" and anomaly.detail.startswith(f"response: body is not UTF-8 at byte {bad}")


def test_an_invalid_utf8_request_body_is_kept_raw_and_still_forwarded(rig: Rig):
    run_id = rig.runs.add()
    body = wire(CALL).replace(b"get_repo_status", b"get_\xc3repo")
    flow = rig.exchange(run_id, body, RESULT)
    assert flow.request.raw_content == body
    recording = rig.recording()
    [exchange] = recording.exchanges
    assert exchange.request_body == exchange.upstream_request_body == body
    assert [a.kind for a in recording.anomalies] == ["invalid-utf8"]
    assert [m.direction for m in recording.messages] == ["to-client"]


def test_a_batch_is_recorded_member_by_member_with_an_anomaly(rig: Rig):
    run_id = rig.runs.add()
    second = {**CALL, "id": 2}
    rig.exchange(run_id, [CALL, second], [RESULT, {**RESULT, "id": 2}])
    recording = rig.recording()
    assert [(m.direction, m.rpc_id) for m in recording.messages] == [
        ("to-server", 1),
        ("to-server", 2),
        ("to-client", 1),
        ("to-client", 2),
    ]
    assert json.loads(recording.messages[1].text) == second, "a batch member is stored as its own JSON text"
    assert [a.kind for a in recording.anomalies] == ["jsonrpc-batch", "jsonrpc-batch"]


def test_a_rewritten_response_keeps_the_upstreams_text_beside_the_clients(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "drop-result-type", "match": CALLS}]})
    rig.exchange(run_id, CALL, RESULT)
    recording = rig.recording()
    [reply] = [m for m in recording.messages if m.direction == "to-client"]
    assert reply.mutation == "drop-result-type"
    assert reply.upstream_payload == RESULT and "resultType" not in reply.payload["result"]
    [exchange] = recording.exchanges
    assert exchange.upstream_response_body == wire(RESULT) and exchange.response_body == reply.text.encode()


def test_mitmproxys_flow_state_is_stored_on_request_without_the_bodies(rig_with_flow_state: Rig):
    rig = rig_with_flow_state
    run_id = rig.runs.add()
    rig.exchange(run_id, CALL, RESULT)
    [exchange] = rig.recording().exchanges
    assert exchange.flow_state is not None
    state = msgpack.unpackb(exchange.flow_state, raw=False)
    assert state["request"]["path"] == b"/mcp" and state["request"]["content"] is None
    assert state["response"]["status_code"] == 200 and state["response"]["content"] is None


def test_flow_state_is_off_by_default(rig: Rig):
    run_id = rig.runs.add()
    rig.exchange(run_id, CALL, RESULT)
    [exchange] = rig.recording().exchanges
    assert exchange.flow_state is None


def test_the_response_hook_records_a_flow_only_once(rig: Rig):
    run_id = rig.runs.add()
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    rig.reply(flow, upstream_response(wire(RESULT)))
    rig.addons.recorder.response(flow)
    rig.addons.recorder.response(flow)
    recording = rig.recording()
    assert len(recording.exchanges) == 1
    assert [m.direction for m in recording.messages] == ["to-server", "to-client"]


def test_a_utf16_request_body_is_kept_raw_with_an_anomaly_like_any_non_utf8_body(rig: Rig):
    run_id = rig.runs.add()
    body = json.dumps(CALL).encode("utf-16")
    rig.exchange(run_id, body, RESULT)
    recording = rig.recording()
    assert recording.exchanges[0].request_body == body
    assert [a.kind for a in recording.anomalies] == ["invalid-utf8"]
