"""Through a real mitmdump: an upstream that stays silent gets the client a JSON-RPC error with HTTP 504, and the
run is marked with an anomaly; the wire limits reach the addon from the process's configured flags."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from backchannel.addons.session import Limits, configure_limits
from backchannel.proxy.run.capture import Capture
from backchannel.recordings import load
from tests.e2e.conftest import RawRequest, RawUpstream, Respond, post_rpc, rpc_request

IDLE_S = 1.0


def silent(conn: socket.socket, request: RawRequest, stopping: threading.Event) -> None:
    stopping.wait(30)  # never answers; released when the test stops the upstream


@pytest.fixture
def short_idle() -> Iterator[None]:
    configure_limits(Limits(upstream_idle_timeout=IDLE_S))
    try:
        yield
    finally:
        configure_limits(Limits())


def test_a_silent_upstream_gets_the_client_a_jsonrpc_error_with_http_504_and_marks_the_run(
    tmp_path: Path, short_idle: None, raw_upstream: Callable[[Respond], RawUpstream]
):
    upstream = raw_upstream(silent)
    with Capture(tmp_path / "rec.sqlite", upstream=upstream.url) as capture:
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
