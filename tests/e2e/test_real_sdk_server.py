"""The real Python SDK client and the real Python SDK server (`mcp` 2.3.0), with backchannel's proxy between them.

The server is tests/servers/py_sdk_server.py (`MCPServer.streamable_http_app()`), under uvicorn in a thread. A
witness middleware around it keeps what the server itself received, so each recording is checked against the
server's own account as well as the client's.

What the SDK server sends, as observed here:
- 2026-07-28 (`mode="auto"`): every reply is `application/json` with a Content-Length; no SSE, no session id. The
  SDK commits to SSE only if the handler emits a notification or runs past 15 s
  (mcp/server/_streamable_http_modern.py), and `get_repo_status` does neither.
- 2025-11-25 (`mode="legacy"`): each POST carrying a request is answered `text/event-stream` (chunked) with one
  `event: message` and an `mcp-session-id`; `notifications/initialized` gets 202; the client also opens the
  standalone GET stream and sends DELETE on close.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import Client, MCPError
from mcp.client.context import ClientRequestContext
from mcp_types import CallToolResult, ElicitRequestFormParams, ElicitRequestParams, ElicitResult, TextContent
from pydantic import ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from backchannel.proxy.run.capture import Capture, RunHandle
from backchannel.recordings import Anomaly, Exchange, Recording, SseEvent, load
from backchannel.recordings import Message as RecordedMessage

CLIENT_TIMEOUT_S = 15
REPO = "x"
REPO_TEXT = f"repo {REPO}: branch main, clean, 0 ahead / 0 behind"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"

CONFIRM_REQUEST: dict[str, Any] = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Proceed?",
        "requestedSchema": {
            "type": "object", "properties": {"confirmed": {"type": "boolean"}}, "required": ["confirmed"],
        },
    },
}  # fmt: skip
MISSING_CAPABILITY = {
    "code": -32021,
    "message": "Missing required client capability",
    "data": {"requiredCapabilities": {"elicitation": {"url": {}}}},
}
PLANS: dict[str, dict[str, Any]] = {
    "drop-result-type": {"mutations": [{"kind": "drop-result-type"}]},
    "inject-input-requests": {
        "mutations": [
            {
                "kind": "inject-input-requests",
                "match": {"method": "tools/call"},
                "inputRequests": {"confirm": CONFIRM_REQUEST},
            }
        ]
    },
    "json-to-sse": {"mutations": [{"kind": "json-to-sse"}]},
    "hold": {"mutations": [{"kind": "hold", "ms": 500, "as": "sse", "keepaliveMs": 100}]},
    "error": {"mutations": [{"kind": "error", "status": 400, "error": MISSING_CAPABILITY}]},
    "error-on-call": {
        "mutations": [{"kind": "error", "match": {"method": "tools/call"}, "status": 400, "error": MISSING_CAPABILITY}]
    },
}


def _load_server_module() -> ModuleType:
    """tests/ is not a package, so load the server helper by path (once per process)."""
    name = "backchannel_tests_py_sdk_server"
    if name in sys.modules:
        return sys.modules[name]
    path = Path(__file__).resolve().parents[1] / "servers" / "py_sdk_server.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before exec: its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


sdk_server_module = _load_server_module()


# --- the real server, and what it received --------------------------------------------------------------------------


@dataclass
class Received:
    method: str
    host: str | None
    body: bytes


class Witness:
    """ASGI middleware that keeps the method, Host and body of every HTTP request the SDK app received."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.requests: list[Received] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        seen = Received(scope["method"], headers.get("host"), b"")
        self.requests.append(seen)

        async def tap() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                seen.body += message.get("body", b"")
            return message

        await self.app(scope, tap, send)


@dataclass(frozen=True)
class SdkServer:
    url: str
    port: int
    witness: Witness


@pytest.fixture(scope="module")
def sdk_server() -> Iterator[SdkServer]:
    witnesses: list[Witness] = []

    def wrap(app: ASGIApp) -> ASGIApp:
        witnesses.append(Witness(app))
        return witnesses[-1]

    with sdk_server_module.serve_in_thread(wrap=wrap) as running:
        yield SdkServer(running.url, running.port, witnesses[0])


