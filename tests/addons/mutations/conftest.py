"""Helpers for the mutation kinds' hook-level tests, on top of tests/addons/conftest.py's Rig."""

from __future__ import annotations

import json
from typing import Any

from mitmproxy import http

from tests.addons.conftest import CALL, Rig, upstream_response, wire

SSE = "text/event-stream"


def event(message: Any) -> bytes:
    return b"event: message\r\ndata: " + wire(message) + b"\r\n\r\n"


def note(n: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p", "progress": n}}


def call_flow(rig: Rig, run_id: str, request: dict[str, Any] = CALL) -> http.HTTPFlow:
    """A client request sent through Router, Rewriter and Recorder, not yet answered."""
    flow = rig.flow(run_id, wire(request))
    rig.send(flow)
    return flow


def streamed(rig: Rig, flow: http.HTTPFlow, content_type: str, *chunks: bytes) -> bytes | None:
    """An upstream answer mitmproxy streams, hook by hook in mitmproxy's order: responseheaders, the body through
    the stream callable, then the response hook (Rewriter, then Recorder). Returns the client's body bytes, or None
    when the flow was killed before its status line (mitmproxy then calls the error hook, not the response hook).
    """
    flow.response = upstream_response(None, content_type=content_type, streamed=True)
    rig.addons.rewriter.responseheaders(flow)
    rig.addons.recorder.responseheaders(flow)
    if flow.error is not None:
        rig.addons.recorder.error(flow)
        rig.session.flows.pop(flow.id, None)
        return None
    client = rig.stream(flow, *chunks)
    assert rig.addons.rewriter.response(flow) == 0.0
    rig.finish(flow)
    return client


def records(rig: Rig) -> list[list[dict[str, Any]]]:
    """Every exchange's mutation records, as stored."""
    return [[dict(m) for m in x.mutations] for x in rig.recording().exchanges]


def body_json(flow: http.HTTPFlow) -> Any:
    assert flow.response is not None
    return json.loads(flow.response.content or b"")
