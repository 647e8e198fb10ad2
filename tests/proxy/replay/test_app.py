"""The replay server answers over real HTTP with the recorded bytes, statuses, headers and SSE timing, the live id
swapped in; a request matching nothing gets a JSON-RPC error naming the closest recorded request, as an anomaly."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from backchannel.proxy.replay.app import ReplayApp, RunningReplay, start_replay
from backchannel.proxy.replay.session import serve
from backchannel.recordings import load
from tests.factories import new_recording

from .conftest import CALL, CALL_REPLY, HELD, HELD_EVENT, KEEPALIVE, RUN, rpc

Anomalies = list[tuple[str, str, str]]


@pytest.fixture
def anomalies() -> Anomalies:
    return []


@pytest.fixture
def replay(small_recording: Path, anomalies: Anomalies) -> Iterator[RunningReplay]:
    rec = load(small_recording)
    with serve(rec, rec.run(RUN), speed=0, on_anomaly=lambda *a: anomalies.append(a)) as running:
        yield running


def post(url: str, body: bytes) -> httpx.Response:
    return httpx.post(url, content=body, headers={"content-type": "application/json"}, timeout=10)


def test_the_recorded_reply_comes_back_byte_for_byte_with_its_headers_and_nothing_added(replay):
    response = post(replay.url, CALL)
    assert response.status_code == 200
    assert response.content == CALL_REPLY
    assert response.headers["date"] == "Mon, 30 Nov 2026 00:00:00 GMT"
    assert response.headers["x-recorded"] == "yes"
    assert "server" not in response.headers and "mcp-session-id" not in response.headers


def test_the_reply_carries_the_live_id_and_no_other_byte_changes(replay):
    live = json.loads(CALL)
    live["id"] = "live-7"
    response = post(replay.run_url(RUN), json.dumps(live).encode())
    assert response.content == CALL_REPLY.replace(b'"id": 1', b'"id": "live-7"')


def test_an_sse_reply_keeps_its_framing_and_items(replay):
    response = post(replay.url, HELD)
    assert response.headers["content-type"] == "text/event-stream"
    assert response.content == KEEPALIVE + HELD_EVENT


def test_a_notification_gets_its_recorded_status(replay):
    assert post(replay.url, rpc({"method": "notifications/cancelled"})).status_code == 202


def test_a_request_matching_nothing_gets_a_named_error_and_an_anomaly(replay, anomalies):
    stray = rpc({"id": 9, "method": "tools/call", "params": {"name": "echo", "arguments": {"x": 2}}})
    response = post(replay.url, stray)
    error = response.json()["error"]
    assert response.json()["id"] == 9
    assert "closest is recorded exchange #1 (POST tools/call), differing in: params.arguments.x" in error["message"]
    assert error["data"] == {"closestExchange": 1, "differingFields": ["params.arguments.x"]}
    assert [(run, kind) for run, kind, _ in anomalies] == [(RUN, "replay-no-match")]


def test_a_reply_is_used_once_so_a_repeated_request_is_a_miss(replay, anomalies):
    assert post(replay.url, CALL).content == CALL_REPLY
    assert "already used" in post(replay.url, CALL).json()["error"]["message"]


def test_recorded_sse_waits_are_kept_at_speed_one_and_scaled_by_speed(small_recording):
    rec = load(small_recording)
    for speed, low, high in ((1.0, 0.55, 3.0), (4.0, 0.13, 0.5), (0.0, 0.0, 0.3)):
        with serve(rec, rec.run(RUN), speed=speed, on_anomaly=None) as running:
            with httpx.stream("POST", running.url, content=HELD, timeout=10) as response:
                started = time.monotonic()
                arrivals = []
                for chunk in response.iter_raw():
                    arrivals.append((chunk, time.monotonic() - started))
            assert b"".join(c for c, _ in arrivals) == KEEPALIVE + HELD_EVENT
            assert low <= arrivals[-1][1] <= high, (speed, arrivals)


def test_a_replies_waits_together_are_bounded_and_the_cut_is_an_anomaly(small_recording, monkeypatch):
    """The stream's two recorded waits add up to 0.6 s; with 0.25 s for the whole reply, the client has every item
    within about that long, and the replay says it cut the stream's timing."""
    from backchannel.proxy.replay import app as app_module

    monkeypatch.setattr(app_module, "MAX_REPLY_WAIT_S", 0.25)
    rec = load(small_recording)
    seen: Anomalies = []
    with serve(rec, rec.run(RUN), speed=1.0, on_anomaly=lambda *a: seen.append(a)) as running:
        started = time.monotonic()
        with httpx.stream("POST", running.url, content=HELD, timeout=10) as response:
            body = b"".join(response.iter_raw())
        took = time.monotonic() - started
    assert body == KEEPALIVE + HELD_EVENT
    assert took < 0.55, took  # not the recorded 0.6 s
    [(_run, kind, detail)] = [a for a in seen if a[1] == "replay-waits-cut"]
    assert "add up to 0.6 s" in detail and "within 0.25 s" in detail


def test_a_wait_budget_grants_what_is_left_and_remembers_it_cut():
    budget = app_module_budget(1.0)
    assert [budget.take(s) for s in (0.4, 0.4, 0.4, 0.4)] == pytest.approx([0.4, 0.4, 0.2, 0.0])
    assert budget.cut and budget.asked == pytest.approx(1.6)
    whole = app_module_budget(1.0)
    assert whole.take(1.0) == 1.0 and not whole.cut


def app_module_budget(limit: float):  # type: ignore[no-untyped-def]
    from backchannel.proxy.replay.app import _WaitBudget

    return _WaitBudget(limit)


def test_the_replay_binds_loopback_only():
    with pytest.raises(ValueError, match="loopback"):
        start_replay(ReplayApp({}, "none"), host="0.0.0.0")


def test_a_hostile_recording_is_served_without_crashing_hanging_or_passing_broken_headers_on(tmp_path: Path):
    evil = (("x-ok", "kept"), ("x-split", "a\r\nx-injected: 1"), ("bad name", "v"), ("x-nul", "a\x00b"))
    path = new_recording(
        tmp_path / "hostile.sqlite",
        runs=[{"id": RUN}],
        exchanges=[
            {"run_id": RUN, "flow_id": "f1", "method": "POST", "request_body": CALL, "t_request": 0.0,
             "status": 200, "t_response": 1e12, "response_headers": evil, "response_body": b"\xff not json"},
            {"run_id": RUN, "flow_id": "f2", "method": "POST", "request_body": HELD, "status": 999},
        ],
    )  # fmt: skip
    rec = load(path)
    anomalies: Anomalies = []
    with serve(rec, rec.run(RUN), speed=0, on_anomaly=lambda *a: anomalies.append(a)) as running:
        first = post(running.url, CALL)
        assert first.content == b"\xff not json"
        assert first.headers["x-ok"] == "kept"
        assert not any(name in first.headers for name in ("x-split", "x-injected", "x-nul"))
        second = post(running.url, HELD)
        assert second.status_code == 502 and second.content == b""
    assert [kind for _, kind, _ in anomalies] == ["replay-no-response"]