# --- one client session through a fresh proxy -----------------------------------------------------------------------


@dataclass(frozen=True)
class Captured:
    outcome: Any
    rec: Recording
    run: RunHandle
    received: tuple[Received, ...]  # what the real server got during this run

    @property
    def exchanges(self) -> list[Exchange]:
        return list(self.rec.exchanges_in(self.run.id))

    @property
    def messages(self) -> list[RecordedMessage]:
        return list(self.rec.messages_in(self.run.id))

    @property
    def sse_events(self) -> list[SseEvent]:
        return [e for e in self.rec.sse_events if e.run_id == self.run.id]

    @property
    def anomalies(self) -> list[Anomaly]:
        return [a for a in self.rec.anomalies if a.run_id == self.run.id]

    def to_server(self, method: str | None = None) -> list[RecordedMessage]:
        return [m for m in self.messages if m.direction == "to-server" and method in (None, m.method)]

    def answer_to(self, request: RecordedMessage) -> RecordedMessage:
        """The one to-client response or error carrying the request's id, on the same HTTP exchange."""
        found = [
            m for m in self.messages
            if m.direction == "to-client" and m.kind in ("response", "error") and m.jsonrpc_id == request.jsonrpc_id
        ]  # fmt: skip
        assert len(found) == 1, f"expected one answer to {request.method} id={request.jsonrpc_id}, got {found}"
        assert found[0].flow_id == request.flow_id
        return found[0]

    def exchange_of(self, message: RecordedMessage) -> Exchange:
        return next(x for x in self.exchanges if x.flow_id == message.flow_id)


def capture_session(server: SdkServer, tmp: Path, name: str, plan: dict[str, Any],
                    drive: Callable[[str], Coroutine[Any, Any, Any]]) -> Captured:  # fmt: skip
    """Start a proxy in front of the real server, drive one client session through a run, then load the recording."""
    out = tmp / f"{name}.sqlite"
    before = len(server.witness.requests)
    with Capture(out, upstream=server.url) as capture:
        run = capture.new_run(name, plan)
        outcome = asyncio.run(drive(run.url))
    return Captured(outcome, load(out), run, tuple(server.witness.requests[before:]))


async def call_repo_status(url: str, mode: str = "auto", **client_options: Any) -> tuple[str, CallToolResult]:
    """One SDK client session: connect in `mode`, call get_repo_status; the negotiated version and the result."""
    async with asyncio.timeout(CLIENT_TIMEOUT_S):
        async with Client(url, mode=mode, **client_options) as client:
            result = await client.call_tool("get_repo_status", {"repo": REPO})
            return client.protocol_version, result


async def failure_of(call: Awaitable[Any]) -> BaseException:
    try:
        await call
    except Exception as exc:
        return exc
    raise AssertionError("the client call succeeded, but it was expected to fail")


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups: the SDK client's task groups wrap what it raises."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in leaves(inner)]
    return [exc]


def text_of(result: CallToolResult) -> str:
    assert result.is_error is False
    [block] = result.content
    assert isinstance(block, TextContent)
    return block.text


def applied_records(exchange: Exchange, kind: str) -> list[dict[str, Any]]:
    """The exchange's records of one mutation kind (the proxy may log other, informational records beside them)."""
    return [dict(m) for m in exchange.mutations if m.get("kind") == kind]


def content_type(exchange: Exchange, *, upstream: bool = False) -> str | None:
    headers = exchange.upstream_response_headers if upstream else exchange.response_headers
    return next((v for k, v in headers if k.lower() == "content-type"), None)


def answered_on(captured: Captured, flow_id: str | None) -> bool:
    return any(m.flow_id == flow_id and m.direction == "to-client" and m.kind in ("response", "error")
               for m in captured.messages)  # fmt: skip


