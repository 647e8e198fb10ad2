"""The Python SDK server answers the URL-elicitation scenario's requests the way a 2026-07-28 server must.

Live tests start the real server (`start_server(py_server())`) and POST what a 2026-07-28 client sends: no
handshake, the reserved `_meta` envelope on every request, the routing headers. Responses may be JSON or SSE.
The last section pins what the SDK itself gets wrong (docs/real-servers.md), in process: a fixed SDK makes
those tests fail, which is the cue to drop the workaround and update the docs.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from mcp import UrlElicitationRequiredError
from mcp.server.connection import Connection
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import (
    ClientCapabilities,
    ElicitationCapability,
    ElicitRequest,
    ElicitRequestURLParams,
    InputRequiredResult,
    UrlElicitationCapability,
)

from backchannel.proxy.servers import py_sdk
from backchannel.proxy.servers.launch import py_server, start_server

VERSION = "2026-07-28"
URL_TOOL = "test_url_elicitation"
FORM_TOOL = "test_input_required_result_elicitation"
BOTH: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}}
URL_ONLY: dict[str, Any] = {"elicitation": {"url": {}}}
FORM_ONLY: dict[str, Any] = {"elicitation": {"form": {}}}
BARE: dict[str, Any] = {"elicitation": {}}  # backward compatibility: form mode only
NONE: dict[str, Any] = {}
TIMEOUT_S = 15.0


def _meta(capabilities: dict[str, Any]) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    }


def _headers(method: str, name: str | None) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": method,
    }
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


def _message(response: httpx.Response, request_id: int) -> dict[str, Any]:
    """The JSON-RPC response for `request_id`, from a JSON body or from the events of an SSE stream."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for event in response.text.replace("\r\n", "\n").split("\n\n"):
            data = "\n".join(line[5:].lstrip() for line in event.split("\n") if line.startswith("data:"))
            if data:
                message: dict[str, Any] = json.loads(data)
                if message.get("id") == request_id:
                    return message
        raise AssertionError(f"no response with id {request_id} in the SSE stream: {response.text!r}")
    parsed: dict[str, Any] = response.json()
    return parsed


class Mcp:
    """A 2026-07-28 client's requests, one POST each; answers (HTTP status, JSON-RPC message)."""

    def __init__(self, client: httpx.Client, url: str) -> None:
        self.client = client
        self.url = url
        self.next_id = 0

    def request(
        self, method: str, params: dict[str, Any], capabilities: dict[str, Any], name: str | None = None
    ) -> tuple[int, dict[str, Any]]:
        self.next_id += 1
        body = {
            "jsonrpc": "2.0",
            "id": self.next_id,
            "method": method,
            "params": {**params, "_meta": _meta(capabilities)},
        }
        response = self.client.post(self.url, headers=_headers(method, name), json=body)
        return response.status_code, _message(response, self.next_id)

    def call(
        self, tool: str, capabilities: dict[str, Any], *, retry: dict[str, Any] | None = None
    ) -> tuple[int, dict[str, Any]]:
        return self.request("tools/call", {"name": tool, "arguments": {}, **(retry or {})}, capabilities, tool)

    def ask(self, tool: str, capabilities: dict[str, Any]) -> dict[str, Any]:
        """The first round's InputRequiredResult (asserted)."""
        status, message = self.call(tool, capabilities)
        assert status == 200, message
        result: dict[str, Any] = message["result"]
        assert result["resultType"] == "input_required", result
        return result


