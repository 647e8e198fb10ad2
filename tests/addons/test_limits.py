"""The limits bound what one exchange puts into the recording; every hit is an anomaly and the client gets all."""

from __future__ import annotations

import json
from pathlib import Path

from backchannel.addons.session import Limits
from backchannel.addons.sse import SseRewriter
from backchannel.oracle.harness import harness_problems
from tests.addons.conftest import CALL, RESULT, Rig, build_addons, upstream_response, wire

MIB = 1024 * 1024


def limited(rig: Rig, **limits: int) -> Rig:
    """The same recording, with addons built over a Session with these limits."""
    rig.session.writer.close()
    addons = build_addons(rig.runs.path)
    addons.session.limits = Limits(**limits)  # type: ignore[arg-type]
    return Rig(rig.runs, addons)


def big_result(size: int) -> bytes:
    return wire({**RESULT, "result": {"content": [{"type": "text", "text": "x" * size}], "resultType": "complete"}})


def test_a_ten_megabyte_sse_event_grows_the_recording_linearly_not_tenfold(rig: Rig, tmp_path: Path):
    run_id = rig.runs.add()
    event = b"event: message\ndata: " + big_result(10 * MIB) + b"\n\n"
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    rig.reply(flow, upstream_response(None, content_type="text/event-stream", streamed=True))
    chunks = [event[i : i + 65536] for i in range(0, len(event), 65536)]
    assert rig.stream(flow, *chunks) == event, "the client gets every byte"
    rig.finish(flow)
    rig.session.writer.flush(60)  # ten megabytes parsed and written on the writer thread
    rec = rig.recording()
    rig.session.writer.close()
    size = rig.runs.path.stat().st_size
    traffic = len(event) + len(wire(CALL))
    print(f"recording {size} bytes for {traffic} bytes of traffic ({size / traffic:.2f}x)")
    assert size < 2 * traffic
    [item] = rec.sse_events
    assert item.upstream_raw == event[: 1 * MIB] and item.client_raw == event[: 1 * MIB]
    kinds = [a.kind for a in rec.anomalies]
    assert "sse-event-over-limit" in kinds and "message-over-limit" in kinds
    [answer] = [m for m in rec.messages if m.direction == "to-client"]
    assert (answer.kind, answer.jsonrpc_id, len(answer.text)) == ("response", "1", 1 * MIB)


def test_an_sse_event_under_the_limit_is_stored_whole_and_parsed(rig: Rig):
    run_id = rig.runs.add()
    event = b"event: message\ndata: " + big_result(1000) + b"\n\n"
    flow = rig.flow(run_id, wire(CALL))
    rig.send(flow)
    rig.reply(flow, upstream_response(None, content_type="text/event-stream", streamed=True))
    rig.stream(flow, event)
    rig.finish(flow)
    rec = rig.recording()
    assert rec.sse_events[0].upstream_raw == event and rec.anomalies == ()
    assert rec.messages[-1].payload == json.loads(big_result(1000))


def test_a_body_over_max_body_is_stored_up_to_the_limit_with_an_anomaly(rig: Rig):
    rig = limited(rig, max_body=4096, max_sse_event=1024)
    try:
        run_id = rig.runs.add()
        body = big_result(10_000)
        flow = rig.exchange(run_id, CALL, body)
        assert flow.response is not None and flow.response.content == body, "the client gets every byte"
        rec = rig.recording()
        [exchange] = rec.exchanges
        assert exchange.upstream_response_body == body[:4096]
        assert "body-over-limit" in [a.kind for a in rec.anomalies]
    finally:
        rig.session.writer.close()


def test_a_request_body_over_max_body_is_stored_up_to_the_limit_and_forwarded_whole(rig: Rig):
    rig = limited(rig, max_body=100, max_sse_event=100)
    try:
        run_id = rig.runs.add()
        request = {**CALL, "params": {**CALL["params"], "arguments": {"blob": "y" * 1000}}}
        flow = rig.exchange(run_id, request, RESULT)
        assert flow.request.content == wire(request)
        rec = rig.recording()
        assert rec.exchanges[0].request_body == wire(request)[:100]
        assert "body-over-limit" in [a.kind for a in rec.anomalies]
    finally:
        rig.session.writer.close()