def unexplained_anomalies(captured: Captured) -> list[Anomaly]:
    """Anomalies with no justification. The one justified kind:

    - `client-disconnected` on a flow whose JSON-RPC answer was already recorded: the SDK client's SSE reader
      closes the response as soon as it has read the answer (mcp/client/streamable_http.py,
      `await event_source.response.aclose()`), racing the server's end of stream; it shows up now and then.
    - `client-disconnected` on the legacy client's standalone GET stream when it ended its session itself (its
      DELETE is recorded): the client closes the stream it listens on as it shuts down, racing the server's end
      of that stream; seen under load (a fresh-clone CI run beside another check).
    """
    return [a for a in captured.anomalies
            if not (a.kind == "client-disconnected"
                    and (answered_on(captured, a.flow_id) or closed_on_shutdown(captured, a)))]  # fmt: skip


def closed_on_shutdown(captured: Captured, anomaly: Anomaly) -> bool:
    """The anomaly is on a GET stream of a client that ended its session itself (it sent the session's DELETE)."""
    streams = {x.flow_id for x in captured.exchanges if x.method == "GET"}
    return anomaly.flow_id in streams and any(x.method == "DELETE" for x in captured.exchanges)


def assert_exchanges_complete(captured: Captured) -> None:
    """Every exchange has a status, and failed only in the justified client-disconnected race."""
    raced = {a.flow_id for a in captured.anomalies if a.kind == "client-disconnected"}
    for x in captured.exchanges:
        assert x.status is not None, x
        assert x.error is None or (x.flow_id in raced and x.error == "Client disconnected."), x


def assert_server_got_what_was_forwarded(captured: Captured, server: SdkServer) -> None:
    """The real server received exactly the forwarded requests, byte for byte, addressed to its own Host."""
    forwarded = [x for x in captured.exchanges if x.forwarded]
    assert sorted((x.method or "", x.upstream_request_body or b"") for x in forwarded) == sorted(
        (r.method, r.body) for r in captured.received
    )
    assert {r.host for r in captured.received} <= {f"127.0.0.1:{server.port}"}


def assert_messages_match_bodies(captured: Captured) -> None:
    """Each to-server message is its exchange's request body; each JSON to-client message is its response body."""
    for m in captured.messages:
        x = captured.exchange_of(m)
        if m.direction == "to-server":
            assert m.text == (x.request_body or b"").decode()
        elif m.sse_idx is None:
            assert m.text == (x.response_body or b"").decode()
            assert m.upstream_payload == json.loads(x.upstream_response_body or b"")


# --- 1. no mutation -------------------------------------------------------------------------------------------------


def test_sdk_client_gets_repo_status_from_the_sdk_server_and_every_exchange_and_message_is_recorded(
    sdk_server: SdkServer, tmp_path: Path
) -> None:
    c = capture_session(sdk_server, tmp_path, "plain", {}, call_repo_status)

    version, result = c.outcome
    assert (version, text_of(result)) == (MODERN, REPO_TEXT)

    # The SDK probes with server/discover (no initialize), then calls, then lists tools (for the output schema).
    assert [m.method for m in c.to_server()] == ["server/discover", "tools/call", "tools/list"]
    assert [(x.method, x.status, x.streamed) for x in c.exchanges] == [("POST", 200, False)] * 3
    for request in c.to_server():
        answer = c.answer_to(request)
        x = c.exchange_of(request)
        assert (request.kind, answer.kind, answer.method) == ("request", "response", request.method)
        assert (request.mutation, answer.mutation, answer.upstream_text, answer.sse_idx) == (None, None, None, None)
        assert answer.payload["result"]["resultType"] == "complete"
        assert x.header("mcp-protocol-version") == MODERN
        assert x.header("mcp-method") == request.method
        assert x.header("mcp-session-id") is None
        assert content_type(x) == content_type(x, upstream=True) == "application/json"
        assert x.response_body == x.upstream_response_body
        assert x.request_body == x.upstream_request_body
        assert x.mutations == ()
    [call] = c.to_server("tools/call")
    assert c.exchange_of(call).header("mcp-name") == "get_repo_status"
    assert call.payload["params"]["arguments"] == {"repo": REPO}
    assert c.answer_to(call).payload["result"]["content"] == [{"type": "text", "text": REPO_TEXT}]
    assert_messages_match_bodies(c)

    assert c.sse_events == []  # the 2026-07-28 SDK server answered every request with plain JSON
    assert_exchanges_complete(c)
    assert unexplained_anomalies(c) == []
    assert_server_got_what_was_forwarded(c, sdk_server)


