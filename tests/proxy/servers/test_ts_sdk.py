"""The TypeScript SDK v2 server answers the URL-mode elicitation scenario's calls the way 2026-07-28 requires.

The server (proxy/servers/node/ts_sdk_server.mjs, installed by scripts/install-clients) is driven with plain httpx
exactly as a 2026-07-28 client would drive it: one POST per request, the standard headers, and the `_meta` envelope
declaring the client's capabilities per request. Where the SDK deviates from the spec, a test named for the deviation
asserts what it does today (docs/real-servers.md describes each), so an SDK fix makes that test fail loudly.

2025-era clients (an `initialize` handshake) get a sessionful legacy session instead: the same tools' input requests
reach them as server-initiated `elicitation/create` requests on the tools/call POST's SSE stream, and the tool ends
with the client's answer. Those tests drive the Python SDK driver in `--mode legacy` through `backchannel record
--upstream` and read the recording, or speak the 2025 wire with httpx where they need a session by hand.

Without the install these tests fail rather than skip: a silent skip would hide a broken install.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from backchannel.oracle.terminal import raw_bytes
from backchannel.proxy.clients.drivers.paths import repo_root
from backchannel.proxy.servers.launch import ServerProcess, start_server
from backchannel.proxy.servers.paths import node_server
from backchannel.recordings import Message, Recording, load
from tests.in_process import record_upstream

pytestmark = pytest.mark.live

PROTOCOL = "2026-07-28"
READY_TIMEOUT_S = 20
HTTP_TIMEOUT_S = 10
# every request here is plain HTTP to 127.0.0.1; without a context of its own each top-level httpx call builds one,
# loading the CA bundle (about 60 ms of CPU per request: most of the session-cap test's time). One, built once.
TLS = ssl.create_default_context()
STOP_TIMEOUT_S = 10
URL_TOOL = "test_url_elicitation"
FORM_TOOL = "test_input_required_result_elicitation"
BOTH: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}}
URL_ONLY: dict[str, Any] = {"elicitation": {"url": {}}}
FORM_ONLY: dict[str, Any] = {"elicitation": {"form": {}}}
BARE: dict[str, Any] = {"elicitation": {}}
NONE: dict[str, Any] = {}
LEGACY = "2025-11-25"
LEGACY_SESSIONS_CAP = 64  # MAX_LEGACY_SESSIONS in the server
LEGACY_DRIVER = [sys.executable, "-m", "backchannel.proxy.clients.drivers.py_sdk", "--mode", "legacy"]


def ts_server() -> list[str]:
    found = node_server()
    if found is None:
        pytest.fail("the TypeScript SDK server is not installed (or node is not on PATH): run scripts/install-clients")
    return found


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with start_server(ts_server(), timeout=READY_TIMEOUT_S) as started:
        yield started


@dataclass
class Reply:
    status: int
    message: dict[str, Any]

    @property
    def result(self) -> dict[str, Any]:
        assert "result" in self.message, f"expected a result, got {self.message}"
        result: dict[str, Any] = self.message["result"]
        return result

    @property
    def error(self) -> dict[str, Any]:
        assert "error" in self.message, f"expected an error, got {self.message}"
        error: dict[str, Any] = self.message["error"]
        return error


def parse_body(response: httpx.Response) -> dict[str, Any]:
    """The one JSON-RPC response in a JSON body, or the last `data:` event carrying one on an SSE stream."""
    kind = response.headers.get("content-type", "")
    if kind.startswith("text/event-stream"):
        found: dict[str, Any] | None = None
        for event in response.text.replace("\r\n", "\n").split("\n\n"):
            data = "\n".join(line[5:].lstrip() for line in event.split("\n") if line.startswith("data:"))
            if data:
                event_message: dict[str, Any] = json.loads(data)
                if "result" in event_message or "error" in event_message:
                    found = event_message
        assert found is not None, f"no JSON-RPC response on the SSE stream: {response.text!r}"
        return found
    assert kind.startswith("application/json"), f"unexpected content type {kind!r}: {response.text!r}"
    message: dict[str, Any] = response.json()
    return message


_ids = iter(range(1, 1_000_000))


def rpc(url: str, method: str, params: dict[str, Any], caps: dict[str, Any], name: str | None = None) -> Reply:
    meta = {
        "io.modelcontextprotocol/protocolVersion": PROTOCOL,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    }
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": PROTOCOL,
        "Mcp-Method": method,
    }
    if name is not None:
        headers["Mcp-Name"] = name
    body = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": {**params, "_meta": meta}}
    response = httpx.post(url, json=body, headers=headers, timeout=HTTP_TIMEOUT_S, verify=TLS)
    return Reply(response.status_code, parse_body(response))


def call(url: str, tool: str, caps: dict[str, Any], **retry: Any) -> Reply:
    return rpc(url, "tools/call", {"name": tool, "arguments": {}, **retry}, caps, name=tool)


def only_request(result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    assert result.get("resultType") == "input_required", result
    requests = result.get("inputRequests")
    assert isinstance(requests, dict) and len(requests) == 1, result
    [(key, request)] = requests.items()
    assert request["method"] == "elicitation/create", request
    params: dict[str, Any] = request["params"]
    return key, params


def assert_missing_capability(reply: Reply, required: dict[str, Any]) -> None:
    assert reply.status == 400, reply
    assert reply.error["code"] == -32021, reply
    assert reply.error["data"]["requiredCapabilities"] == required, reply


def assert_tool_result(reply: Reply, *, is_error: bool) -> None:
    assert reply.status == 200, reply
    result = reply.result
    assert result.get("resultType", "complete") == "complete", result
    assert isinstance(result.get("content"), list) and result["content"], result
    assert all(block.get("type") == "text" and isinstance(block.get("text"), str) for block in result["content"])
    assert bool(result.get("isError", False)) is is_error, result


# --- the process -------------------------------------------------------------------------------------------------


def test_the_installed_server_is_the_one_in_the_repository() -> None:
    # install-clients copies the script next to its node_modules; an edit not re-installed would test a stale copy
    installed = Path(ts_server()[1])
    root = repo_root()
    assert root is not None
    source = root / "proxy" / "servers" / "node" / "ts_sdk_server.mjs"
    assert installed.read_bytes() == source.read_bytes(), "stale copy: run scripts/install-clients again"


def test_the_server_announces_a_loopback_mcp_url(server: ServerProcess) -> None:
    parts = urlsplit(server.url)
    assert (parts.scheme, parts.hostname, parts.path) == ("http", "127.0.0.1", "/mcp")
    assert parts.port is not None and parts.port > 0


def test_the_server_exits_0_on_sigterm() -> None:
    with start_server(ts_server(), timeout=READY_TIMEOUT_S) as started:
        os.kill(started.pid, signal.SIGTERM)
        assert started.wait(STOP_TIMEOUT_S) == 0


def test_the_server_exits_0_when_its_stdin_reaches_eof() -> None:
    # start_server's stop() closes stdin and signals at once, so this one start is by hand: READY, then EOF alone
    proc = subprocess.Popen(ts_server(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        stdout = proc.stdout
        lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
        assert lines.get(timeout=READY_TIMEOUT_S).startswith(b"READY http://127.0.0.1:")  # the first line is READY
        proc.stdin.close()
        assert proc.wait(timeout=STOP_TIMEOUT_S) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=STOP_TIMEOUT_S)
        if proc.stdout is not None:
            proc.stdout.close()


def test_a_bad_port_argument_is_a_usage_error() -> None:
    proc = subprocess.run(
        [*ts_server(), "--port", "nope"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=READY_TIMEOUT_S,
    )
    assert proc.returncode == 2
    assert "--port" in proc.stderr and proc.stdout == ""


# --- discovery ---------------------------------------------------------------------------------------------------


def test_server_discover_offers_2026_07_28_and_the_tools_capability(server: ServerProcess) -> None:
    reply = rpc(server.url, "server/discover", {}, NONE)
    assert reply.status == 200
    assert PROTOCOL in reply.result["supportedVersions"]
    assert "tools" in reply.result["capabilities"]


def test_tools_list_lists_both_elicitation_tools(server: ServerProcess) -> None:
    reply = rpc(server.url, "tools/list", {}, NONE)
    assert reply.status == 200
    assert {tool["name"] for tool in reply.result["tools"]} >= {URL_TOOL, FORM_TOOL}


# --- test_url_elicitation ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("caps", [BOTH, URL_ONLY], ids=["both-modes", "url-only"])
def test_the_url_tool_asks_for_exactly_one_url_mode_request_with_a_request_state(
    server: ServerProcess, caps: dict[str, Any]
) -> None:
    reply = call(server.url, URL_TOOL, caps)
    assert reply.status == 200
    _, params = only_request(reply.result)
    assert params["mode"] == "url"
    assert isinstance(params["message"], str) and params["message"]
    url = urlsplit(params["url"])
    assert url.scheme == "https" and url.hostname and " " not in params["url"]
    assert isinstance(reply.result.get("requestState"), str) and reply.result["requestState"]


@pytest.mark.parametrize("caps", [BARE, FORM_ONLY, NONE], ids=["bare-elicitation", "form-only", "no-elicitation"])
def test_the_url_tool_answers_32021_http_400_naming_elicitation_url_to_a_client_without_url_mode(
    server: ServerProcess, caps: dict[str, Any]
) -> None:
    assert_missing_capability(call(server.url, URL_TOOL, caps), {"elicitation": {"url": {}}})


def test_capabilities_are_read_per_request_so_a_form_only_call_after_a_both_modes_call_is_refused(
    server: ServerProcess,
) -> None:
    only_request(call(server.url, URL_TOOL, BOTH).result)
    assert_missing_capability(call(server.url, URL_TOOL, BARE), {"elicitation": {"url": {}}})


def url_retry(server: ServerProcess, action: str) -> Reply:
    first = call(server.url, URL_TOOL, BOTH).result
    key, _ = only_request(first)
    return call(
        server.url, URL_TOOL, BOTH, inputResponses={key: {"action": action}}, requestState=first["requestState"]
    )


def test_the_url_tool_retried_with_accept_returns_a_tool_result(server: ServerProcess) -> None:
    assert_tool_result(url_retry(server, "accept"), is_error=False)


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_the_url_tool_retried_with_decline_or_cancel_returns_an_is_error_tool_result(
    server: ServerProcess, action: str
) -> None:
    reply = url_retry(server, action)
    assert_tool_result(reply, is_error=True)
    assert action in reply.result["content"][0]["text"]


def test_a_tampered_request_state_is_rejected_with_invalid_params_before_the_tool_runs(server: ServerProcess) -> None:
    first = call(server.url, URL_TOOL, BOTH).result
    key, _ = only_request(first)
    tampered = first["requestState"][:-2] + ("AA" if not first["requestState"].endswith("AA") else "BB")
    reply = call(server.url, URL_TOOL, BOTH, inputResponses={key: {"action": "accept"}}, requestState=tampered)
    assert reply.error["code"] == -32602


# --- test_input_required_result_elicitation ----------------------------------------------------------------------


@pytest.mark.parametrize("caps", [BOTH, FORM_ONLY, BARE], ids=["both-modes", "form-only", "bare-elicitation"])
def test_the_form_tool_asks_for_exactly_one_form_request_with_a_boolean_confirmed(
    server: ServerProcess, caps: dict[str, Any]
) -> None:
    reply = call(server.url, FORM_TOOL, caps)
    assert reply.status == 200
    _, params = only_request(reply.result)
    assert params["mode"] == "form"
    assert isinstance(params["message"], str) and params["message"]
    schema = params["requestedSchema"]
    assert schema["type"] == "object" and schema["properties"]["confirmed"]["type"] == "boolean"


def test_the_form_tool_answers_32021_http_400_naming_elicitation_form_to_a_url_only_client(
    server: ServerProcess,
) -> None:
    reply = call(server.url, FORM_TOOL, URL_ONLY)
    assert_missing_capability(reply, {"elicitation": {"form": {}}})
    assert "inputRequests" not in json.dumps(reply.message)


def form_retry(server: ServerProcess, answer: dict[str, Any]) -> Reply:
    first = call(server.url, FORM_TOOL, FORM_ONLY).result
    key, _ = only_request(first)
    retry: dict[str, Any] = {"inputResponses": {key: answer}}
    if "requestState" in first:
        retry["requestState"] = first["requestState"]
    return call(server.url, FORM_TOOL, FORM_ONLY, **retry)


def test_the_form_tool_retried_with_accept_returns_a_tool_result(server: ServerProcess) -> None:
    reply = form_retry(server, {"action": "accept", "content": {"confirmed": True}})
    assert_tool_result(reply, is_error=False)


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_the_form_tool_retried_with_decline_or_cancel_returns_an_is_error_tool_result(
    server: ServerProcess, action: str
) -> None:
    reply = form_retry(server, {"action": action})
    assert_tool_result(reply, is_error=True)
    assert action in reply.result["content"][0]["text"]


def test_the_form_tool_asks_again_when_the_accepted_content_does_not_fit_its_schema(server: ServerProcess) -> None:
    reply = form_retry(server, {"action": "accept", "content": {"confirmed": "yes"}})
    assert reply.status == 200
    assert only_request(reply.result)[1]["mode"] == "form"


def test_no_response_in_the_scenario_carries_the_removed_32042_error(server: ServerProcess) -> None:
    replies = [call(server.url, tool, caps) for tool in (URL_TOOL, FORM_TOOL) for caps in (BOTH, BARE, URL_ONLY, NONE)]
    assert all("-32042" not in json.dumps(reply.message) for reply in replies)


# --- SDK deviations (docs/real-servers.md) -----------------------------------------------------------------------


def test_sdk_deviation_a_non_object_input_responses_is_treated_as_absent_instead_of_rejected(
    server: ServerProcess,
) -> None:
    """SHOULD-level: the spec's MRTR Error Handling says servers SHOULD validate that `inputResponses` is a valid
    InputResponses object and SHOULD answer invalid schema with a JSON-RPC error. The SDK lifts `inputResponses`
    out of params before validating them and drops a non-object silently (core-internal
    src/shared/inputRequiredEngine.ts, partitionInputResponses), so the tool just asks again.
    See docs/real-servers.md. When the SDK starts rejecting it, this test fails: update the doc and the test."""
    reply = call(server.url, URL_TOOL, BOTH, inputResponses="not an object")
    assert reply.status == 200
    assert only_request(reply.result)[1]["mode"] == "url"


def test_sdk_deviation_an_elicitation_declaration_naming_no_known_mode_is_sent_form_mode(server: ServerProcess) -> None:
    """The spec makes only an EMPTY `elicitation: {}` mean form mode; the SDK treats any declaration naming
    neither `form` nor `url` (here `{"foo": {}}`) as form mode too (missingClientCapabilities /
    isImpliedCapabilityMember in core-internal), and sends a form request.
    See docs/real-servers.md. When the SDK tightens this, this test fails: update the doc and the test."""
    reply = call(server.url, FORM_TOOL, {"elicitation": {"foo": {}}})
    assert reply.status == 200
    assert only_request(reply.result)[1]["mode"] == "form"


# --- 2025-era clients: a sessionful legacy session ---------------------------------------------------------------


@dataclass
class LegacyRun:
    """One `backchannel record --upstream` run of the Python SDK driver in `--mode legacy`, calling one tool."""

    recording: Recording
    stdout: str

    @property
    def messages(self) -> list[Message]:
        return list(self.recording.messages)

    @property
    def tool(self) -> str:
        name: str = self.one("to-server", "request", "tools/call").payload["params"]["name"]
        return name

    def one(self, direction: str, kind: str, method: str | None) -> Message:
        found = [m for m in self.messages if (m.direction, m.kind, m.method) == (direction, kind, method)]
        assert len(found) == 1, [(m.direction, m.kind, m.method) for m in self.messages]
        return found[0]


def record_legacy_run(server: ServerProcess, tool: str, out: Path) -> LegacyRun:
    """`backchannel record --upstream`, in this process (tests/in_process.py): the driver, mitmdump and the server
    are real processes; what is recorded is the subject, not the CLI's own start."""
    record_upstream(server.url, [*LEGACY_DRIVER, "--tool", tool, "{url}"], out, timeout=30)
    recording = load(out)
    (run,) = recording.runs
    assert (run.outcome, run.exit_code) == ("exited", 0), run
    return LegacyRun(recording, raw_bytes(recording, run.id, "stdout").decode())


