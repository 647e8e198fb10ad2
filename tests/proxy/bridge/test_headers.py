"""The bridge derives from each message body the HTTP headers a stdio client never sends, and marks them as its own."""

from __future__ import annotations

import base64

from backchannel.oracle.bridge import BRIDGE_HEADER, DERIVED_HEADER
from backchannel.proxy.bridge.headers import Negotiated, derive, learn, name_value

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def modern(method: str, **params: object) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}


def test_a_modern_tools_call_gets_version_method_name_accept_and_content_type():
    headers = derive(modern("tools/call", name="get_weather", arguments={}), Negotiated())
    assert headers["MCP-Protocol-Version"] == "2026-07-28"
    assert headers["Mcp-Method"] == "tools/call"
    assert headers["Mcp-Name"] == "get_weather"
    assert headers["Accept"] == "application/json, text/event-stream"
    assert headers["Content-Type"] == "application/json"


def test_every_request_is_marked_stdio_and_lists_exactly_the_headers_it_derived():
    headers = derive(modern("tools/call", name="x"), Negotiated())
    assert headers[BRIDGE_HEADER] == "stdio"
    listed = headers[DERIVED_HEADER].split(",")
    assert set(listed) == set(headers) - {BRIDGE_HEADER, DERIVED_HEADER}


def test_resources_read_names_its_uri_and_prompts_get_its_name():
    assert derive(modern("resources/read", uri="file:///a.txt"), Negotiated())["Mcp-Name"] == "file:///a.txt"
    assert derive(modern("prompts/get", name="greet"), Negotiated())["Mcp-Name"] == "greet"


def test_other_methods_get_no_mcp_name():
    assert "Mcp-Name" not in derive(modern("tools/list", name="not-a-name-carrier"), Negotiated())


def test_a_name_that_is_not_plain_ascii_uses_the_base64_sentinel():
    encoded = name_value("Hello, 世界")
    assert encoded == "=?base64?" + base64.b64encode("Hello, 世界".encode()).decode() + "?="
    assert name_value(" padded ") == "=?base64?IHBhZGRlZCA=?="
    assert name_value("line1\nline2") == "=?base64?bGluZTEKbGluZTI=?="


def test_a_plain_name_that_looks_like_the_sentinel_is_encoded_too():
    assert name_value("=?base64?literal?=") == "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="


def test_a_method_or_version_that_cannot_be_a_header_is_left_out_not_altered():
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/\nlist", "params": {"_meta": {**META}}}
    message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2026\r\n-07-28"  # type: ignore[index]
    headers = derive(message, Negotiated())
    assert "Mcp-Method" not in headers and "MCP-Protocol-Version" not in headers


def test_a_legacy_initialize_gets_no_version_and_no_session():
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
    headers = derive(init, Negotiated(session_id="s1", version="2025-11-25"))
    assert "MCP-Protocol-Version" not in headers and "Mcp-Session-Id" not in headers and "Mcp-Method" not in headers


def test_legacy_messages_after_initialize_carry_the_negotiated_version_and_session():
    negotiated = Negotiated(session_id="abc", version="2025-06-18")
    for message in (
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "srv-1", "result": {"action": "accept"}},  # answering a server request
    ):
        headers = derive(message, negotiated)
        assert (headers["MCP-Protocol-Version"], headers["Mcp-Session-Id"]) == ("2025-06-18", "abc")
        assert "Mcp-Method" not in headers


def test_a_line_that_is_not_json_gets_only_accept_and_content_type_and_the_marks():
    headers = derive(None, Negotiated())
    assert set(headers) == {"Accept", "Content-Type", BRIDGE_HEADER, DERIVED_HEADER}


def test_initialize_settles_the_session_and_the_agreed_version():
    sent = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
    answer = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18"}}
    assert learn(Negotiated(), sent, "sess-1", answer) == Negotiated(session_id="sess-1", version="2025-06-18")


def test_a_refused_initialize_or_any_other_exchange_settles_nothing():
    sent = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
    refused = {"jsonrpc": "2.0", "id": 0, "error": {"code": -32600, "message": "no"}}
    assert learn(Negotiated(), sent, "s", refused) == Negotiated()
    other = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    assert learn(Negotiated(), other, "s", {"jsonrpc": "2.0", "id": 1, "result": {}}) == Negotiated()