# --- 2. each mutation in front of the real server -------------------------------------------------------------------


def test_drop_result_type_reaches_the_sdk_client_which_rejects_the_tool_result_for_its_missing_result_type(
    sdk_server: SdkServer, tmp_path: Path
) -> None:
    """mcp 2.3.0 validates a 2026-07-28 result against that version's wire schema, where resultType is required
    (mcp/client/session.py send_request -> mcp_types.methods.validate_server_result). It tolerates the bare
    server/discover reply, but rejects the bare tools/call result: the client does not get the content."""
    c = capture_session(sdk_server, tmp_path, "drop-result-type", PLANS["drop-result-type"],
                        lambda url: failure_of(call_repo_status(url)))  # fmt: skip

    [error] = leaves(c.outcome)
    assert isinstance(error, ValidationError)
    assert any(e["type"] == "missing" and e["loc"] == ("CallToolResult", "resultType") for e in error.errors())

    # discover lost its resultType too, and the client went on regardless; it never got as far as tools/list
    assert [m.method for m in c.to_server()] == ["server/discover", "tools/call"]
    for request in c.to_server():
        answer = c.answer_to(request)
        x = c.exchange_of(request)
        assert answer.mutation == "drop-result-type"
        assert "resultType" not in answer.payload["result"]
        assert answer.upstream_payload["result"]["resultType"] == "complete"
        upstream_result = dict(answer.upstream_payload["result"])
        del upstream_result["resultType"]
        assert answer.payload["result"] == upstream_result  # nothing else changed
        [applied] = applied_records(x, "drop-result-type")
        assert applied["kind"] == "drop-result-type"
        assert applied["removed"] == '"resultType":"complete",'
        upstream_text = (x.upstream_response_body or b"").decode()
        assert (x.response_body or b"").decode() == upstream_text[: applied["start"]] + upstream_text[applied["end"] :]
        assert answer.upstream_text == upstream_text
    [call] = c.to_server("tools/call")
    assert c.answer_to(call).payload["result"]["content"] == [{"type": "text", "text": REPO_TEXT}]

    assert_exchanges_complete(c)
    assert unexplained_anomalies(c) == []
    assert_server_got_what_was_forwarded(c, sdk_server)