@pytest.fixture(scope="module", params=[FORM_TOOL, URL_TOOL], ids=["form", "url"])
def legacy_run(
    request: pytest.FixtureRequest, server: ServerProcess, tmp_path_factory: pytest.TempPathFactory
) -> LegacyRun:
    tool: str = request.param
    return record_legacy_run(server, tool, tmp_path_factory.mktemp("legacy") / f"{tool}.sqlite")


def test_a_2025_11_25_client_gets_a_session_from_its_initialize(legacy_run: LegacyRun) -> None:
    initialize = legacy_run.one("to-server", "request", "initialize")
    assert initialize.payload["params"]["protocolVersion"] == LEGACY
    assert legacy_run.one("to-client", "response", "initialize").payload["result"]["protocolVersion"] == LEGACY
    opened = next(e for e in legacy_run.recording.exchanges if e.flow_id == initialize.flow_id)
    assert any(name.lower() == "mcp-session-id" and value for name, value in opened.response_headers)


def test_a_2025_11_25_client_is_asked_by_a_server_initiated_elicitation_on_the_tools_call_stream(
    legacy_run: LegacyRun,
) -> None:
    call = legacy_run.one("to-server", "request", "tools/call")
    ask = legacy_run.one("to-client", "request", "elicitation/create")
    assert ask.flow_id == call.flow_id and ask.sse_idx is not None  # on the POST's own SSE stream, not a GET stream
    params = ask.payload["params"]
    assert isinstance(params["message"], str) and params["message"]
    if legacy_run.tool == URL_TOOL:
        assert params["mode"] == "url" and urlsplit(params["url"]).scheme == "https"
        assert isinstance(params["elicitationId"], str) and params["elicitationId"]  # 2025-11-25 URL mode needs one
    else:
        assert params.get("mode", "form") == "form"
        assert params["requestedSchema"]["properties"]["confirmed"]["type"] == "boolean"


