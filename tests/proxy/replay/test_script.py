"""A recorded run becomes an ordered script; each reply is handed out once, in order, unless repeats are allowed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backchannel.proxy.replay.matchers import RequestView
from backchannel.proxy.replay.script import MAX_WAIT_S, Ledger, Miss, Served, pick_run, script_of, servable_headers
from backchannel.recordings import load
from tests.factories import new_recording

from .conftest import CALL, HELD, HELD_EVENT, KEEPALIVE, REFERENCE, RUN


def test_the_script_holds_the_client_side_bytes_without_framing_headers_and_with_recorded_waits(small_recording):
    rec = load(small_recording)
    call, held, note = script_of(rec, rec.run(RUN), "client")
    assert call.reply.body.startswith(b'{"jsonrpc": "2.0", "id": 1')
    assert ("date", "Mon, 30 Nov 2026 00:00:00 GMT") in call.reply.headers
    assert not any(k.lower() in ("content-length", "transfer-encoding") for k, _ in held.reply.headers)
    assert call.reply.head_delay == pytest.approx(0.01, abs=1e-3)
    assert held.reply.items is not None
    assert [i.raw for i in held.reply.items] == [KEEPALIVE, HELD_EVENT]
    assert [round(i.delay, 3) for i in held.reply.items] == [0.3, 0.3]
    assert note.reply.status == 202 and note.reply.items is None


def test_the_upstream_side_leaves_out_what_the_proxy_answered_itself():
    rec = load(REFERENCE / "elicitation-url-mode-contract-request-state-echoed.sqlite")
    for run in rec.runs:
        forwarded = sum(1 for x in rec.exchanges_in(run.id) if x.forwarded)
        assert len(script_of(rec, run, "upstream")) == forwarded


def test_replies_are_used_once_in_order_and_a_second_identical_request_gets_the_named_error(small_recording):
    rec = load(small_recording)
    ledger = Ledger(script_of(rec, rec.run(RUN), "client"))
    first = ledger.take(RequestView.parse("POST", CALL))
    assert isinstance(first, Served) and first.entry.seq == 1 and not first.repeated
    again = ledger.take(RequestView.parse("POST", CALL))
    assert isinstance(again, Miss) and again.closest is not None and again.closest.seq == 1
    assert "every matching recorded reply was already used" in again.message(RequestView.parse("POST", CALL))


def test_allow_repeats_serves_a_client_that_starts_over(small_recording):
    rec = load(small_recording)
    ledger = Ledger(script_of(rec, rec.run(RUN), "client"), allow_repeats=True)
    seqs = [ledger.take(RequestView.parse("POST", body)) for body in (CALL, HELD, CALL, HELD)]
    assert [(s.entry.seq, s.repeated) for s in seqs if isinstance(s, Served)] == [
        (1, False),
        (2, False),
        (1, True),
        (2, True),
    ]


def test_a_request_matching_nothing_names_the_closest_recorded_request_and_the_fields_that_differ(small_recording):
    rec = load(small_recording)
    ledger = Ledger(script_of(rec, rec.run(RUN), "client"))
    live = json.loads(CALL)
    live["params"]["arguments"] = {"x": 2}
    miss = ledger.take(RequestView.parse("POST", json.dumps(live).encode()))
    assert isinstance(miss, Miss)
    assert miss.closest is not None and miss.closest.seq == 1
    assert miss.differing == ("params.arguments.x",)
    assert "recorded exchange #1 (POST tools/call), differing in: params.arguments.x" in miss.message(
        RequestView.parse("POST", CALL)
    )


def test_the_default_run_is_the_first_a_client_made_and_runs_are_found_by_id_name_or_ordinal():
    rec = load(REFERENCE / "mrtr-provenance-py-sdk.sqlite")
    assert pick_run(rec, None).name == "control"
    probe = pick_run(rec, "probe")
    assert pick_run(rec, probe.id) == probe == pick_run(rec, str(probe.ordinal))
    with pytest.raises(LookupError, match="no run 'nope'; its runs: witness-ledger"):
        pick_run(rec, "nope")


def test_a_recorded_wait_is_capped(tmp_path: Path):
    path = new_recording(
        tmp_path / "slow.sqlite",
        runs=[{"id": RUN}],
        exchanges=[{"run_id": RUN, "flow_id": "f", "method": "POST", "request_body": CALL, "t_request": 0.0,
                    "status": 200, "t_response": 1e9, "response_body": b"{}"}],
    )  # fmt: skip
    rec = load(path)
    (entry,) = script_of(rec, rec.run(RUN), "client")
    assert entry.reply.head_delay == MAX_WAIT_S


def test_a_recorded_header_value_with_leading_or_trailing_space_is_not_served_again():
    headers = (("content-type", "application/json "), ("x-a", " b"), ("x-ok", "a b"), ("x-empty", ""))
    assert servable_headers(headers) == (("x-ok", "a b"), ("x-empty", ""))