def test_injected_input_request_is_answered_by_the_sdk_client_and_its_retry_reaches_the_real_server_unmarked(
    sdk_server: SdkServer, tmp_path: Path
) -> None:
    asked: list[ElicitRequestParams] = []

    async def confirm(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="accept", content={"confirmed": True})

    c = capture_session(sdk_server, tmp_path, "inject-input-requests", PLANS["inject-input-requests"],
                        lambda url: call_repo_status(url, elicitation_callback=confirm))  # fmt: skip

    _, result = c.outcome
    assert text_of(result) == REPO_TEXT  # the real server's content, after the retry
    [params] = asked
    assert isinstance(params, ElicitRequestFormParams)
    assert (params.message, params.requested_schema) == ("Proceed?", CONFIRM_REQUEST["params"]["requestedSchema"])

    assert [m.method for m in c.to_server()] == ["server/discover", "tools/call", "tools/call", "tools/list"]
    first, retry = c.to_server("tools/call")

    # the first call reached the server; the client got the injected result instead of the server's
    injected = c.answer_to(first)
    token = injected.payload["result"]["requestState"]
    assert token.startswith("bc1.")
    assert injected.mutation == "inject-input-requests"
    assert injected.payload["result"] == {
        "resultType": "input_required", "inputRequests": {"confirm": CONFIRM_REQUEST}, "requestState": token,
        "_meta": injected.upstream_payload["result"]["_meta"],
    }  # fmt: skip
    assert injected.upstream_payload["result"]["content"] == [{"type": "text", "text": REPO_TEXT}]
    assert applied_records(c.exchange_of(first), "inject-input-requests") == [
        {"kind": "inject-input-requests", "index": 0, "requestState": token}
    ]
    assert "inputResponses" not in first.payload["params"]

    # the retry: a new id, the answer, and the requestState echoed byte for byte
    assert retry.jsonrpc_id != first.jsonrpc_id
    assert retry.mutation == "answer-input-required"
    answers = {"confirm": {"action": "accept", "content": {"confirmed": True}}}
    assert retry.payload["params"]["inputResponses"] == answers
    assert retry.payload["params"]["requestState"] == token
    x = c.exchange_of(retry)
    assert applied_records(x, "answer-input-required") == [
        {"kind": "answer-input-required", "inputResponses": answers, "requestState": token}
    ]
    sent, forwarded = json.loads(x.request_body or b""), json.loads(x.upstream_request_body or b"")
    assert {"inputResponses", "requestState"} <= set(sent["params"])
    assert not {"inputResponses", "requestState"} & set(forwarded["params"])
    assert forwarded == {**sent, "params": {k: v for k, v in sent["params"].items()
                                            if k not in ("inputResponses", "requestState")}}  # fmt: skip
    assert retry.upstream_payload == forwarded
    final = c.answer_to(retry)
    assert (final.mutation, final.upstream_text) == (None, None)
    assert final.payload["result"]["resultType"] == "complete"
    assert final.payload["result"]["content"] == [{"type": "text", "text": REPO_TEXT}]

    # the real server saw two plain calls and never an MRTR field
    calls = [r for r in c.received if b'"tools/call"' in r.body]
    assert len(calls) == 2
    assert all(b"inputResponses" not in r.body and b"requestState" not in r.body for r in calls)
    assert calls[1].body == x.upstream_request_body
    assert_messages_match_bodies(c)
    assert_exchanges_complete(c)
    assert unexplained_anomalies(c) == []
    assert_server_got_what_was_forwarded(c, sdk_server)


@pytest.fixture(scope="module")
def json_to_sse_session(sdk_server: SdkServer, tmp_path_factory: pytest.TempPathFactory) -> Captured:
    return capture_session(sdk_server, tmp_path_factory.mktemp("json-to-sse"), "json-to-sse", PLANS["json-to-sse"],
                           call_repo_status)  # fmt: skip


def test_json_to_sse_turns_each_json_reply_of_the_sdk_server_into_one_sse_event_the_sdk_client_reads(
    json_to_sse_session: Captured, sdk_server: SdkServer
) -> None:
    """The 2026-07-28 SDK server answers JSON, so the mutation is not a no-op: every reply is re-framed."""
    c = json_to_sse_session
    version, result = c.outcome
    assert (version, text_of(result)) == (MODERN, REPO_TEXT)

    assert [m.method for m in c.to_server()] == ["server/discover", "tools/call", "tools/list"]
    for request in c.to_server():
        answer = c.answer_to(request)
        x = c.exchange_of(request)
        assert content_type(x, upstream=True) == "application/json"
        assert content_type(x) == "text/event-stream"
        assert x.response_body == b"event: message\r\ndata: " + (x.upstream_response_body or b"") + b"\r\n\r\n"
        assert applied_records(x, "json-to-sse") == [{"kind": "json-to-sse", "index": 0}]
        assert not x.streamed
        assert answer.text == (x.upstream_response_body or b"").decode()  # the data is the server's JSON, unchanged
        assert (answer.sse_idx, answer.upstream_text, answer.mutation) == (0, None, "json-to-sse")

    assert_exchanges_complete(c)
    assert unexplained_anomalies(c) == []
    assert_server_got_what_was_forwarded(c, sdk_server)


def test_json_to_sse_records_the_sse_event_it_synthesised_for_each_reply(json_to_sse_session: Captured) -> None:
    """Regression: each message's sse_idx must name a recorded SSE event (json-to-sse once wrote none)."""
    c = json_to_sse_session
    for m in c.messages:
        if m.sse_idx is not None:
            events = [e for e in c.sse_events if e.flow_id == m.flow_id and e.idx == m.sse_idx]
            assert [(e.kind, e.client_raw) for e in events] == [("event", c.exchange_of(m).response_body)]