def test_the_tool_completes_with_the_answer_the_2025_11_25_client_gave(legacy_run: LegacyRun) -> None:
    ask = legacy_run.one("to-client", "request", "elicitation/create")
    answers = [m for m in legacy_run.messages if m.direction == "to-server" and m.kind == "response"]
    assert [m.rpc_id for m in answers] == [ask.rpc_id]
    assert answers[0].payload["result"]["action"] == "accept"
    done = legacy_run.one("to-client", "response", "tools/call")
    assert done.seq > answers[0].seq
    result = done.payload["result"]
    assert not result.get("isError", False) and "accepted" in result["content"][0]["text"], result
    assert "resultType" not in result and "inputRequests" not in result  # no 2026-07-28 shape on a 2025 session
    assert f"result {legacy_run.tool}: " in legacy_run.stdout and "accepted" in legacy_run.stdout


class LegacySession:
    """A 2025-era session spoken by hand with httpx (to pin a version, or to hold many sessions at once)."""

    HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

    def __init__(self, url: str, version: str = LEGACY, caps: dict[str, Any] | None = None) -> None:
        self.url = url
        body = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": caps or {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        response = httpx.post(url, json=body, headers=self.HEADERS, timeout=HTTP_TIMEOUT_S, verify=TLS)
        assert response.status_code == 200, response.text
        self.id = response.headers["mcp-session-id"]
        self.version = parse_body(response)["result"]["protocolVersion"]
        self.headers = {**self.HEADERS, "Mcp-Session-Id": self.id, "MCP-Protocol-Version": self.version}
        initialized = httpx.post(
            url,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=self.headers,
            timeout=HTTP_TIMEOUT_S,
            verify=TLS,
        )
        assert initialized.status_code == 202, initialized.text

    def post(self, body: dict[str, Any], headers: dict[str, str] | None = None) -> httpx.Response:
        return httpx.post(self.url, json=body, headers=headers or self.headers, timeout=HTTP_TIMEOUT_S, verify=TLS)

    def call(self, tool: str, answer: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Call a tool on the session's SSE stream, answering each server request with `answer`: (asked, result)."""
        asked: list[dict[str, Any]] = []
        body = {"jsonrpc": "2.0", "id": next(_ids), "method": "tools/call", "params": {"name": tool, "arguments": {}}}
        with httpx.stream(
            "POST", self.url, json=body, headers=self.headers, timeout=HTTP_TIMEOUT_S, verify=TLS
        ) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream"), stream.headers
            buffered = ""
            for chunk in stream.iter_text():
                buffered += chunk.replace("\r\n", "\n")
                while "\n\n" in buffered:
                    event, buffered = buffered.split("\n\n", 1)
                    data = "\n".join(line[5:].lstrip() for line in event.split("\n") if line.startswith("data:"))
                    if not data:
                        continue
                    message: dict[str, Any] = json.loads(data)
                    if "method" in message and "id" in message:
                        asked.append(message)
                        reply = self.post({"jsonrpc": "2.0", "id": message["id"], "result": answer})
                        assert reply.status_code == 202, reply.text
                    elif message.get("id") == body["id"]:
                        assert "result" in message, message
                        return asked, message["result"]
        raise AssertionError(f"the stream ended without the tools/call result; asked: {asked}")


def test_a_2025_06_18_client_gets_the_form_as_a_server_request_and_the_tool_completes_with_its_answer(
    server: ServerProcess,
) -> None:
    session = LegacySession(server.url, "2025-06-18", {"elicitation": {}})
    assert session.version == "2025-06-18"
    asked, result = session.call(FORM_TOOL, {"action": "accept", "content": {"confirmed": True}})
    assert [m["method"] for m in asked] == ["elicitation/create"]
    assert asked[0]["params"]["requestedSchema"]["properties"]["confirmed"]["type"] == "boolean"
    assert not result.get("isError", False) and "confirmed=true" in result["content"][0]["text"], result


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_2025_client_declining_or_cancelling_ends_the_tool_with_is_error_saying_so(
    server: ServerProcess, action: str
) -> None:
    session = LegacySession(server.url, caps={"elicitation": {"form": {}, "url": {}}})
    asked, result = session.call(FORM_TOOL, {"action": action})
    assert len(asked) == 1
    assert result.get("isError") is True and action in result["content"][0]["text"], result


def test_a_2025_session_without_url_mode_is_not_sent_a_url_request_and_the_tool_says_why(server: ServerProcess) -> None:
    # the SDK's legacy shim checks each input request against what `initialize` declared before anything is sent
    session = LegacySession(server.url, caps={"elicitation": {"form": {}}})
    asked, result = session.call(URL_TOOL, {"action": "accept"})
    assert asked == []
    assert result.get("isError") is True and "did not declare the required capability" in result["content"][0]["text"]


def test_a_request_naming_an_unknown_session_gets_404_session_not_found(server: ServerProcess) -> None:
    session = LegacySession(server.url)
    response = session.post(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers={**session.headers, "Mcp-Session-Id": "no-such"}
    )
    assert response.status_code == 404 and response.json()["error"]["code"] == -32001


def test_a_deleted_session_is_gone(server: ServerProcess) -> None:
    session = LegacySession(server.url)
    assert session.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).status_code == 200
    assert httpx.delete(server.url, headers=session.headers, timeout=HTTP_TIMEOUT_S).status_code == 200
    assert session.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).status_code == 404