def _retry(asked: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """The retry of the one request in `asked`, answered with `answer`, its requestState echoed."""
    (key,) = asked["inputRequests"]
    return {"inputResponses": {key: answer}, "requestState": asked["requestState"]}


def _texts(result: dict[str, Any]) -> str:
    return " ".join(block["text"] for block in result["content"] if block["type"] == "text")


def _missing(status: int, message: dict[str, Any]) -> dict[str, Any]:
    """The requiredCapabilities of a -32021 answered with HTTP 400 (asserted)."""
    assert status == 400, message
    assert message["error"]["code"] == -32021, message
    required: dict[str, Any] = message["error"]["data"]["requiredCapabilities"]
    return required


@pytest.fixture(scope="module")
def mcp() -> Iterator[Mcp]:
    with start_server(py_server()) as server, httpx.Client(timeout=TIMEOUT_S) as client:
        yield Mcp(client, server.url)


# --- discovery -----------------------------------------------------------------------------------------------


@pytest.mark.live
def test_server_discover_answers_for_2026_07_28_with_the_tools_capability(mcp: Mcp) -> None:
    status, message = mcp.request("server/discover", {}, NONE)
    assert status == 200, message
    result = message["result"]
    assert VERSION in result["supportedVersions"]
    assert "tools" in result["capabilities"]
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == py_sdk.SERVER_NAME


@pytest.mark.live
def test_tools_list_lists_both_tools_taking_no_arguments(mcp: Mcp) -> None:
    status, message = mcp.request("tools/list", {}, NONE)
    assert status == 200, message
    tools = {tool["name"]: tool for tool in message["result"]["tools"]}
    assert set(tools) == {URL_TOOL, FORM_TOOL}
    assert all(tool["inputSchema"]["properties"] == {} for tool in tools.values())


# --- test_url_elicitation ------------------------------------------------------------------------------------


@pytest.mark.live
def test_a_client_declaring_both_modes_gets_exactly_one_url_mode_request_with_an_absolute_url(mcp: Mcp) -> None:
    asked = mcp.ask(URL_TOOL, BOTH)
    (request,) = asked["inputRequests"].values()
    assert request["method"] == "elicitation/create"
    params = request["params"]
    assert set(params) == {"mode", "message", "url"}  # no elicitationId: removed at 2026-07-28
    assert params["mode"] == "url" and isinstance(params["message"], str) and params["message"]
    parts = urlsplit(params["url"])
    assert (parts.scheme, bool(parts.netloc), " " in params["url"]) == ("https", True, False)
    assert isinstance(asked["requestState"], str) and asked["requestState"]


@pytest.mark.live
def test_a_client_declaring_url_mode_only_gets_the_url_request(mcp: Mcp) -> None:
    asked = mcp.ask(URL_TOOL, URL_ONLY)
    assert [request["params"]["mode"] for request in asked["inputRequests"].values()] == ["url"]


@pytest.mark.live
@pytest.mark.parametrize(
    "capabilities",
    [BARE, FORM_ONLY, NONE],
    ids=["bare-elicitation-means-form-only", "form-only", "no-elicitation"],
)
def test_a_client_without_url_mode_gets_32021_with_http_400_naming_elicitation_url(
    mcp: Mcp, capabilities: dict[str, Any]
) -> None:
    assert _missing(*mcp.call(URL_TOOL, capabilities)) == {"elicitation": {"url": {}}}


@pytest.mark.live
def test_capabilities_are_read_per_request_so_a_form_only_call_after_a_url_call_is_refused(mcp: Mcp) -> None:
    mcp.ask(URL_TOOL, BOTH)
    assert _missing(*mcp.call(URL_TOOL, BARE)) == {"elicitation": {"url": {}}}
    mcp.ask(URL_TOOL, BOTH)


@pytest.mark.live
def test_an_accepted_url_request_ends_in_a_successful_tool_result(mcp: Mcp) -> None:
    asked = mcp.ask(URL_TOOL, BOTH)
    status, message = mcp.call(URL_TOOL, BOTH, retry=_retry(asked, {"action": "accept"}))
    assert status == 200, message
    result = message["result"]
    assert result["resultType"] == "complete" and result["isError"] is False
    assert "authorized" in _texts(result)


@pytest.mark.live
@pytest.mark.parametrize(("action", "word"), [("decline", "declined"), ("cancel", "cancelled")])
def test_a_declined_or_cancelled_url_request_ends_in_an_error_tool_result_saying_so(
    mcp: Mcp, action: str, word: str
) -> None:
    asked = mcp.ask(URL_TOOL, BOTH)
    status, message = mcp.call(URL_TOOL, BOTH, retry=_retry(asked, {"action": action}))
    assert status == 200, message
    result = message["result"]
    assert result["resultType"] == "complete" and result["isError"] is True
    assert word in _texts(result)


@pytest.mark.live
def test_a_retry_without_an_answer_is_asked_again(mcp: Mcp) -> None:
    asked = mcp.ask(URL_TOOL, BOTH)
    status, message = mcp.call(URL_TOOL, BOTH, retry={"requestState": asked["requestState"]})
    assert status == 200, message
    assert message["result"]["resultType"] == "input_required"
    assert [r["params"]["mode"] for r in message["result"]["inputRequests"].values()] == ["url"]


@pytest.mark.live
def test_a_tampered_request_state_is_rejected_by_the_sdk_seal_with_32602_and_http_400(mcp: Mcp) -> None:
    asked = mcp.ask(URL_TOOL, BOTH)
    retry = _retry(asked, {"action": "accept"})
    retry["requestState"] = asked["requestState"][:-2] + ("AA" if not asked["requestState"].endswith("AA") else "BB")
    status, message = mcp.call(URL_TOOL, BOTH, retry=retry)
    assert (status, message["error"]["code"]) == (400, -32602), message
    assert message["error"]["message"] == "Invalid or expired requestState"


@pytest.mark.live
def test_a_request_state_minted_by_the_other_tool_is_rejected(mcp: Mcp) -> None:
    asked = mcp.ask(URL_TOOL, BOTH)
    status, message = mcp.call(FORM_TOOL, BOTH, retry=_retry(asked, {"action": "accept"}))
    assert (status, message["error"]["code"]) == (400, -32602), message


# --- test_input_required_result_elicitation ------------------------------------------------------------------


@pytest.mark.live
@pytest.mark.parametrize("capabilities", [BOTH, FORM_ONLY, BARE], ids=["both", "form-only", "bare-elicitation"])
def test_a_client_with_form_mode_gets_one_form_request_for_a_boolean_confirmed(
    mcp: Mcp, capabilities: dict[str, Any]
) -> None:
    asked = mcp.ask(FORM_TOOL, capabilities)
    (request,) = asked["inputRequests"].values()
    assert request["method"] == "elicitation/create"
    params = request["params"]
    assert params["mode"] == "form" and params["message"]
    schema = params["requestedSchema"]
    assert schema["type"] == "object" and list(schema["properties"]) == ["confirmed"]
    assert schema["properties"]["confirmed"]["type"] == "boolean"


@pytest.mark.live
@pytest.mark.parametrize("capabilities", [URL_ONLY, NONE], ids=["url-only", "no-elicitation"])
def test_a_client_without_form_mode_gets_32021_with_http_400_naming_elicitation_form(
    mcp: Mcp, capabilities: dict[str, Any]
) -> None:
    assert _missing(*mcp.call(FORM_TOOL, capabilities)) == {"elicitation": {"form": {}}}


@pytest.mark.live
@pytest.mark.parametrize("confirmed", [True, False])
def test_an_accepted_form_ends_in_a_tool_result_echoing_the_content(mcp: Mcp, confirmed: bool) -> None:
    asked = mcp.ask(FORM_TOOL, FORM_ONLY)
    answer = {"action": "accept", "content": {"confirmed": confirmed}}
    status, message = mcp.call(FORM_TOOL, FORM_ONLY, retry=_retry(asked, answer))
    assert status == 200, message
    result = message["result"]
    assert result["resultType"] == "complete" and result["isError"] is False
    assert f"confirmed={str(confirmed).lower()}" in _texts(result)


@pytest.mark.live
@pytest.mark.parametrize(("action", "word"), [("decline", "declined"), ("cancel", "cancelled")])
def test_a_declined_or_cancelled_form_ends_in_an_error_tool_result_saying_so(mcp: Mcp, action: str, word: str) -> None:
    asked = mcp.ask(FORM_TOOL, BOTH)
    status, message = mcp.call(FORM_TOOL, BOTH, retry=_retry(asked, {"action": action}))
    assert status == 200, message
    result = message["result"]
    assert result["resultType"] == "complete" and result["isError"] is True
    assert word in _texts(result)


@pytest.mark.live
def test_no_response_in_the_scenario_carries_the_retired_32042_error(mcp: Mcp) -> None:
    answers = [mcp.call(URL_TOOL, caps) for caps in (BOTH, BARE, FORM_ONLY, URL_ONLY, NONE)]
    answers += [mcp.call(FORM_TOOL, caps) for caps in (BOTH, URL_ONLY, NONE)]
    assert all(message.get("error", {}).get("code") != -32042 for _, message in answers)


# --- what the SDK gets wrong (docs/real-servers.md), reproduced in process ----------------------------------


def _url_capability() -> ClientCapabilities:
    return ClientCapabilities(elicitation=ElicitationCapability(url=UrlElicitationCapability()))


@pytest.mark.parametrize("declared", [BARE, FORM_ONLY], ids=["bare-elicitation", "form-only"])
def test_the_sdk_capability_check_says_a_form_only_client_supports_url_mode(declared: dict[str, Any]) -> None:
    """SDK bug (docs/real-servers.md): `check_client_capability` compares only `elicitation`'s presence, not its modes.

    `Connection.check_capability` (mcp/server/connection.py:475, reached through
    `ServerSession.check_client_capability`) answers True for `elicitation.url` when the client declared
    `elicitation: {}` or `{"form": {}}`; a server gating on it would send URL requests to form-only clients
    (the spec: "Servers MUST NOT send elicitation requests with modes that are not supported by the client").
    py_sdk.py therefore reads `ctx.client_capabilities.elicitation.url` itself. Fixed SDK: this test fails.
    """
    connection = Connection.from_envelope(VERSION, {"name": "t", "version": "1"}, declared)
    assert connection.check_capability(_url_capability()) is True
    assert py_sdk._declares_url_mode(connection.client_capabilities) is False


async def _post_in_process(server: MCPServer, tool: str, capabilities: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """One 2026-07-28 tools/call to the SDK's own streamable-HTTP app, in process (no socket, no subprocess)."""
    app = server.streamable_http_app(host=py_sdk.HOST, transport_security=py_sdk.SECURITY)
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": _meta(capabilities)},
    }
    async with asyncio.timeout(TIMEOUT_S), app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:9") as client:
            response = await client.post("/mcp", headers=_headers("tools/call", tool), json=body)
            return response.status_code, _message(response, 1)


def test_the_sdk_sends_a_hand_built_url_request_to_a_client_that_declared_form_mode_only() -> None:
    """SDK gap (docs/real-servers.md): nothing gates the input requests a tool body returns against the declared modes.

    The SDK gates only what its resolvers ask (`Elicit` renders form mode only, mcp/server/mcpserver/resolve.py:109
    and :711; the gate is the private `_require_capability`, :673). A URL-mode question must be a hand-built
    `InputRequiredResult`, which Tool.run (mcp/server/mcpserver/tools/base.py:179) and the request-state boundary
    (mcp/server/request_state.py:412) pass through unchecked, so the SDK's own MRTR example shape sends URL mode to
    `elicitation: {}` with HTTP 200. py_sdk.py gates by hand. Fixed SDK (a 400/-32021 here): this test fails.
    """
    server = MCPServer("ungated")

    @server.tool()
    async def ungated(ctx: Context) -> InputRequiredResult:
        ask = ElicitRequest(params=ElicitRequestURLParams(message="m", url=py_sdk.ELICITATION_URL))
        return InputRequiredResult(input_requests={"k": ask}, request_state="s")

    status, message = asyncio.run(_post_in_process(server, "ungated", BARE))
    assert status == 200, message
    assert message["result"]["inputRequests"]["k"]["params"]["mode"] == "url"


def test_the_sdk_emits_the_retired_32042_error_on_a_2026_07_28_request() -> None:
    """SDK bug (docs/real-servers.md): `mcp.UrlElicitationRequiredError` still puts -32042 on a 2026-07-28 wire.

    The spec (basic/index, error codes): "Implementations of this protocol version MUST NOT emit these codes: ...
    -32042 — URL elicitation required (2025-11-25 only)". The class is exported from `mcp` (mcp/__init__.py:71,
    mcp/shared/exceptions.py:74) and Tool.run re-raises every MCPError as-is, whatever the negotiated version; the
    answer is -32042 with HTTP 200. A server ported from 2025-11-25 keeps emitting it. Fixed SDK: this test fails.
    """
    server = MCPServer("ported")

    @server.tool()
    async def ported() -> str:
        raise UrlElicitationRequiredError([ElicitRequestURLParams(message="m", url=py_sdk.ELICITATION_URL)])

    status, message = asyncio.run(_post_in_process(server, "ported", BOTH))
    assert (status, message["error"]["code"]) == (200, -32042), message
