"""The scripted endpoint over real HTTP: routing, wire errors, both eras, holds, SSE and the server wrapper."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import statistics
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backchannel.proxy.endpoint.app import build_app
from backchannel.proxy.endpoint.server import RunningEndpoint, start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig, ToolCall, ToolReply, ToolSet, ToolSpec
from backchannel.proxy.endpoint.wire import KEEPALIVE, MAX_BODY_BYTES, decode_header_value
from backchannel.proxy.scenarios.registry import all_scenarios

MODERN = "2026-07-28"
PV = "io.modelcontextprotocol/protocolVersion"
CC = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
INSTRUCTIONS = "Call get_repo_status to see a repository's state."  # as configured in conftest.py
REPO_TEXT = "repo x: branch main, clean, 0 ahead / 0 behind"
MODERN_ERROR_CODES = {-32020, -32021, -32022}


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=5) as http:
        yield http


def rpc(method: str, params: dict[str, Any] | None = None, *, request_id: object = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def modern_params(extra: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    return {**(extra or {}), "_meta": {PV: MODERN, CC: {}, **meta}}


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {"mcp-protocol-version": MODERN, "mcp-method": method}
    if name is not None:
        headers["mcp-name"] = name
    return headers


def post_modern(client: httpx.Client, url: str, method: str, extra: dict[str, Any] | None = None) -> httpx.Response:
    name = (extra or {}).get("name")
    return client.post(url, json=rpc(method, modern_params(extra)), headers=modern_headers(method, name))


def call_tool(client: httpx.Client, url: str, name: str, arguments: dict[str, Any] | None = None) -> httpx.Response:
    return post_modern(client, url, "tools/call", {"name": name, "arguments": arguments or {}})


def initialize(client: httpx.Client, url: str, version: str = "2025-11-25", capabilities: Any = None) -> str:
    params = {
        "protocolVersion": version,
        "capabilities": capabilities or {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    response = client.post(url, json=rpc("initialize", params))
    assert response.status_code == 200
    return response.headers["mcp-session-id"]


def error_of(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    assert "result" not in body
    error: dict[str, Any] = body["error"]
    return error


# --- routing -------------------------------------------------------------------------------------------------


def test_get_request_is_refused_with_405(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    response = client.get(endpoint.url)
    assert (response.status_code, response.headers["allow"]) == (405, "POST")


@pytest.mark.parametrize("method", ["PUT", "PATCH", "OPTIONS", "HEAD"])
def test_other_http_methods_are_refused_with_405(endpoint: RunningEndpoint, client: httpx.Client, method: str) -> None:
    assert client.request(method, endpoint.url).status_code == 405


def test_delete_without_live_session_is_refused_with_405(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    assert client.delete(endpoint.url).status_code == 405
    assert client.delete(endpoint.url, headers={"mcp-session-id": "no-such-session"}).status_code == 405


def test_paths_other_than_mcp_answer_404(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    base = endpoint.url.removesuffix("/mcp")
    assert client.post(f"{base}/", json=rpc("server/discover")).status_code == 404
    assert client.post(f"{base}/mcp/extra", json=rpc("server/discover")).status_code == 404


def test_foreign_origin_is_refused_with_403(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    headers = {**modern_headers("server/discover"), "origin": "https://evil.example"}
    response = client.post(endpoint.url, json=rpc("server/discover", modern_params()), headers=headers)
    assert response.status_code == 403
    assert "id" not in response.json()


def test_local_origin_is_served(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    headers = {**modern_headers("server/discover"), "origin": "http://localhost:6274"}
    response = client.post(endpoint.url, json=rpc("server/discover", modern_params()), headers=headers)
    assert response.status_code == 200


# --- malformed bodies ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [b"{not json", b"", b'{"jsonrpc": "2.0", "id": 1, "method": "x", "params": NaN}', b"[" * 200_000],
    ids=["garbage", "empty", "nan", "deeply-nested"],
)
def test_unparseable_body_is_a_parse_error_with_400(
    endpoint: RunningEndpoint, client: httpx.Client, body: bytes
) -> None:
    response = client.post(endpoint.url, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json() == {
        "jsonrpc": "2.0",
        "error": {"code": -32700, "message": response.json()["error"]["message"]},
    }


def test_invalid_utf8_is_a_parse_error_with_400(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"x": "\xff\xfe"}}'
    response = client.post(endpoint.url, content=body, headers={"content-type": "application/json"})
    assert (response.status_code, error_of(response)["code"]) == (400, -32700)


def test_batch_is_refused_with_invalid_request_400(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    response = client.post(endpoint.url, json=[rpc("server/discover", modern_params())])
    assert (response.status_code, error_of(response)["code"]) == (400, -32600)


@pytest.mark.parametrize(
    "message",
    [
        42,
        "text",
        None,
        {"id": 1, "method": "tools/list"},
        {"jsonrpc": "1.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": None, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": True, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 1, "method": 7},
        {"jsonrpc": "2.0", "id": 1, "result": {}},
    ],
    ids=[
        "number",
        "string",
        "null",
        "no-jsonrpc",
        "jsonrpc-1.0",
        "null-id",
        "bool-id",
        "float-id",
        "int-method",
        "response",
    ],
)
def test_message_that_is_not_a_jsonrpc_request_is_invalid_request_400(
    endpoint: RunningEndpoint, client: httpx.Client, message: Any
) -> None:
    response = client.post(endpoint.url, content=json.dumps(message), headers={"content-type": "application/json"})
    assert (response.status_code, error_of(response)["code"]) == (400, -32600)


def test_oversized_body_is_refused_with_413_and_the_endpoint_keeps_serving(
    endpoint: RunningEndpoint, client: httpx.Client
) -> None:
    response = client.post(
        endpoint.url, content=b" " * (MAX_BODY_BYTES + 1), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert post_modern(client, endpoint.url, "server/discover").status_code == 200


def test_notification_is_accepted_with_202_and_empty_body(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    response = client.post(endpoint.url, json={"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}})
    assert (response.status_code, response.content) == (202, b"")


# --- modern era: validation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "missing"),
    [
        (None, [PV, CC]),
        ({}, [PV, CC]),
        ({"_meta": {CC: {}}}, [PV]),
        ({"_meta": {PV: MODERN}}, [CC]),
        ({"_meta": {"progressToken": 1}}, [PV, CC]),
    ],
    ids=["no-params", "no-meta", "no-version", "no-capabilities", "neither"],
)
def test_missing_meta_keys_give_invalid_params_400_naming_each_key(
    endpoint: RunningEndpoint, client: httpx.Client, params: dict[str, Any] | None, missing: list[str]
) -> None:
    response = client.post(endpoint.url, json=rpc("tools/list", params), headers=modern_headers("tools/list"))
    error = error_of(response)
    assert (response.status_code, error["code"]) == (400, -32602)
    assert all(key in error["message"] for key in missing)


def test_unsupported_version_gives_32022_listing_supported_versions(
    endpoint: RunningEndpoint, client: httpx.Client
) -> None:
    params = {"_meta": {PV: "1900-01-01", CC: {}}}
    headers = {"mcp-protocol-version": "1900-01-01", "mcp-method": "tools/list"}
    response = client.post(endpoint.url, json=rpc("tools/list", params, request_id="v"), headers=headers)
    assert response.status_code == 400
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": "v",
        "error": {
            "code": -32022,
            "message": "Unsupported protocol version",
            "data": {"supported": [MODERN], "requested": "1900-01-01"},
        },
    }


@pytest.mark.parametrize(
    "headers",
    [
        {"mcp-method": "tools/call", "mcp-name": "get_repo_status"},
        {"mcp-protocol-version": "2025-11-25", "mcp-method": "tools/call", "mcp-name": "get_repo_status"},
        {"mcp-protocol-version": MODERN, "mcp-name": "get_repo_status"},
        {"mcp-protocol-version": MODERN, "mcp-method": "tools/list", "mcp-name": "get_repo_status"},
        {"mcp-protocol-version": MODERN, "mcp-method": "tools/call"},
        {"mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "other_tool"},
        {"mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "=?base64?!!!?="},
    ],
    ids=["no-version", "version-differs", "no-method", "method-differs", "no-name", "name-differs", "bad-base64"],
)
def test_header_that_is_missing_or_disagrees_with_the_body_gives_32020_with_400(
    endpoint: RunningEndpoint, client: httpx.Client, headers: dict[str, str]
) -> None:
    body = rpc("tools/call", modern_params({"name": "get_repo_status", "arguments": {}}), request_id=9)
    response = client.post(endpoint.url, json=body, headers=headers)
    assert (response.status_code, response.json()["id"], error_of(response)["code"]) == (400, 9, -32020)


def test_base64_sentinel_mcp_name_is_decoded_before_comparison(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    headers = modern_headers("tools/call", "=?base64?Z2V0X3JlcG9fc3RhdHVz?=")
    body = rpc("tools/call", modern_params({"name": "get_repo_status", "arguments": {"repo": "x"}}))
    response = client.post(endpoint.url, json=body, headers=headers)
    assert response.status_code == 200
    assert response.json()["result"]["content"][0]["text"] == REPO_TEXT


@pytest.mark.parametrize(
    ("raw", "decoded"),
    [("plain", "plain"), ("=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界"), ("=?base64?not base64?=", None)],
)
def test_header_values_are_decoded_from_the_base64_sentinel(raw: str, decoded: str | None) -> None:
    assert decode_header_value(raw) == decoded


def test_unknown_method_gives_404_with_32601(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    response = post_modern(client, endpoint.url, "prompts/list")
    assert (response.status_code, error_of(response)["code"]) == (404, -32601)


def test_unknown_tool_gives_32602_with_200(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    response = call_tool(client, endpoint.url, "no_such_tool")
    assert (response.status_code, error_of(response)["code"]) == (200, -32602)


def test_arguments_that_are_not_an_object_give_32602_with_400(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    response = post_modern(client, endpoint.url, "tools/call", {"name": "get_repo_status", "arguments": [1]})
    assert (response.status_code, error_of(response)["code"]) == (400, -32602)


# --- modern era: results -------------------------------------------------------------------------------------


def test_discover_advertises_the_modern_version_tools_and_cache_hints(
    endpoint: RunningEndpoint, client: httpx.Client
) -> None:
    response = post_modern(client, endpoint.url, "server/discover")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "supportedVersions": [MODERN],
            "capabilities": {"tools": {}},
            "instructions": INSTRUCTIONS,
            "ttlMs": 0,
            "cacheScope": "public",
            "resultType": "complete",
            "_meta": {SERVER_INFO: {"name": "backchannel-endpoint", "version": "0.1.0"}},
        },
    }


def test_tools_list_lists_the_default_scenario_with_cache_hints(
    endpoint: RunningEndpoint, client: httpx.Client
) -> None:
    result = post_modern(client, endpoint.url, "tools/list").json()["result"]
    assert result == {
        "tools": [
            {
                "name": "get_repo_status",
                "description": "Show the branch and sync state of a repository.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"repo": {"type": "string", "description": "Repository name.", "default": "demo"}},
                },
                "annotations": {"readOnlyHint": True},
            }
        ],
        "ttlMs": 0,
        "cacheScope": "public",
        "resultType": "complete",
        "_meta": {SERVER_INFO: {"name": "backchannel-endpoint", "version": "0.1.0"}},
    }


@pytest.mark.parametrize(("arguments", "repo"), [({"repo": "x"}, "x"), ({}, "demo")])
def test_get_repo_status_reports_a_clean_repository(
    endpoint: RunningEndpoint, client: httpx.Client, arguments: dict[str, Any], repo: str
) -> None:
    result = call_tool(client, endpoint.url, "get_repo_status", arguments).json()["result"]
    text = f"repo {repo}: branch main, clean, 0 ahead / 0 behind"
    assert result["content"] == [{"type": "text", "text": text}]
    assert result["isError"] is False


@pytest.mark.parametrize(
    ("method", "extra"),
    [("server/discover", None), ("tools/list", None), ("tools/call", {"name": "get_repo_status", "arguments": {}})],
)
def test_every_modern_result_carries_result_type_and_server_info(
    endpoint: RunningEndpoint, client: httpx.Client, method: str, extra: dict[str, Any] | None
) -> None:
    result = post_modern(client, endpoint.url, method, extra).json()["result"]
    assert result["resultType"] == "complete"
    assert result["_meta"][SERVER_INFO] == {"name": "backchannel-endpoint", "version": "0.1.0"}


def test_handler_meta_is_merged_with_server_info(testbed: RunningEndpoint, client: httpx.Client) -> None:
    result = call_tool(client, testbed.url, "with_meta").json()["result"]
    assert result["_meta"] == {SERVER_INFO: {"name": "testbed", "version": "9.9.9"}, "com.example/trace": "t-1"}


def test_input_required_result_keeps_its_result_type_and_the_retry_completes(
    testbed: RunningEndpoint, client: httpx.Client
) -> None:
    first = call_tool(client, testbed.url, "ask").json()["result"]
    assert (first["resultType"], first["requestState"]) == ("input_required", "round-1")
    retry = {"name": "ask", "arguments": {}, "inputResponses": {"k": {"action": "accept"}}, "requestState": "round-1"}
    second = post_modern(client, testbed.url, "tools/call", retry).json()["result"]
    assert second["resultType"] == "complete"
    assert second["content"][0]["text"] == "answered {'k': {'action': 'accept'}}"


def test_modern_tool_call_hands_the_handler_meta_capabilities_and_retry_fields(
    testbed: RunningEndpoint, client: httpx.Client
) -> None:
    extra = {"name": "echo_call", "arguments": {"a": 1}, "requestState": "s", "inputResponses": {"k": {}}}
    params = modern_params(extra, progressToken="tok")
    params["_meta"][CC] = {"elicitation": {"form": {}}}
    body = rpc("tools/call", params, request_id="req-7")
    response = client.post(testbed.url, json=body, headers=modern_headers("tools/call", "echo_call"))
    assert response.json()["result"]["structuredContent"] == {
        "name": "echo_call",
        "arguments": {"a": 1},
        "input_responses": {"k": {}},
        "request_state": "s",
        "protocol_version": MODERN,
        "era": "modern",
        "client_capabilities": {"elicitation": {"form": {}}},
        "progress_token": "tok",
        "request_id": "req-7",
        "mcp_method_header": "tools/call",
    }


def test_reply_error_wins_over_result_with_its_http_status(testbed: RunningEndpoint, client: httpx.Client) -> None:
    response = call_tool(client, testbed.url, "scripted_error")
    assert response.status_code == 500
    assert response.json() == {"jsonrpc": "2.0", "id": 1, "error": {"code": 1234, "message": "scripted failure"}}


@pytest.mark.parametrize("tool", ["boom", "wrong_type"])
def test_broken_handler_gives_internal_error(
    testbed: RunningEndpoint, client: httpx.Client, tool: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.CRITICAL, logger="backchannel.proxy.endpoint.app"):
        response = call_tool(client, testbed.url, tool)
    assert (response.status_code, error_of(response)["code"]) == (200, -32603)


# --- legacy era ----------------------------------------------------------------------------------------------


def test_legacy_initialize_mints_a_session_and_answers_like_a_2025_server(
    endpoint: RunningEndpoint, client: httpx.Client
) -> None:
    params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    response = client.post(endpoint.url, json=rpc("initialize", params))
    assert response.status_code == 200
    assert len(response.headers["mcp-session-id"]) == 32
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "backchannel-endpoint", "version": "0.1.0"},
            "instructions": INSTRUCTIONS,
        },
    }


@pytest.mark.parametrize("requested", ["2026-07-28", "1999-01-01", 7])
def test_legacy_initialize_offers_2025_11_25_for_versions_it_does_not_speak(
    endpoint: RunningEndpoint, client: httpx.Client, requested: object
) -> None:
    response = client.post(endpoint.url, json=rpc("initialize", {"protocolVersion": requested, "capabilities": {}}))
    assert response.json()["result"]["protocolVersion"] == "2025-11-25"


def test_legacy_session_serves_ping_tools_list_and_tools_call_without_result_type(
    endpoint: RunningEndpoint, client: httpx.Client
) -> None:
    session = {"mcp-session-id": initialize(client, endpoint.url), "mcp-protocol-version": "2025-11-25"}
    initialized = client.post(
        endpoint.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session
    )
    assert (initialized.status_code, initialized.content) == (202, b"")
    assert client.post(endpoint.url, json=rpc("ping"), headers=session).json() == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {},
    }
    listed = client.post(endpoint.url, json=rpc("tools/list"), headers=session).json()["result"]
    assert [tool["name"] for tool in listed["tools"]] == ["get_repo_status"]
    assert set(listed) == {"tools"}
    body = rpc("tools/call", {"name": "get_repo_status", "arguments": {"repo": "x"}})
    result = client.post(endpoint.url, json=body, headers=session).json()["result"]
    assert result == {"content": [{"type": "text", "text": REPO_TEXT}], "isError": False}


def test_legacy_tool_call_hands_the_handler_the_session_version_and_capabilities(
    testbed: RunningEndpoint, client: httpx.Client
) -> None:
    session_id = initialize(client, testbed.url, "2025-03-26", {"sampling": {}})
    body = rpc("tools/call", {"name": "echo_call", "arguments": {}, "_meta": {"progressToken": 5}})
    seen = client.post(testbed.url, json=body, headers={"mcp-session-id": session_id}).json()["result"]
    assert set(seen) == {"content", "isError", "structuredContent"}
    assert seen["structuredContent"] | {"mcp_method_header": None} == {
        "name": "echo_call",
        "arguments": {},
        "input_responses": None,
        "request_state": None,
        "protocol_version": "2025-03-26",
        "era": "legacy",
        "client_capabilities": {"sampling": {}},
        "progress_token": 5,
        "request_id": 1,
        "mcp_method_header": None,
    }


def test_legacy_unknown_method_gives_32601(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    session = {"mcp-session-id": initialize(client, endpoint.url)}
    response = client.post(endpoint.url, json=rpc("resources/list"), headers=session)
    assert (response.status_code, error_of(response)["code"]) == (200, -32601)


def test_request_in_an_unknown_session_gets_404(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    response = client.post(endpoint.url, json=rpc("tools/list"), headers={"mcp-session-id": "f" * 32})
    assert response.status_code == 404


def test_delete_ends_a_live_legacy_session(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    session = {"mcp-session-id": initialize(client, endpoint.url)}
    assert client.delete(endpoint.url, headers=session).status_code == 200
    assert client.post(endpoint.url, json=rpc("tools/list"), headers=session).status_code == 404
    assert client.delete(endpoint.url, headers=session).status_code == 405


def test_modern_meta_wins_over_a_legacy_session_header(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    headers = {**modern_headers("tools/list"), "mcp-session-id": initialize(client, endpoint.url)}
    result = client.post(endpoint.url, json=rpc("tools/list", modern_params()), headers=headers).json()["result"]
    assert result["resultType"] == "complete"


def test_legacy_only_refuses_discover_with_a_non_modern_400(
    legacy_only_endpoint: RunningEndpoint, client: httpx.Client
) -> None:
    response = post_modern(client, legacy_only_endpoint.url, "server/discover")
    assert response.status_code == 400
    assert error_of(response) == {"code": -32600, "message": "Bad Request: No valid session ID provided"}
    assert error_of(response)["code"] not in MODERN_ERROR_CODES


def test_legacy_only_refuses_modern_tool_calls_but_serves_them_in_a_session(
    legacy_only_endpoint: RunningEndpoint, client: httpx.Client
) -> None:
    url = legacy_only_endpoint.url
    assert call_tool(client, url, "get_repo_status", {"repo": "x"}).status_code == 400
    session = {"mcp-session-id": initialize(client, url)}
    body = rpc("tools/call", {"name": "get_repo_status", "arguments": {"repo": "x"}})
    assert client.post(url, json=body, headers=session).json()["result"]["content"][0]["text"] == REPO_TEXT


# --- holds and SSE -------------------------------------------------------------------------------------------


def sse_blocks(raw: bytes) -> list[list[str]]:
    """The stream's blocks (comment or event), each as its lines."""
    text = raw.decode("utf-8").replace("\r\n", "\n")
    return [block.split("\n") for block in text.split("\n\n") if block]