def test_an_sse_stream_over_max_body_is_stored_up_to_the_limit(rig: Rig):
    rig = limited(rig, max_body=1000, max_sse_event=1000)
    try:
        run_id = rig.runs.add()
        flow = rig.flow(run_id, wire(CALL))
        rig.send(flow)
        rig.reply(flow, upstream_response(None, content_type="text/event-stream", streamed=True))
        comments = b": keep-alive\n" * 500
        assert rig.stream(flow, comments) == comments
        rig.finish(flow)
        rec = rig.recording()
        assert rec.exchanges[0].upstream_response_body == comments[:1000]
        assert "body-over-limit" in [a.kind for a in rec.anomalies]
    finally:
        rig.session.writer.close()


def test_an_sse_event_over_max_body_streams_through_unread_and_the_harness_says_so(rig: Rig):
    rig = limited(rig, max_body=64 * 1024, max_sse_event=1024)
    try:
        run_id = rig.runs.add()
        huge = b"event: message\ndata: " + big_result(1 * MIB) + b"\n\n"
        after = b"event: message\ndata: " + big_result(10) + b"\n\n"
        flow = rig.flow(run_id, wire(CALL))
        rig.send(flow)
        rig.reply(flow, upstream_response(None, content_type="text/event-stream", streamed=True))
        assert flow.response is not None and isinstance(flow.response.stream, SseRewriter)
        stream = flow.response.stream
        got, held = b"", []
        for i in range(0, len(huge + after), 16384):
            got += b"".join(stream((huge + after)[i : i + 16384]))
            held.append(stream.held)
        got += b"".join(stream(b""))
        assert got == huge + after, "the client gets every byte, in order"
        assert max(held) <= 64 * 1024, "the proxy never holds more of an event than --max-body"
        state = rig.session.flows[flow.id]
        assert state.client_sse_bytes == state.upstream_sse_bytes == len(huge + after)
        rig.finish(flow)
        rec = rig.recording()
        first, second = rec.sse_events
        assert first.upstream_raw == huge[:1024] and second.upstream_raw == after
        # the stored stream stays the wire's first bytes: it ends where the unread event's kept bytes end
        assert rec.exchanges[0].upstream_response_body == huge[:1024]
        [unread] = [a for a in rec.anomalies if a.kind == "sse-event-unread"]
        assert f"{len(huge)} bytes" in unread.detail and "--max-body" in unread.detail
        assert [m.payload for m in rec.messages if m.direction == "to-client"] == [json.loads(big_result(10))]
        # (the rig's recording is still open and its run unended: those are the harness's other two reasons here)
        assert "sse-event-unread" in [p.reason for p in harness_problems(rec)]
    finally:
        rig.session.writer.close()


def test_an_sse_event_too_large_to_hold_that_never_ends_is_truncated_not_unread(rig: Rig):
    rig = limited(rig, max_body=4096, max_sse_event=1024)
    try:
        run_id = rig.runs.add()
        flow = rig.flow(run_id, wire(CALL))
        rig.send(flow)
        rig.reply(flow, upstream_response(None, content_type="text/event-stream", streamed=True))
        opened = b": keep-alive " + b"k" * 8000 + b"\n" + b"event: message\ndata: " + b"x" * 10_000
        assert rig.stream(flow, opened) == opened
        rig.finish(flow)
        rec = rig.recording()
        kinds = [a.kind for a in rec.anomalies]
        assert "sse-event-unread" not in kinds, "neither a comment nor an unfinished event carried a message"
        assert "truncated-sse" in kinds and "sse-event-over-limit" in kinds
        assert "sse-event-unread" not in [p.reason for p in harness_problems(rec)]
    finally:
        rig.session.writer.close()
