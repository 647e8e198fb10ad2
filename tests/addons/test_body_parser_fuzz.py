"""Property: the proxy's body parsers are total. Any JSON shape, any depth, any size, any bytes: they return, never
raise, and what they return can be recorded and read back."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backchannel.addons import request_state
from backchannel.addons.json_edit import remove_member
from backchannel.addons.jsonrpc import classify, parse_body, parse_text, too_deep
from backchannel.addons.rewriter import _decode_request
from backchannel.addons.sse import SseRewriter
from backchannel.addons.transforms import answers, error_status, progress_token, rewrite_response
from tests.addons.conftest import CALLS, FORM_REQUEST, Rig, Runs, build_addons, upstream_response

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
)
keys = st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error", "_meta", "name", "arguments",
                        "requestState", "inputResponses", "resultType", "progressToken"])  # fmt: skip
rpc_like = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys | st.text(max_size=5), inner, max_size=6)
)


def nest(value: Any, depth: int, as_list: bool) -> str:
    text = json.dumps(value)
    return ("[" * depth + text + "]" * depth) if as_list else ('{"a":' * depth + text + "}" * depth)


def texts() -> st.SearchStrategy[str]:
    shaped = rpc_like.map(json.dumps)
    deep = st.builds(nest, rpc_like, st.integers(0, 20_000), st.booleans())
    mangled = st.builds(lambda t, cut: t[:cut], shaped, st.integers(0, 200))
    return shaped | deep | mangled | st.text(max_size=200)


def check_total(text: str) -> None:
    messages, anomalies = parse_text(text)
    for message in messages:
        assert message.kind in ("request", "notification", "response", "error", "invalid")
    body = text.encode("utf-8", "surrogatepass")
    parse_body(body, "application/json")
    request = _decode_request(body)
    assert request is None or isinstance(request, dict)
    remove_member(text, ("result", "resultType"))
    too_deep(text)
    if request is not None:
        request_state.call_claims(request)
        request_state.original_params(request)
        progress_token(request)
        error_status(-32602, request)
        for message in messages:
            answers(request, message.payload)
        rewrite_response(text, request, (), lambda i: "bc1.x.y", [])
    stream = SseRewriter(transform=lambda data: None, on_item=lambda item: None)
    stream(b"data: " + body.replace(b"\n", b" ").replace(b"\r", b" ") + b"\n\n")
    stream(b"")


@SETTINGS
@given(texts())
def test_any_text_through_every_parser_on_the_proxy_path_returns_without_raising(text: str):
    check_total(text)


@SETTINGS
@given(st.binary(max_size=300))
def test_any_bytes_as_a_body_never_raise(body: bytes):
    parse_body(body, "application/json")
    _decode_request(body)
    stream = SseRewriter(transform=lambda data: None, on_item=lambda item: None)
    stream(body)
    stream(b"")


@SETTINGS
@given(values)
def test_any_json_value_classifies_without_raising(value: Any):
    classify(value)
    if isinstance(value, dict):
        classify({**value, "id": value, "method": "x"})


def test_a_body_nested_a_million_deep_is_reported_not_raised():
    text = "[" * 1_000_000 + "]" * 1_000_000
    messages, anomalies = parse_text(text)
    assert [m.kind for m in messages] == ["invalid"] and anomalies[0][0] == "json-too-deep"
    assert _decode_request(text.encode()) is None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request=texts(), answer=texts(), sse=st.booleans(), kind=st.sampled_from(["none", "drop", "inject"]))
def test_any_request_and_answer_through_the_hooks_leave_a_recorded_exchange(
    tmp_path_factory: Any, request: str, answer: str, sse: bool, kind: str
):
    plans = {
        "none": None,
        "drop": {"mutations": [{"match": CALLS, "kind": "drop-result-type"}]},
        "inject": {"mutations": [{"match": CALLS, "kind": "inject-input-requests", "inputRequests": FORM_REQUEST}]},
    }
    runs = Runs(tmp_path_factory.mktemp("fuzz") / "recording.sqlite")
    addons = build_addons(runs.path)
    rig = Rig(runs, addons)
    try:
        run_id = runs.add(plans[kind])
        flow = rig.flow(run_id, request.encode("utf-8", "surrogatepass"))
        rig.send(flow)
        body = answer.encode("utf-8", "surrogatepass")
        if sse:
            rig.reply(flow, upstream_response(None, content_type="text/event-stream", streamed=True))
            rig.stream(flow, b"data: " + body.replace(b"\n", b" ").replace(b"\r", b" ") + b"\n\n")
        else:
            rig.reply(flow, upstream_response(body))
        rig.finish(flow)
        rec = rig.recording()
        assert len(rec.exchanges) == 1
        assert [a.detail for a in rec.anomalies if a.kind == "recorder-failed"] == []
    finally:
        addons.session.writer.close()
        runs.close()