def test_sse_hold_streams_keepalives_and_progress_then_the_result(
    testbed: RunningEndpoint, client: httpx.Client
) -> None:
    extra = {"name": "hold", "arguments": {"ms": 450, "transport": "sse", "keepalive_ms": 100}}
    body = rpc("tools/call", modern_params(extra, progressToken="p1"), request_id=3)
    started = time.perf_counter()
    with client.stream("POST", testbed.url, json=body, headers=modern_headers("tools/call", "hold")) as response:
        chunks = [(time.perf_counter() - started, chunk) for chunk in response.iter_raw()]
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream"
    assert (response.headers["x-accel-buffering"], response.headers["cache-control"]) == ("no", "no-cache")
    first_arrival, first_chunk = chunks[0]
    assert first_chunk == KEEPALIVE
    assert first_arrival < 0.4
    raw = b"".join(chunk for _, chunk in chunks)
    assert raw.count(KEEPALIVE) == 4
    blocks = sse_blocks(raw)
    events = [json.loads(block[1].removeprefix("data: ")) for block in blocks if block[0] == "event: message"]
    assert [block for block in blocks if block[0] != "event: message"] == [[": keepalive"]] * 4
    assert events[:-1] == [
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "p1", "progress": n, "message": "holding"},
        }
        for n in (1, 2, 3, 4)
    ]
    assert events[-1]["id"] == 3
    assert events[-1]["result"]["content"][0]["text"] == "held 450 ms"
    assert events[-1]["result"]["resultType"] == "complete"


