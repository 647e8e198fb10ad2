"""A small recording made for the replay tests: one run with a JSON reply, an SSE reply with a keep-alive and a
hold,, and a notification; plus the committed references, by name."""

from __future__ import annotations

import fcntl
import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backchannel.recordings import store
from backchannel.recordings.meta import RecordingInfo
from backchannel.recordings.rows import (
    ExchangeHead,
    ExchangeRequest,
    ExchangeResponse,
    ExchangeStreamEnd,
    RunRow,
    SseItemRow,
)

ROOT = Path(__file__).resolve().parents[3]
REFERENCE = ROOT / "recordings" / "reference"
RUN = "a1b2c3d4e5f6"
T0 = 1_800_000_000.0

# Replaying a recording through the proxy opens its URL servers again on their recorded ports (the replayed pages
# name them). Two replays of one recording at once (two xdist workers, or two suites on one machine) race for those
# ports and one records `replay-url-server-unavailable`; the modules that replay through the proxy take turns.
# (Not xdist_group: under pytest 9, pytest-xdist 3.8's loadgroup no longer tags the node ids, so groups are ignored.)
RECORDED_PORTS = pytest.mark.usefixtures("recorded_ports")
PORTS_LOCK = Path(tempfile.gettempdir()) / "backchannel-tests-recorded-ports.lock"  # machine-wide, like the ports
PORTS_WAIT_S = 600.0


@pytest.fixture
def recorded_ports() -> Iterator[None]:
    """Hold the machine-wide lock on the recorded URL-server ports for one test (waiting at most PORTS_WAIT_S)."""
    with open(PORTS_LOCK, "a+b") as handle:
        deadline = time.monotonic() + PORTS_WAIT_S
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                # flock has no timeout of its own: a short poll keeps the wait bounded (the holder is one test)
                if time.monotonic() > deadline:
                    pytest.fail(f"waited {PORTS_WAIT_S:g} s for {PORTS_LOCK}: another test holds the recorded ports")
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def rpc(message: dict[str, object]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}, separators=(",", ":")).encode()


CALL = rpc({"id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"x": 1}}})
CALL_REPLY = b'{"jsonrpc": "2.0", "id": 1, "result": {"content": [], "resultType": "complete"}}'
HELD = rpc({"id": 2, "method": "tools/call", "params": {"name": "held", "arguments": {}}})
KEEPALIVE = b": keepalive\n\n"
HELD_EVENT = b'event: message\ndata: {"jsonrpc":"2.0","id":2,"result":{"content":[]}}\n\n'


def _exchange(seq: int, request: bytes) -> dict[str, Any]:
    return {
        "run_id": RUN,
        "flow_id": f"flow-{seq}",
        "method": "POST",
        "path": f"/r/{RUN}/mcp",
        "request_headers": (("content-type", "application/json"),),
        "request_body": request,
        "t_request": T0 + seq,
    }


@pytest.fixture(scope="session")
def small_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "small.sqlite"
    headers = (("date", "Mon, 30 Nov 2026 00:00:00 GMT"), ("content-type", "application/json"), ("x-recorded", "yes"))
    sse = (("content-type", "text/event-stream"), ("Transfer-Encoding", "chunked"))
    store.create(path, RecordingInfo(nonce="replay-test", tool_version="test"))
    writer = store.RecordingWriter(path)
    writer.insert(RunRow(id=RUN, ordinal=1, name="only", scenario=None, upstream="http://127.0.0.1:9/mcp", plan={}))
    whole = ExchangeResponse(status=200, t_response=T0 + 1.01, response_headers=headers, response_body=CALL_REPLY)
    writer.insert_exchange(ExchangeRequest(**_exchange(1, CALL)), whole)
    # a streamed reply is written as the proxy writes one: its head, its items, its end
    writer.insert_exchange(
        ExchangeRequest(**_exchange(2, HELD)), ExchangeHead(status=200, t_response=T0 + 2.0, response_headers=sse)
    )
    for idx, (raw, t) in enumerate(((KEEPALIVE, T0 + 2.3), (HELD_EVENT, T0 + 2.6))):
        kind = "comment" if raw.startswith(b":") else "event"
        writer.insert(
            SseItemRow(
                flow_id="flow-2",
                idx=idx,
                kind=kind,
                origin="upstream",
                run_id=RUN,
                upstream_raw=raw,
                client_raw=raw,
                t=t,
            )
        )
    writer.update_exchange("flow-2", ExchangeStreamEnd(t_end=T0 + 2.7, response_body=KEEPALIVE + HELD_EVENT))
    accepted = ExchangeResponse(status=202, t_response=T0 + 3)
    writer.insert_exchange(ExchangeRequest(**_exchange(3, rpc({"method": "notifications/cancelled"}))), accepted)
    writer.flush()
    writer.close()
    store.finalize(path)
    return path
