"""The tools of the three HTTP header runs (SEP-2243), with the official suite's names, schemas and arguments.

`http-standard-headers` serves two plain tools (one with a hyphen in its name, for `Mcp-Name`); `http-custom-headers`
serves two tools whose parameters carry `x-mcp-header` annotations, and hands the client the calls to make as
`MCP_CONFORMANCE_CONTEXT` (`CUSTOM_HEADERS_CONTEXT`); `http-invalid-tool-headers` lists one valid tool and eleven
whose `x-mcp-header` breaks a constraint of the spec (`INVALID_TOOLS`: which constraint each breaks). Every call is
answered complete: what is judged is what the client sent.
"""

from __future__ import annotations

from typing import Any

from backchannel.proxy.endpoint.tools import ToolCall, ToolReply, ToolSpec

from .mrtr_tools import EMPTY_SCHEMA


def _reply(value: str) -> Any:
    def handler(_call: ToolCall) -> ToolReply:
        return ToolReply(result={"content": [{"type": "text", "text": value}]})

    return handler


STANDARD_TOOLS = (
    ToolSpec(
        "test_headers",
        "A simple tool used to test that HTTP headers are sent correctly",
        EMPTY_SCHEMA,
        _reply("Headers test completed"),
    ),
    ToolSpec(
        "my-hyphenated-tool",
        "Tool with hyphen in name to test special chars in Mcp-Name header",
        EMPTY_SCHEMA,
        _reply("Headers test completed"),
    ),
)


def _param(kind: str, description: str, header: str | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {"type": kind, "description": description}
    if header is not None:
        found["x-mcp-header"] = header
    return found


CUSTOM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "region": _param("string", "Plain ASCII string value", "Region"),
        "priority": _param("integer", "Integer numeric value", "Priority"),
        "verbose": _param("boolean", "Boolean value", "Verbose"),
        "debug": _param("boolean", "Boolean true value", "Debug"),
        "empty_val": _param("string", "Empty string value", "EmptyVal"),
        "method_val": _param("string", 'Value for header named "Method": Mcp-Param-Method, not Mcp-Method', "Method"),
        "float_val": _param("number", "Floating point value: no x-mcp-header annotation, should not be mirrored"),
        "non_ascii_val": _param("string", "Non-ASCII string value: requires Base64 encoding", "NonAscii"),
        "whitespace_val": _param("string", "Leading/trailing whitespace: requires Base64 encoding", "Whitespace"),
        "leading_space_val": _param("string", "Leading space only: requires Base64 encoding", "LeadingSpace"),
        "trailing_space_val": _param("string", "Trailing space only: requires Base64 encoding", "TrailingSpace"),
        "internal_space_val": _param("string", "Internal spaces only: plain ASCII, no Base64", "InternalSpace"),
        "control_char_val": _param("string", "Control characters: requires Base64 encoding", "ControlChar"),
        "crlf_val": _param("string", "Carriage return and line feed: requires Base64 encoding", "CrLf"),
        "tab_val": _param("string", "Leading tab: requires Base64 encoding", "Tab"),
        "query": _param("string", "No x-mcp-header annotation - should not be mirrored"),
    },
    "required": ["region", "priority", "query"],
}
NULL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "region": _param("string", "Plain ASCII string value", "Region"),
        "priority": _param("integer", "Integer numeric value", "Priority"),
        "verbose": _param("boolean", "Boolean value: will be null to test omission", "Verbose"),
        "query": _param("string", "No x-mcp-header annotation"),
    },
    "required": ["region", "priority", "query"],
}
CUSTOM_TOOL, NULL_TOOL = "test_custom_headers", "test_custom_headers_null"
CUSTOM_ARGUMENTS: dict[str, Any] = {
    "region": "us-west1",
    "priority": 42,
    "verbose": False,
    "debug": True,
    "empty_val": "",
    "method_val": "test-method",
    "float_val": 3.14159,
    "non_ascii_val": "Hello, 世界",
    "whitespace_val": " padded ",
    "leading_space_val": " us-west1",
    "trailing_space_val": "us-west1 ",
    "internal_space_val": "us west 1",
    "control_char_val": "line1\nline2",
    "crlf_val": "line1\r\nline2",
    "tab_val": "\tindented",
    "query": "SELECT * FROM users",
}
NULL_ARGUMENTS: dict[str, Any] = {"region": "us-east1", "priority": 1, "verbose": None, "query": "SELECT 1"}
# MCP_CONFORMANCE_CONTEXT of the http-custom-headers run, as the suite hands it over
CUSTOM_HEADERS_CONTEXT = {
    "toolCalls": [
        {"name": CUSTOM_TOOL, "arguments": CUSTOM_ARGUMENTS},
        {"name": NULL_TOOL, "arguments": NULL_ARGUMENTS},
    ]
}
CUSTOM_TOOLS = (
    ToolSpec(
        CUSTOM_TOOL,
        "A tool with x-mcp-header annotations to test custom header mirroring and encoding",
        CUSTOM_SCHEMA,
        _reply("Custom headers test completed"),
    ),
    ToolSpec(
        NULL_TOOL,
        "A tool for testing null/omitted x-mcp-header parameter handling",
        NULL_SCHEMA,
        _reply("Custom headers test completed"),
    ),
)


