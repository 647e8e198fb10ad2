"""disconnect: the client's connection breaks before the response, or after N bytes of its body."""

from __future__ import annotations

import pytest

from backchannel.addons.mutations.base import EndStep, HeadersStep, PlanError
from backchannel.addons.mutations.disconnect import BodyCut, Disconnect, DisconnectRecord
from tests.addons.conftest import CALLS, RESULT, Rig, wire
from tests.addons.mutations.conftest import SSE, call_flow, event, note, records, streamed

KILLED = "Connection killed."


def test_it_parses_where_and_after_bytes_and_describes_each_case():
    assert Disconnect.parse({}) == Disconnect(where="body", after_bytes=0)
    assert Disconnect.parse({"afterBytes": 12}) == Disconnect(where="body", after_bytes=12)
    assert Disconnect.parse({"where": "before-response"}).where == "before-response"
    assert "no status line" in Disconnect(where="before-response").describe()
    assert "before any body byte" in Disconnect().describe()
    assert "after 12 bytes" in Disconnect(after_bytes=12).describe()
    with pytest.raises(PlanError, match="afterBytes applies only to where 'body'"):
        Disconnect.parse({"where": "before-response", "afterBytes": 3})
    with pytest.raises(PlanError, match="afterBytes must be a whole number >= 0"):
        Disconnect.parse({"afterBytes": "3"})


def test_before_the_response_it_asks_for_the_kill_at_the_head_and_records_it():
    step = HeadersStep(sse=False, records=[])
    Disconnect(where="before-response").on_headers(1, step)
    assert step.kill and step.cut_after is None
    assert step.records == [DisconnectRecord(index=1, where="before-response", after_bytes=None, sent=0)]


def test_in_the_body_it_cuts_at_the_smallest_limit_and_kills_at_the_end_recording_what_was_sent():
    step = HeadersStep(sse=True, records=[])
    Disconnect(after_bytes=40).on_headers(0, step)
    Disconnect(after_bytes=10).on_headers(1, step)
    assert (step.kill, step.cut_after, step.records) == (False, 10, [])
    end = EndStep(records=[], sent=10)
    Disconnect(after_bytes=10).on_end(1, end)
    assert end.kill and end.records == [DisconnectRecord(index=1, where="body", after_bytes=10, sent=10)]


def test_a_body_cut_passes_the_first_bytes_and_keeps_both_truths():
    upstream, client = bytearray(), bytearray()
    cut = BodyCut(5, upstream, client, keep=1 << 20)
    assert cut(b"abc") == [b"abc"]
    assert cut(b"defgh") == [b"de"]
    assert cut(b"ijk") == []
    assert cut(b"") == []
    assert (bytes(upstream), bytes(client)) == (b"abcdefghijk", b"abcde")


def test_a_body_cut_keeps_at_most_its_bound_of_either_side_and_counts_the_rest():
    upstream, client = bytearray(), bytearray()
    cut = BodyCut(6, upstream, client, keep=4)
    assert cut(b"abc") == [b"abc"] and cut(b"defgh") == [b"def"] and cut(b"ijk") == []
    assert (bytes(upstream), bytes(client)) == (b"abcd", b"abcd")
    assert (cut.upstream_size, cut.client_size) == (11, 6)


def test_a_json_answer_cut_after_n_bytes_reaches_the_client_as_a_prefix_then_a_killed_connection(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "disconnect", "match": CALLS, "afterBytes": 20}]})
    flow = call_flow(rig, run_id)
    body = wire(RESULT)
    client = streamed(rig, flow, "application/json", body[:15], body[15:])
    assert client == body[:20]
    assert flow.error is not None and flow.error.msg == KILLED
    assert records(rig) == [[{"kind": "disconnect", "index": 0, "where": "body", "afterBytes": 20, "sent": 20}]]
    recording = rig.recording()
    [exchange] = recording.exchanges
    assert exchange.streamed and exchange.upstream_response_body == body and exchange.response_body == body[:20]
    assert [m.direction for m in recording.messages] == ["to-server"], "the client never got a whole message"


def test_an_sse_stream_cut_mid_event_reports_what_the_client_got_of_each_item(rig: Rig):
    first, second = event(note(1)), event(RESULT)
    limit = len(first) + 7
    run_id = rig.runs.add({"mutations": [{"kind": "disconnect", "match": CALLS, "afterBytes": limit}]})
    flow = call_flow(rig, run_id)
    client = streamed(rig, flow, SSE, first + second[:3], second[3:], b": after\r\n")
    assert client == (first + second)[:limit]
    assert flow.error is not None and flow.error.msg == KILLED
    recording = rig.recording()
    assert [(e.kind, e.client_raw) for e in recording.sse_events] == [
        ("event", first),
        ("event", second[:7]),
        ("comment", b""),
    ]
    assert [(m.direction, m.kind) for m in recording.messages] == [
        ("to-server", "request"),
        ("to-client", "notification"),
    ]
    [exchange] = recording.exchanges
    assert exchange.response_body == client and exchange.upstream_response_body == first + second + b": after\r\n"
    assert records(rig) == [[{"kind": "disconnect", "index": 0, "where": "body", "afterBytes": limit, "sent": limit}]]
    assert [a.kind for a in recording.anomalies] == [], "no sse-without-response: the proxy cut it on purpose"


def test_after_zero_bytes_the_headers_go_out_and_nothing_else(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "disconnect", "match": CALLS}]})
    flow = call_flow(rig, run_id)
    assert streamed(rig, flow, SSE, event(RESULT)) == b""
    assert flow.error is not None and flow.error.msg == KILLED
    assert records(rig)[0][0]["sent"] == 0


def test_before_the_response_the_flow_is_killed_at_its_head_and_recorded_through_the_error_hook(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "disconnect", "match": CALLS, "where": "before-response"}]})
    flow = call_flow(rig, run_id)
    assert streamed(rig, flow, "application/json", wire(RESULT)) is None
    assert flow.error is not None and flow.error.msg == KILLED
    assert records(rig) == [
        [{"kind": "disconnect", "index": 0, "where": "before-response", "afterBytes": None, "sent": 0}]
    ]
    [exchange] = rig.recording().exchanges
    assert exchange.error == KILLED and exchange.response_body is None


def test_a_request_the_plan_does_not_match_is_not_cut(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "disconnect", "match": {"method": "tools/list"}}]})
    flow = call_flow(rig, run_id)
    assert streamed(rig, flow, SSE, event(RESULT)) == event(RESULT)
    assert flow.error is None and records(rig) == [[]]