@pytest.mark.parametrize("extra_meta", [{}, {"progressToken": "p"}], ids=["no-token", "progress-off"])
def test_sse_hold_without_progress_sends_only_keepalives(
    testbed: RunningEndpoint, client: httpx.Client, extra_meta: dict[str, Any]
) -> None:
    arguments = {"ms": 250, "transport": "sse", "keepalive_ms": 100, "progress": not extra_meta}
    body = rpc("tools/call", modern_params({"name": "hold", "arguments": arguments}, **extra_meta))
    response = client.post(testbed.url, json=body, headers=modern_headers("tools/call", "hold"))
    blocks = sse_blocks(response.content)
    assert blocks[:2] == [[": keepalive"], [": keepalive"]]
    assert len(blocks) == 3 and blocks[2][0] == "event: message"


def test_json_hold_sends_no_byte_before_the_answer_is_ready(testbed: RunningEndpoint) -> None:
    payload = json.dumps(rpc("tools/call", modern_params({"name": "hold", "arguments": {"ms": 800}}))).encode()
    head = "".join(f"{k}: {v}\r\n" for k, v in modern_headers("tools/call", "hold").items())
    request = (
        f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        f"content-length: {len(payload)}\r\nconnection: close\r\n{head}\r\n"
    ).encode() + payload
    with socket.create_connection(("127.0.0.1", testbed.port), timeout=5) as sock:
        sock.sendall(request)
        sock.settimeout(0.4)
        with pytest.raises(TimeoutError):
            sock.recv(1)
        sock.settimeout(5)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    assert received.startswith(b"HTTP/1.1 200 ")
    assert b"held 800 ms" in received