def _one(name: str, kind: str, header: str, **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {name: {"type": kind, "x-mcp-header": header, **extra}}, "required": [name]}


def _two(first: str, second: str) -> dict[str, Any]:
    properties = {
        "field1": {"type": "string", "x-mcp-header": first},
        "field2": {"type": "string", "x-mcp-header": second},
    }
    return {"type": "object", "properties": properties, "required": ["field1", "field2"]}


VALID_TOOL = "valid_tool"
# each invalid tool: its inputSchema, and the suite's check id for the constraint it breaks
INVALID_TOOLS: dict[str, tuple[dict[str, Any], str]] = {
    "invalid_empty_header": (_one("value", "string", ""), "sep-2243-x-mcp-header-not-empty"),
    "invalid_object_header": (_one("data", "object", "Data"), "sep-2243-x-mcp-header-primitive-only"),
    "invalid_array_header": (
        _one("items", "array", "Items", items={"type": "string"}),
        "sep-2243-x-mcp-header-primitive-only",
    ),
    "invalid_null_header": (_one("nil", "null", "Nil"), "sep-2243-x-mcp-header-primitive-only"),
    "invalid_number_header": (_one("score", "number", "Score"), "sep-2243-x-mcp-header-primitive-only"),
    "invalid_duplicate_same_case": (_two("Region", "Region"), "sep-2243-x-mcp-header-unique"),
    "invalid_duplicate_diff_case": (_two("MyField", "myfield"), "sep-2243-x-mcp-header-unique"),
    "invalid_space_in_name": (_one("value", "string", "My Region"), "sep-2243-x-mcp-header-charset"),
    "invalid_colon_in_name": (_one("value", "string", "Region:Primary"), "sep-2243-x-mcp-header-charset"),
    "invalid_non_ascii_name": (_one("value", "string", "Région"), "sep-2243-x-mcp-header-charset"),
    "invalid_control_char_name": (_one("value", "string", "Region\t1"), "sep-2243-x-mcp-header-charset"),
}
INVALID_HEADER_TOOLS = (
    ToolSpec(
        VALID_TOOL,
        "A valid tool with correct x-mcp-header",
        _one("region", "string", "Region"),
        _reply("Tool call received"),
    ),
    *(
        ToolSpec(
            name,
            f"x-mcp-header breaks a constraint ({rule}): MUST be rejected by the client",
            schema,
            _reply("Tool call received"),
        )
        for name, (schema, rule) in INVALID_TOOLS.items()
    ),
)
