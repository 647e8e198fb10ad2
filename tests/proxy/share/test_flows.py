"""Each exchange becomes a mitmproxy flow as the client saw it: its request, the response after every mutation."""

from __future__ import annotations

from backchannel.proxy.share.flows import MARK, client_flows, exchange_flow
from backchannel.recordings import load

from .conftest import FLAWED, HELD_SSE, RUN_ID


def test_a_mutated_response_is_the_one_the_client_got_and_the_flow_is_marked_with_its_mutations():
    rec = load(FLAWED)
    mutated = next(x for x in rec.exchanges if any(m["kind"] == "drop-result-type" for m in x.mutations))
    made = exchange_flow(mutated, rec.run(mutated.run_id or ""))
    assert made.response is not None and made.response.content == mutated.response_body
    assert mutated.response_body != mutated.upstream_response_body and b"resultType" not in made.response.content
    assert made.request.content == mutated.request_body and made.request.path == mutated.path
    assert made.marked == MARK and "backchannel mutation drop-result-type" in made.comment
    assert made.request.timestamp_start == mutated.t_request and made.response.timestamp_end == mutated.t_end


def test_headers_and_status_are_the_recorded_ones_in_order():
    rec = load(FLAWED)
    for exchange, made in zip(rec.exchanges, client_flows(rec), strict=True):
        assert made.response is not None and made.response.status_code == exchange.status
        assert list(made.request.headers.items(multi=True)) == list(exchange.request_headers)
        assert list(made.response.headers.items(multi=True)) == list(exchange.response_headers)
        assert not made.marked if not exchange.mutations else made.marked


def test_an_sse_body_is_kept_whole_and_a_failed_flow_carries_its_error():
    rec = load(HELD_SSE)
    streamed = next(x for x in rec.exchanges if x.streamed)
    made = exchange_flow(streamed, rec.run(streamed.run_id or ""))
    assert made.response is not None and made.response.content == streamed.response_body
    assert b"event: message" in made.response.content
    failed = next(x for x in rec.exchanges if x.error)
    assert exchange_flow(failed, None).error is not None


def test_a_hostile_exchange_becomes_a_flow_without_crashing(hostile):
    rec = load(hostile)
    flows = client_flows(rec, [RUN_ID])
    assert len(flows) == 2
    assert flows[0].request.timestamp_start <= 253402300799.0  # an absurd time is clamped
    assert flows[1].response is None  # status 99999 is no HTTP status
    assert "\x1b" not in flows[0].comment and "\u202e" not in flows[0].comment