def test_sse_hold_keeps_the_sdk_client_waiting_on_proxy_keepalives_then_delivers_the_real_reply(
    sdk_server: SdkServer, tmp_path: Path
) -> None:
    c = capture_session(sdk_server, tmp_path, "hold", PLANS["hold"], call_repo_status)

    version, result = c.outcome
    assert (version, text_of(result)) == (MODERN, REPO_TEXT)

    assert [m.method for m in c.to_server()] == ["server/discover", "tools/call", "tools/list"]
    for request in c.to_server():
        answer = c.answer_to(request)
        x = c.exchange_of(request)
        assert applied_records(x, "hold") == [{"kind": "hold", "index": 0, "as": "sse", "ms": 500}]
        assert x.streamed
        assert content_type(x) == "text/event-stream"
        assert content_type(x, upstream=True) == "application/json"  # what the real server said
        assert x.t_end is not None and x.t_request is not None and x.t_end - x.t_request >= 0.5
        events = sorted((e for e in c.sse_events if e.flow_id == x.flow_id), key=lambda e: e.idx)
        *keepalives, last = events
        # 100 ms keep-alives over a 500 ms hold; under load the one due at 400 ms may coincide with the release
        assert len(keepalives) >= 3
        assert all((e.kind, e.origin, e.client_raw) == ("comment", "proxy", b":\r\n") for e in keepalives)
        assert (last.kind, last.origin) == ("event", "upstream")
        assert last.client_raw == b"event: message\r\ndata: " + (x.upstream_response_body or b"") + b"\r\n\r\n"
        assert answer.sse_idx == last.idx
        assert answer.text == (x.upstream_response_body or b"").decode()
        assert answer.mutation is None

    assert_exchanges_complete(c)
    assert unexplained_anomalies(c) == []
    assert_server_got_what_was_forwarded(c, sdk_server)


def test_scripted_error_on_every_request_fails_the_sdk_clients_discover_and_initialize_with_mcp_error(
    sdk_server: SdkServer, tmp_path: Path
) -> None:
    """With no match the error answers server/discover; the SDK's auto mode then falls back to initialize, which
    gets the same error, and the client raises it. Nothing reaches the real server."""
    c = capture_session(sdk_server, tmp_path, "error", PLANS["error"], lambda url: failure_of(call_repo_status(url)))

    [error] = leaves(c.outcome)
    assert isinstance(error, MCPError)
    assert error.code == -32021
    assert (error.error.message, error.error.data) == (MISSING_CAPABILITY["message"], MISSING_CAPABILITY["data"])

    assert [m.method for m in c.to_server()] == ["server/discover", "initialize"]
    for request in c.to_server():
        answer = c.answer_to(request)
        x = c.exchange_of(request)
        assert answer.kind == "error"
        assert answer.payload == {"jsonrpc": "2.0", "id": request.rpc_id, "error": MISSING_CAPABILITY}
        assert (x.status, x.forwarded, x.upstream_request_body) == (400, False, None)
        assert applied_records(x, "error") == [{"kind": "error", "index": 0, "status": 400, "code": -32021}]
    assert c.received == ()
    assert_exchanges_complete(c)
    assert unexplained_anomalies(c) == []
    assert_server_got_what_was_forwarded(c, sdk_server)