def test_client_leaving_an_sse_hold_stops_it_without_errors(
    testbed: RunningEndpoint, client: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    body = rpc(
        "tools/call",
        modern_params({"name": "hold", "arguments": {"ms": 30_000, "transport": "sse", "keepalive_ms": 20}}),
    )
    with caplog.at_level(logging.WARNING):
        with client.stream("POST", testbed.url, json=body, headers=modern_headers("tools/call", "hold")) as response:
            assert next(response.iter_raw()) == KEEPALIVE
        assert post_modern(client, testbed.url, "server/discover").status_code == 200
    assert [record for record in caplog.records if record.levelno >= logging.WARNING] == []


def test_client_leaving_a_call_cancels_the_handler(client: httpx.Client) -> None:
    entered, cancelled = threading.Event(), threading.Event()

    async def wait_forever(call: ToolCall) -> ToolReply:
        entered.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return ToolReply()

    tool = ToolSpec(name="wait", description="waits", input_schema={"type": "object"}, handler=wait_forever)
    with start_endpoint(EndpointConfig(tools=(tool,))) as running:
        payload = json.dumps(rpc("tools/call", modern_params({"name": "wait"}))).encode()
        head = "".join(f"{k}: {v}\r\n" for k, v in modern_headers("tools/call", "wait").items())
        request = f"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-length: {len(payload)}\r\n{head}\r\n".encode() + payload
        with socket.create_connection(("127.0.0.1", running.port), timeout=5) as sock:
            sock.sendall(request)
            assert entered.wait(5)
        assert cancelled.wait(5)


# --- registry and server wrapper -----------------------------------------------------------------------------


def test_scenarios_are_discovered_from_the_package() -> None:
    registry = all_scenarios()
    assert "default" in registry
    assert [tool.name for tool in registry["default"].tools] == ["get_repo_status"]


def test_the_endpoint_serves_exactly_the_tools_it_is_handed(client: httpx.Client) -> None:
    handler = all_scenarios()["default"].tools[0].handler
    only = ToolSpec(name="only_this", description="the one tool", input_schema={"type": "object"}, handler=handler)
    assert build_app(EndpointConfig(tools=(only,))).config.tools == (only,)
    with start_endpoint(EndpointConfig(tools=(only,))) as running:
        listed = post_modern(client, running.url, "tools/list").json()["result"]["tools"]
        unknown = error_of(call_tool(client, running.url, "get_repo_status"))
    assert [tool["name"] for tool in listed] == ["only_this"]
    assert unknown["message"] == "Unknown tool: get_repo_status"
    with start_endpoint(EndpointConfig(tools=())) as running:
        assert post_modern(client, running.url, "tools/list").json()["result"]["tools"] == []


def test_scenario_with_duplicate_tool_names_is_refused() -> None:
    tool = all_scenarios()["default"].tools[0]
    with pytest.raises(ValueError, match="get_repo_status"):
        ToolSet(name="twice", description="", tools=(tool, tool))
    with pytest.raises(ValueError, match="get_repo_status"):
        EndpointConfig(tools=(tool, tool))


@pytest.mark.parametrize("host", ["0.0.0.0", "::1", "example.com", "192.168.1.1"])
def test_start_endpoint_refuses_anything_but_ipv4_loopback(host: str) -> None:
    with pytest.raises(ValueError, match="loopback"):
        start_endpoint(EndpointConfig(tools=()), host=host)


def test_running_endpoint_reports_its_url_and_stops_twice_harmlessly() -> None:
    running = start_endpoint(EndpointConfig(tools=()))
    with running:
        assert running.url == f"http://127.0.0.1:{running.port}/mcp"
        assert running.port > 0
    running.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.post(running.url, json=rpc("server/discover"), timeout=2)


def test_round_trip_is_not_delayed_by_nagle(endpoint: RunningEndpoint, client: httpx.Client) -> None:
    timings = []
    for _ in range(30):
        started = time.perf_counter()
        call_tool(client, endpoint.url, "get_repo_status")
        timings.append(time.perf_counter() - started)
    # Nagle plus delayed ACKs shows up as about 40 ms per response; a local round trip takes about 1 ms.
    assert statistics.median(timings) < 0.02


# --- robustness ----------------------------------------------------------------------------------------------

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
_methods = st.sampled_from(["server/discover", "tools/list", "tools/call", "initialize", "ping"]) | st.text(max_size=12)
_params = st.fixed_dictionaries(
    {},
    optional={
        "_meta": st.dictionaries(st.sampled_from([PV, CC, "progressToken"]), _json_values | st.just(MODERN)),
        "name": st.sampled_from(["get_repo_status", "nope"]) | _json_values,
        "arguments": _json_values,
        "requestState": _json_values,
        "inputResponses": _json_values,
        "protocolVersion": _json_values,
    },
)
_messages = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "1.0"]), "method": _methods | _json_values},
    optional={"id": st.integers() | st.text(max_size=6) | _json_values, "params": _params | _json_values},
)
_bodies = (
    st.binary(max_size=300) | _json_values.map(json.dumps).map(str.encode) | _messages.map(json.dumps).map(str.encode)
)
_header_values = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=24)
_headers = st.dictionaries(
    st.sampled_from(["mcp-protocol-version", "mcp-method", "mcp-name", "mcp-session-id", "content-type"]),
    _header_values | st.sampled_from([MODERN, "tools/call", "get_repo_status", "2025-11-25"]),
)


@settings(max_examples=200, deadline=None)
@given(body=_bodies, headers=_headers)
def test_any_post_gets_a_well_formed_answer(
    endpoint: RunningEndpoint, client: httpx.Client, body: bytes, headers: dict[str, str]
) -> None:
    response = client.post(endpoint.url, content=body, headers=headers)
    assert response.status_code in {200, 202, 400, 404}
    if response.status_code == 202:
        assert response.content == b""
    else:
        message = response.json()
        assert message["jsonrpc"] == "2.0"
        assert ("result" in message) != ("error" in message)
