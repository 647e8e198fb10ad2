"""Bad input on either side of the proxy: each is answered or passed on, recorded as an anomaly, and leaves the
proxy serving the next request. Also: an upstream that is down, and mitmdump killed with SIGKILL mid-run."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from mcp import Client

from backchannel.proxy.run.capture import Capture, CaptureError
from backchannel.recordings import Recording, load
from tests.e2e.conftest import (
    HTTP_TIMEOUT,
    REPO_TEXT,
    SSE_HEAD,
    TOOL,
    RawRequest,
    RawUpstream,
    Respond,
    assert_proxy_serves,
    close_and_load,
    closed_port,
    post_rpc,
    rpc_headers,
    rpc_request,
    run_sdk,
    wait_for_rows,
)

CALLS = {"method": "tools/call", "name": TOOL}


def _anomaly_kinds(rec: Recording, run_id: str | None) -> list[str]:
    return [a.kind for a in rec.anomalies if a.run_id == run_id]


def _post_raw(url: str, body: bytes) -> httpx.Response:
    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        return client.post(url, content=body, headers=rpc_headers())


def test_a_body_that_is_not_json_is_recorded_as_not_json_and_the_proxy_keeps_serving(capture: Capture) -> None:
    run = capture.new_run("not-json")
    response = _post_raw(run.url, b"this is { not json")
    assert response.status_code == 400 and response.json()["error"]["code"] == -32700
    assert_proxy_serves(capture, run)

    rec = close_and_load(capture)
    assert _anomaly_kinds(rec, run.id) == ["not-json"]
    (bad,) = [x for x in rec.exchanges_in(run.id) if x.request_body == b"this is { not json"]
    assert bad.status == 400
    (anomaly,) = rec.anomalies
    assert anomaly.flow_id == bad.flow_id


def test_a_body_that_is_not_utf8_is_recorded_as_invalid_utf8_and_kept_raw(capture: Capture) -> None:
    run = capture.new_run("invalid-utf8")
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\xff\xfe"}}'
    response = _post_raw(run.url, body)
    assert response.status_code == 400 and response.json()["error"]["code"] == -32700
    assert_proxy_serves(capture, run)

    rec = close_and_load(capture)
    assert _anomaly_kinds(rec, run.id) == ["invalid-utf8"]
    (bad,) = [x for x in rec.exchanges_in(run.id) if x.request_body == body]
    assert bad.status == 400
    assert not [m for m in rec.messages_in(run.id) if m.flow_id == bad.flow_id and m.direction == "to-server"]


def test_a_jsonrpc_batch_is_recorded_as_a_batch_with_each_member_as_a_message(capture: Capture) -> None:
    run = capture.new_run("batch")
    batch = [rpc_request(1), rpc_request(2)]
    response = _post_raw(run.url, json.dumps(batch).encode())
    assert response.status_code == 400 and response.json()["error"]["code"] == -32600
    assert_proxy_serves(capture, run)

    rec = close_and_load(capture)
    assert _anomaly_kinds(rec, run.id) == ["jsonrpc-batch"]
    (bad,) = [x for x in rec.exchanges_in(run.id) if (x.request_body or b"").startswith(b"[")]
    members = [m for m in rec.messages_in(run.id) if m.flow_id == bad.flow_id and m.direction == "to-server"]
    assert [m.payload for m in members] == batch
    assert [m.jsonrpc_id for m in members] == ["1", "2"]


def test_an_sse_stream_cut_inside_an_event_is_recorded_as_truncated(
    capture: Capture, raw_upstream: Callable[[Respond], RawUpstream]
) -> None:
    partial = b'event: message\r\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":['

    def cut_off(conn: socket.socket, request: RawRequest, stopping: threading.Event) -> None:
        conn.sendall(SSE_HEAD + b":\r\n" + partial)  # then the handler returns and the connection closes

    upstream = raw_upstream(cut_off)
    run = capture.new_run("truncated", upstream=upstream.url)
    response = _post_raw(run.url, json.dumps(rpc_request(1)).encode())
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream"
    assert response.content == b":\r\n" + partial, "the client gets every byte the upstream sent"
    assert_proxy_serves(capture)

    rec = close_and_load(capture)
    kinds = _anomaly_kinds(rec, run.id)
    assert "truncated-sse" in kinds
    assert set(kinds) <= {"truncated-sse", "sse-without-response"}
    (exchange,) = rec.exchanges_in(run.id)
    assert exchange.streamed and exchange.upstream_response_body == b":\r\n" + partial
    items = sorted((i for i in rec.sse_events if i.flow_id == exchange.flow_id), key=lambda i: i.idx)
    assert [(i.kind, i.origin) for i in items] == [("comment", "upstream"), ("truncated", "upstream")]
    assert items[1].upstream_raw == partial
    assert upstream.errors == []


def test_a_20_mb_body_passes_unread_its_first_bytes_kept_and_the_proxy_keeps_serving(capture: Capture) -> None:
    run = capture.new_run("huge")
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"' + b"a" * (20 * 1024 * 1024) + b'"}}'
    began = time.monotonic()
    response = _post_raw(run.url, body)
    assert response.status_code == 413, "the endpoint refuses it; the proxy passed it on"
    assert time.monotonic() - began < 10
    assert_proxy_serves(capture, run)

    rec = close_and_load(capture)
    # past what the proxy holds of one body (16 MiB by default): streamed on unread, stored up to --max-body
    assert _anomaly_kinds(rec, run.id) == ["body-unread"]
    (big,) = [x for x in rec.exchanges_in(run.id) if x.status == 413]
    # what had passed of it when the endpoint answered (it refused it from its Content-Length), up to --max-body
    assert big.request_body is not None and body.startswith(big.request_body)
    assert len(big.request_body) <= 16 * 1024 * 1024
    assert not [m for m in rec.messages_in(run.id) if m.flow_id == big.flow_id and m.direction == "to-server"]


def test_a_client_that_leaves_a_held_stream_is_recorded_as_disconnected(capture: Capture) -> None:
    plan = {"mutations": [{"kind": "hold", "match": CALLS, "ms": 10_000, "as": "sse", "keepaliveMs": 100}]}
    run = capture.new_run("leaves", plan)
    began = time.monotonic()
    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        body = json.dumps(rpc_request(1)).encode()
        with client.stream("POST", run.url, content=body, headers=rpc_headers()) as response:
            assert response.headers["content-type"] == "text/event-stream"
            first = next(response.iter_raw())
    # leaving both blocks closed the connection with the rest of the stream unread
    assert first.startswith(b":")
    assert time.monotonic() - began < 5, "the keep-alive came long before the 10 s hold ended"

    wait_for_rows(
        capture.out,
        "SELECT kind FROM anomalies WHERE run_id = ?",
        (run.id,),
        lambda rows: ("client-disconnected",) in rows,
    )
    assert_proxy_serves(capture)

    rec = close_and_load(capture)
    assert _anomaly_kinds(rec, run.id) == ["client-disconnected"]
    (exchange,) = rec.exchanges_in(run.id)
    assert exchange.error is not None and "disconnected" in exchange.error.lower()
    items = [i for i in rec.sse_events if i.flow_id == exchange.flow_id]
    assert items and items[0].kind == "comment" and items[0].origin == "proxy", "the abandoned stream is recorded"


def test_a_run_whose_upstream_is_down_gets_502_and_the_proxy_keeps_serving_other_runs(capture: Capture) -> None:
    down = capture.new_run("down", upstream=f"http://127.0.0.1:{closed_port()}/mcp")
    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        response = post_rpc(client, down.url, rpc_request(1))
    assert response.status_code == 502
    assert_proxy_serves(capture)

    rec = close_and_load(capture)
    assert _anomaly_kinds(rec, down.id) == ["upstream-unreachable"]
    (exchange,) = rec.exchanges_in(down.id)
    assert exchange.error is not None


def test_a_capture_in_front_of_a_down_upstream_fails_fast_with_a_clear_error_and_a_readable_recording(
    recording_path: Path,
) -> None:
    upstream = f"http://127.0.0.1:{closed_port()}/mcp"
    failed = Capture(recording_path, upstream=upstream)
    began = time.monotonic()
    try:
        with pytest.raises(CaptureError) as raised:
            with failed:
                pass
        elapsed = time.monotonic() - began
    finally:
        failed.close()
    assert elapsed < 5
    message = str(raised.value)
    assert upstream in message and "is down" in message and "--upstream" in message
    assert "\n" not in message
    rec = load(recording_path)
    assert [(a.kind, a.run_id) for a in rec.anomalies] == [("upstream-unreachable", None)]
    assert rec.runs == () and rec.messages == ()


def test_a_capture_that_fails_to_start_still_leaves_a_finalised_recording(recording_path: Path, tmp_path: Path) -> None:
    failed = Capture(recording_path, upstream=f"http://127.0.0.1:{closed_port()}/mcp")
    try:
        with pytest.raises(CaptureError):
            with failed:
                pass
        copy = tmp_path / "copy" / "recording.sqlite"
        copy.parent.mkdir()
        shutil.copyfile(recording_path, copy)  # the file alone, as a user would mail it
        assert [a.kind for a in load(copy).anomalies] == ["upstream-unreachable"]
    finally:
        failed.close()  # stop the writer thread this test left running


def test_sigkill_of_mitmdump_mid_run_keeps_every_message_committed_before_it(capture: Capture) -> None:
    run = capture.new_run("killed")

    async def session() -> str:
        async with Client(run.url) as client:
            await client.list_tools()
            result = await client.call_tool(TOOL, {})
            return str(getattr(result.content[0], "text", ""))

    assert run_sdk(session) == REPO_TEXT

    def settled(rows: list[tuple[object, ...]]) -> bool:
        sent = [r for r in rows if r[1] == "to-server"]
        answered = [r for r in rows if r[1] == "to-client"]
        return len(sent) >= 3 and len(answered) == len(sent) and any(r[2] == "tools/call" for r in answered)

    committed = wait_for_rows(
        capture.out,
        "SELECT seq, direction, method, jsonrpc_id, text FROM messages WHERE run_id = ? ORDER BY seq",
        (run.id,),
        settled,
    )
    assert capture.proxy is not None
    pid = capture.proxy.process.pid
    os.kill(pid, signal.SIGKILL)
    assert capture.proxy.process.wait(5) == -signal.SIGKILL

    rec = close_and_load(capture)  # close copes with a dead proxy, then finalises the file
    loaded = [(m.seq, m.direction, m.method, m.jsonrpc_id, m.text) for m in rec.messages_in(run.id)]
    assert loaded[: len(committed)] == committed
    assert [a.kind for a in rec.anomalies] == ["proxy-exit"]
    assert f"code {-signal.SIGKILL}" in rec.anomalies[0].detail
    assert not Path(f"{capture.out}-wal").exists(), "the recording is finalised despite the kill"