def test_scripted_error_on_tools_call_reaches_the_sdk_client_as_mcp_error_after_a_real_discover(
    sdk_server: SdkServer, tmp_path: Path
) -> None:
    c = capture_session(sdk_server, tmp_path, "error-on-call", PLANS["error-on-call"],
                        lambda url: failure_of(call_repo_status(url)))  # fmt: skip

    [error] = leaves(c.outcome)
    assert isinstance(error, MCPError)
    assert error.code == -32021

    assert [m.method for m in c.to_server()] == ["server/discover", "tools/call"]
    discover, call = c.to_server()
    assert c.answer_to(discover).payload["result"]["supportedVersions"] == [MODERN]
    assert c.answer_to(call).payload == {"jsonrpc": "2.0", "id": call.rpc_id, "error": MISSING_CAPABILITY}
    assert (c.exchange_of(call).status, c.exchange_of(call).forwarded) == (400, False)
    assert c.exchange_of(discover).forwarded
    assert [r.body for r in c.received] == [c.exchange_of(discover).request_body]  # only discover got through
    assert_exchanges_complete(c)
    assert unexplained_anomalies(c) == []
    assert_server_got_what_was_forwarded(c, sdk_server)


# --- 3. legacy mode -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def legacy_session(sdk_server: SdkServer, tmp_path_factory: pytest.TempPathFactory) -> Captured:
    return capture_session(sdk_server, tmp_path_factory.mktemp("legacy"), "legacy", {},
                           lambda url: call_repo_status(url, mode="legacy"))  # fmt: skip


def test_legacy_sdk_client_initializes_and_calls_the_sdk_server_over_sse_through_the_proxy(
    legacy_session: Captured, sdk_server: SdkServer
) -> None:
    c = legacy_session
    version, result = c.outcome
    assert (version, text_of(result)) == (LEGACY, REPO_TEXT)

    assert [m.method for m in c.to_server()] == ["initialize", "notifications/initialized", "tools/call", "tools/list"]
    initialize, initialized, call, listing = c.to_server()
    assert initialize.payload["params"]["protocolVersion"] == LEGACY
    init_answer = c.answer_to(initialize)
    assert init_answer.payload["result"]["protocolVersion"] == LEGACY
    assert init_answer.payload["result"]["serverInfo"]["name"] == "sdk-repo-status"
    session_id = c.exchange_of(initialize).header("mcp-session-id", response=True)
    assert session_id

    assert initialized.kind == "notification"
    assert c.exchange_of(initialized).status == 202
    for request in (initialize, call, listing):
        answer = c.answer_to(request)
        x = c.exchange_of(request)
        assert (x.status, x.streamed, content_type(x)) == (200, True, "text/event-stream")
        [event] = [e for e in c.sse_events if e.flow_id == x.flow_id]
        assert (event.kind, event.origin, event.idx) == ("event", "upstream", 0)
        assert event.client_raw == event.upstream_raw == x.response_body == x.upstream_response_body
        assert event.upstream_raw == b"event: message\r\ndata: " + answer.text.encode() + b"\r\n\r\n"
        assert (answer.sse_idx, answer.upstream_text, answer.mutation) == (0, None, None)
        if request is not initialize:
            assert x.header("mcp-session-id") == session_id
            assert x.header("mcp-protocol-version") == LEGACY
    assert c.answer_to(call).payload["result"]["content"] == [{"type": "text", "text": REPO_TEXT}]

    # the client's standalone GET stream and its DELETE on close are recorded too
    assert sorted(x.method or "" for x in c.exchanges) == ["DELETE", "GET", "POST", "POST", "POST", "POST"]
    [delete] = [x for x in c.exchanges if x.method == "DELETE"]
    assert (delete.status, delete.header("mcp-session-id")) == (200, session_id)
    [get] = [x for x in c.exchanges if x.method == "GET"]
    assert (get.status, content_type(get)) == (200, "text/event-stream")

    assert_messages_match_bodies(c)
    assert_exchanges_complete(c)
    assert unexplained_anomalies(c) == []
    assert_server_got_what_was_forwarded(c, sdk_server)


def test_legacy_standalone_get_stream_ending_without_a_response_is_not_flagged(legacy_session: Captured) -> None:
    """Regression: the GET stream carries no JSON-RPC response by design (it was once flagged sse-without-response)."""
    [get] = [x for x in legacy_session.exchanges if x.method == "GET"]
    unexplained = unexplained_anomalies(legacy_session)  # a shutdown race on it is explained; anything else is not
    assert [a.kind for a in legacy_session.anomalies if a.flow_id == get.flow_id and a in unexplained] == []
