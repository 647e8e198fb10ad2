"""Through a real mitmdump: an upstream that stays silent gets the client a JSON-RPC error with HTTP 504, and the
run is marked with an anomaly; the wire limits reach the addon from the process's configured flags."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from backchannel.addons.session import Limits
from backchannel.oracle.harness import harness_problems
from backchannel.proxy.run.capture import Capture
from backchannel.recordings import load
from tests.e2e.conftest import (
    RawRequest,
    RawUpstream,
    Respond,
    post_rpc,
    rpc_headers,
    rpc_request,
)

IDLE_S = 1.0


def silent(conn: socket.socket, request: RawRequest, stopping: threading.Event) -> None:
    stopping.wait(30)  # never answers; released when the test stops the upstream


@pytest.fixture
def short_idle() -> Limits:
    return Limits(upstream_idle_timeout=IDLE_S)  # handed to each capture: nothing process-wide is set


def test_a_silent_upstream_gets_the_client_a_jsonrpc_error_with_http_504_and_marks_the_run(
    tmp_path: Path, short_idle: Limits, raw_upstream: Callable[[Respond], RawUpstream]
):
    upstream = raw_upstream(silent)
    with Capture(tmp_path / "rec.sqlite", upstream=upstream.url, limits=short_idle) as capture:
        run = capture.new_run("silent", {})
        began = time.monotonic()
        with httpx.Client(timeout=httpx.Timeout(10.0)) as client:
            response = post_rpc(client, run.url, rpc_request(7))
        waited = time.monotonic() - began
    assert response.status_code == 504
    error = response.json()
    assert error["id"] == 7 and error["error"]["code"] == -32001
    assert "sent nothing for 1 s" in error["error"]["message"]
    assert IDLE_S <= waited < IDLE_S + 5
    rec = load(tmp_path / "rec.sqlite")
    assert [a.kind for a in rec.anomalies if a.run_id == run.id] == ["upstream-idle-timeout"]
    [exchange] = [x for x in rec.exchanges if x.run_id == run.id]
    assert exchange.status == 504 and not exchange.forwarded


def half_body(conn: socket.socket, request: RawRequest, stopping: threading.Event) -> None:
    conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{"jsonrpc":')
    stopping.wait(30)  # the rest of the body never comes


def sse_then_silence(conn: socket.socket, request: RawRequest, stopping: threading.Event) -> None:
    progress = json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}})
    event = f"event: message\r\ndata: {progress}\r\n\r\n".encode()
    open_event = b'event: message\r\ndata: {"jsonrpc": "2.0", "id": '  # an event the upstream never finishes
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    conn.sendall(head + b"%x\r\n%s\r\n" % (len(event), event) + b"%x\r\n%s\r\n" % (len(open_event), open_event))
    stopping.wait(30)


def trickle(conn: socket.socket, request: RawRequest, stopping: threading.Event) -> None:
    if not request.body:
        return  # a bare connect (the harness probing that the upstream listens)
    body = json.dumps({"jsonrpc": "2.0", "id": request.message["id"], "result": {"content": []}}).encode()
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
    pieces = [body[: len(body) // 4], body[len(body) // 4 : len(body) // 2], body[len(body) // 2 :]]
    for piece in pieces:  # three pauses of 0.6 s each: 1.8 s in all, never 1 s of silence
        if stopping.wait(0.6 * IDLE_S):
            return
        conn.sendall(piece)


def test_an_upstream_silent_in_the_middle_of_a_json_body_gets_the_client_a_jsonrpc_error_with_http_504(
    tmp_path: Path, short_idle: Limits, raw_upstream: Callable[[Respond], RawUpstream]
):
    upstream = raw_upstream(half_body)
    with Capture(tmp_path / "rec.sqlite", upstream=upstream.url, limits=short_idle) as capture:
        run = capture.new_run("half-body", {})
        began = time.monotonic()
        with httpx.Client(timeout=httpx.Timeout(10.0)) as client:
            response = post_rpc(client, run.url, rpc_request(8))
        waited = time.monotonic() - began
        assert capture.proxy is not None and capture.proxy.process.poll() is None  # the cut cost the proxy nothing
    assert response.status_code == 504, response.text
    error = response.json()
    assert error["id"] == 8 and error["error"]["code"] == -32001
    assert "response head, then nothing for 1 s" in error["error"]["message"]
    assert IDLE_S <= waited < IDLE_S + 5
    rec = load(tmp_path / "rec.sqlite")
    assert [a.kind for a in rec.anomalies if a.run_id == run.id] == ["upstream-idle-timeout"]
    [exchange] = [x for x in rec.exchanges if x.run_id == run.id]
    assert exchange.status == 504 and not exchange.forwarded
    [message] = [m for m in rec.messages if m.run_id == run.id and m.direction == "to-client"]
    assert message.kind == "error" and message.jsonrpc_id == "8"


def test_an_sse_stream_that_goes_silent_before_its_response_ends_with_a_jsonrpc_error_event(
    tmp_path: Path, short_idle: Limits, raw_upstream: Callable[[Respond], RawUpstream]
):
    upstream = raw_upstream(sse_then_silence)
    with Capture(tmp_path / "rec.sqlite", upstream=upstream.url, limits=short_idle) as capture:
        run = capture.new_run("sse-silent", {})
        began = time.monotonic()
        with httpx.Client(timeout=httpx.Timeout(10.0)) as client:
            response = post_rpc(client, run.url, rpc_request(9))
        waited = time.monotonic() - began
    assert response.status_code == 200
    data = [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]
    assert data[0]["method"] == "notifications/progress"
    assert data[-1]["id"] == 9 and data[-1]["error"]["code"] == -32001, response.text
    assert len(data) == 2, "the event the upstream left open never reached the client"
    assert IDLE_S <= waited < IDLE_S + 5
    rec = load(tmp_path / "rec.sqlite")
    kinds = [a.kind for a in rec.anomalies if a.run_id == run.id]
    assert "upstream-idle-timeout" in kinds and "truncated-sse" in kinds
    [exchange] = [x for x in rec.exchanges if x.run_id == run.id]
    assert exchange.streamed and exchange.t_end is not None and exchange.error is None
    errors = [m for m in rec.messages if m.run_id == run.id and m.direction == "to-client" and m.kind == "error"]
    assert [m.jsonrpc_id for m in errors] == ["9"]


def test_an_upstream_that_keeps_sending_is_never_cut_off_however_long_its_body_takes(
    tmp_path: Path, short_idle: Limits, raw_upstream: Callable[[Respond], RawUpstream]
):
    upstream = raw_upstream(trickle)
    with Capture(tmp_path / "rec.sqlite", upstream=upstream.url, limits=short_idle) as capture:
        run = capture.new_run("trickle", {})
        began = time.monotonic()
        with httpx.Client(timeout=httpx.Timeout(10.0)) as client:
            response = post_rpc(client, run.url, rpc_request(10))
        waited = time.monotonic() - began
    assert response.status_code == 200 and response.json()["id"] == 10
    assert waited > IDLE_S, "the body should have taken longer than the idle timeout"
    rec = load(tmp_path / "rec.sqlite")
    assert [a.kind for a in rec.anomalies if a.run_id == run.id] == []


def answer_then_keep_open(conn: socket.socket, request: RawRequest, stopping: threading.Event) -> None:
    if not request.body:
        return  # a bare connect (the harness probing that the upstream listens)
    answer = json.dumps({"jsonrpc": "2.0", "id": request.message["id"], "result": {"content": []}})
    event = f"event: message\r\ndata: {answer}\r\n\r\n".encode()
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    conn.sendall(head + b"%x\r\n%s\r\n" % (len(event), event))
    stopping.wait(30)  # the stream stays open, quiet: it owes the client nothing more


def test_a_quiet_sse_stream_that_owes_no_response_is_left_open(
    tmp_path: Path, short_idle: Limits, raw_upstream: Callable[[Respond], RawUpstream]
):
    upstream = raw_upstream(answer_then_keep_open)
    with Capture(tmp_path / "rec.sqlite", upstream=upstream.url, limits=short_idle) as capture:
        run = capture.new_run("quiet", {})
        message = rpc_request(11)
        with httpx.Client(timeout=httpx.Timeout(3 * IDLE_S)) as client:
            headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
            with client.stream("POST", run.url, content=json.dumps(message), headers=headers) as response:
                lines = response.iter_lines()
                assert any(line.startswith("data:") and '"id": 11' in line for line in lines)
                with pytest.raises(httpx.ReadTimeout):  # 3 s of quiet: neither an error event nor an end
                    rest = [line for line in lines if line]
                    pytest.fail(f"the stream went on or ended: {rest}")
    rec = load(tmp_path / "rec.sqlite")
    assert "upstream-idle-timeout" not in [a.kind for a in rec.anomalies if a.run_id == run.id]


BIG_LINE = 64 * 1024 * 1024


def one_huge_event(conn: socket.socket, request: RawRequest, stopping: threading.Event) -> None:
    """An SSE answer whose first event is one data line of 64 MiB, sent in 256 KiB chunks, then a small answer."""
    if not request.body:
        return  # a bare connect (the harness probing that the upstream listens)
    answer = json.dumps({"jsonrpc": "2.0", "id": request.message["id"], "result": {"content": []}})
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    conn.sendall(head)
    piece = b"x" * (256 * 1024)
    for part in [b"event: message\r\ndata: ", *[piece] * (BIG_LINE // len(piece)), f"\r\n\r\ndata: {answer}\r\n\r\n"]:
        data = part.encode() if isinstance(part, str) else part
        conn.sendall(b"%x\r\n%s\r\n" % (len(data), data))
    conn.sendall(b"0\r\n\r\n")


def _kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def test_an_sse_event_larger_than_max_body_streams_through_the_proxy_without_being_held(
    tmp_path: Path, raw_upstream: Callable[[Respond], RawUpstream]
):
    upstream = raw_upstream(one_huge_event)
    limits = Limits(max_body=1024 * 1024, max_sse_event=64 * 1024)
    with Capture(tmp_path / "rec.sqlite", upstream=upstream.url, limits=limits) as capture:
        assert capture.proxy is not None
        pid = capture.proxy.process.pid
        run = capture.new_run("huge-event", {})
        before = _kib(pid, "VmRSS")
        received = 0
        tail = b""
        with httpx.Client(timeout=httpx.Timeout(30.0)) as client:
            message = rpc_request(11)
            headers = rpc_headers(message["method"])
            with client.stream("POST", run.url, content=json.dumps(message), headers=headers) as response:
                for chunk in response.iter_bytes():
                    received += len(chunk)
                    tail = (tail + chunk)[-300:]
        peak = _kib(pid, "VmHWM")
    assert received > BIG_LINE and b'"id": 11' in tail, "the client got the whole event and the answer after it"
    grew_mib = (peak - before) / 1024
    print(f"mitmdump: {before / 1024:.0f} MiB before, peak {peak / 1024:.0f} MiB, for a 64 MiB event")
    assert grew_mib < 24, f"mitmdump grew {grew_mib:.0f} MiB while a 64 MiB event passed: it held the event"
    rec = load(tmp_path / "rec.sqlite")
    kinds = [a.kind for a in rec.anomalies if a.run_id == run.id]
    assert sorted(kinds) == ["body-over-limit", "sse-event-unread"], kinds  # the stream, stored up to --max-body
    assert [m.jsonrpc_id for m in rec.messages if m.run_id == run.id and m.direction == "to-client"] == ["11"]
    first = [e for e in rec.sse_events if e.run_id == run.id][0]
    assert len(first.upstream_raw) == 64 * 1024


BIG_BODY = 64 * 1024 * 1024
SMALL = Limits(max_body=1024 * 1024, max_sse_event=64 * 1024)  # the proxy holds at most 1 MiB of one body


def huge_json(framing: str) -> Respond:
    """An upstream answering with a 64 MiB JSON result, framed by Content-Length or chunked, in 256 KiB pieces."""

    def respond(conn: socket.socket, request: RawRequest, stopping: threading.Event) -> None:
        if not request.body:
            return  # a bare connect (the harness probing that the upstream listens)
        head = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"' % request.message["id"]
        tail = b'"}],"resultType":"complete"}}'
        piece = b"x" * (256 * 1024)
        parts = [head, *[piece] * (BIG_BODY // len(piece)), tail]
        size = sum(len(p) for p in parts)
        if framing == "length":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % size)
            for part in parts:
                conn.sendall(part)
        else:
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            for part in parts:
                conn.sendall(b"%x\r\n%s\r\n" % (len(part), part))
            conn.sendall(b"0\r\n\r\n")

    return respond


@pytest.mark.parametrize("framing", ["length", "chunked"])
def test_a_json_response_larger_than_max_body_streams_through_the_proxy_unread_and_judge_says_so(
    framing: str, tmp_path: Path, raw_upstream: Callable[[Respond], RawUpstream]
):
    upstream = raw_upstream(huge_json(framing))
    with Capture(tmp_path / "rec.sqlite", upstream=upstream.url, limits=SMALL) as capture:
        assert capture.proxy is not None
        pid = capture.proxy.process.pid
        run = capture.new_run("huge-json", {})
        before = _kib(pid, "VmRSS")
        received, head, tail = 0, b"", b""
        with httpx.Client(timeout=httpx.Timeout(30.0)) as client:
            message = rpc_request(12)
            with client.stream("POST", run.url, content=json.dumps(message), headers=rpc_headers()) as response:
                status = response.status_code
                for chunk in response.iter_bytes():
                    received += len(chunk)
                    head = head or chunk[:100]
                    tail = (tail + chunk)[-100:]
        peak = _kib(pid, "VmHWM")
        assert capture.proxy.process.poll() is None, "mitmdump is still serving"
    assert status == 200 and received > BIG_BODY, "the client got every byte"
    assert head.startswith(b'{"jsonrpc":"2.0","id":12,') and tail.endswith(b'"resultType":"complete"}}')
    grew_mib = (peak - before) / 1024
    print(f"mitmdump ({framing}): {before / 1024:.0f} MiB before, peak {peak / 1024:.0f} MiB, for a 64 MiB body")
    assert grew_mib < 24, f"mitmdump grew {grew_mib:.0f} MiB while a 64 MiB body passed: it held the body"
    rec = load(tmp_path / "rec.sqlite")
    [unread] = [a for a in rec.anomalies if a.run_id == run.id]
    assert unread.kind == "body-unread" and "response body" in unread.detail, unread
    assert [m.direction for m in rec.messages if m.run_id == run.id] == ["to-server"], "no message was made of it"
    [exchange] = [e for e in rec.exchanges if e.run_id == run.id]
    assert exchange.status == 200 and exchange.streamed
    if framing == "length":  # a hook saw the stream begin: its first --max-body bytes are kept, its size is known
        assert exchange.upstream_response_body == (head + b"x" * SMALL.max_body)[: SMALL.max_body]
        assert f"of {received} bytes" in unread.detail
    else:  # mitmproxy switched to streaming mid-body, where no hook runs: nothing of it is kept
        assert exchange.upstream_response_body == b"" and "unknown length" in unread.detail
    assert "body-unread" in [p.reason for p in harness_problems(rec)]


def test_a_request_body_larger_than_max_body_goes_upstream_unread_to_the_runs_upstream(
    tmp_path: Path, raw_upstream: Callable[[Respond], RawUpstream]
):
    got: list[int] = []

    def answer(conn: socket.socket, request: RawRequest, stopping: threading.Event) -> None:
        if not request.body:
            return
        got.append(len(request.body))
        body = json.dumps({"jsonrpc": "2.0", "id": 13, "result": {"content": [], "resultType": "complete"}}).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
        conn.sendall(body)

    upstream = raw_upstream(answer)
    message = rpc_request(13, extra_params={"arguments": {"text": "y" * BIG_BODY}})
    sent = json.dumps(message).encode()
    with Capture(tmp_path / "rec.sqlite", upstream=upstream.url, limits=SMALL) as capture:
        assert capture.proxy is not None
        pid = capture.proxy.process.pid
        run = capture.new_run("huge-request", {})
        before = _kib(pid, "VmRSS")
        with httpx.Client(timeout=httpx.Timeout(30.0)) as client:
            response = client.post(run.url, content=sent, headers=rpc_headers())
        peak = _kib(pid, "VmHWM")
    assert response.json()["id"] == 13 and got == [len(sent)], "the run's upstream got the whole request"
    assert (peak - before) / 1024 < 24, f"mitmdump grew {(peak - before) / 1024:.0f} MiB: it held the request"
    rec = load(tmp_path / "rec.sqlite")
    [unread] = [a for a in rec.anomalies if a.run_id == run.id]
    assert unread.kind == "body-unread" and f"request body of {len(sent)} bytes" in unread.detail, unread
    [exchange] = [e for e in rec.exchanges if e.run_id == run.id]
    assert exchange.request_body == sent[: SMALL.max_body]
    assert [m.direction for m in rec.messages if m.run_id == run.id] == ["to-client"]
    assert "body-unread" in [p.reason for p in harness_problems(rec)]


@pytest.mark.parametrize("which", ["unknown-run", "invalid-plan"])
def test_a_request_body_too_large_to_hold_for_a_run_the_proxy_answers_itself_is_never_forwarded(
    which: str, tmp_path: Path, raw_upstream: Callable[[Respond], RawUpstream]
):
    seen: list[int] = []

    def answer(conn: socket.socket, request: RawRequest, stopping: threading.Event) -> None:
        seen.append(len(request.body))

    upstream = raw_upstream(answer)
    message = rpc_request(14, extra_params={"arguments": {"text": "z" * (4 * 1024 * 1024)}})
    with Capture(tmp_path / "rec.sqlite", upstream=upstream.url, limits=SMALL) as capture:
        if which == "invalid-plan":
            url = capture.new_run("bad-plan", {"mutations": [{"kind": "no-such-kind"}]}, stored=True).url
        else:
            known = capture.new_run("known", {})
            url = known.url.replace(known.id, "deadbeef0000")
        with httpx.Client(timeout=httpx.Timeout(30.0)) as client:
            response = client.post(url, content=json.dumps(message).encode(), headers=rpc_headers())
    assert response.status_code == (404 if which == "unknown-run" else 500), response.text
    assert "error" in response.json()
    assert [size for size in seen if size] == [], "the upstream never got the request"
    rec = load(tmp_path / "rec.sqlite")
    [exchange] = [e for e in rec.exchanges if e.request_body and e.request_body.startswith(b'{"jsonrpc"')]
    assert not exchange.forwarded and exchange.status == response.status_code
    assert "body-unread" in [a.kind for a in rec.anomalies]


def test_a_disconnect_on_a_body_too_large_to_hold_keeps_only_max_body_of_it_and_says_so(
    tmp_path: Path, raw_upstream: Callable[[Respond], RawUpstream]
):
    upstream = raw_upstream(huge_json("length"))
    plan = {"mutations": [{"kind": "disconnect", "match": {"method": "tools/call"}, "afterBytes": 100}]}
    with Capture(tmp_path / "rec.sqlite", upstream=upstream.url, limits=SMALL) as capture:
        assert capture.proxy is not None
        pid = capture.proxy.process.pid
        run = capture.new_run("cut", plan)
        before = _kib(pid, "VmRSS")
        received = 0
        with httpx.Client(timeout=httpx.Timeout(30.0)) as client:
            with pytest.raises(httpx.RemoteProtocolError):
                with client.stream("POST", run.url, content=json.dumps(rpc_request(15)), headers=rpc_headers()) as r:
                    for chunk in r.iter_bytes():
                        received += len(chunk)
        peak = _kib(pid, "VmHWM")
    assert received == 100
    assert (peak - before) / 1024 < 24, f"mitmdump grew {(peak - before) / 1024:.0f} MiB: it held the body"
    rec = load(tmp_path / "rec.sqlite")
    [exchange] = [e for e in rec.exchanges if e.run_id == run.id]
    stored = exchange.upstream_response_body or b""
    assert len(stored) == SMALL.max_body and exchange.response_body == stored[:100], "both truths, each capped"
    assert [a.kind for a in rec.anomalies if a.run_id == run.id] == ["body-over-limit"]