def test_a_2025_request_outside_any_session_is_still_served_statelessly_and_cannot_be_asked_for_input(
    server: ServerProcess,
) -> None:
    # no initialize, no Mcp-Session-Id: the SDK's legacyStatelessFallback answers it, as createMcpHandler did before
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": FORM_TOOL, "arguments": {}}}
    response = httpx.post(server.url, json=body, headers=LegacySession.HEADERS, timeout=HTTP_TIMEOUT_S, verify=TLS)
    assert response.status_code == 200
    result = parse_body(response)["result"]
    assert result.get("isError") is True and "per-request legacy serving" in result["content"][0]["text"]
    stream = httpx.get(server.url, headers={"Accept": "text/event-stream"}, timeout=HTTP_TIMEOUT_S, verify=TLS)
    assert stream.status_code == 405  # a session operation outside a session


def test_live_legacy_sessions_are_capped_and_the_oldest_are_closed_first() -> None:
    # a server of its own: filling the cap would close the shared server's sessions under other tests
    with start_server(ts_server(), timeout=READY_TIMEOUT_S) as own:
        sessions = [LegacySession(own.url) for _ in range(LEGACY_SESSIONS_CAP + 3)]
        statuses = [s.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).status_code for s in sessions]
        assert statuses == [404] * 3 + [200] * LEGACY_SESSIONS_CAP
