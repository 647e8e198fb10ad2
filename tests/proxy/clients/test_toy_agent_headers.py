"""The toy agent's x-mcp-header rules: which annotations it rejects, and the Mcp-Param headers a call gives, careful
and with each header flaw."""

from backchannel.proxy.clients.toy_agent_headers import header_annotations, param_headers, problems
from backchannel.proxy.scenarios.conformance.header_tools import (
    CUSTOM_ARGUMENTS,
    CUSTOM_SCHEMA,
    INVALID_TOOLS,
    NULL_ARGUMENTS,
    NULL_SCHEMA,
)


def test_the_careful_build_mirrors_each_annotation_encoded_as_the_spec_says():
    headers = param_headers(CUSTOM_SCHEMA, CUSTOM_ARGUMENTS)
    assert headers["Mcp-Param-Region"] == "us-west1" and headers["Mcp-Param-Priority"] == "42"
    assert headers["Mcp-Param-Verbose"] == "false" and headers["Mcp-Param-EmptyVal"] == ""
    assert headers["Mcp-Param-NonAscii"] == "=?base64?SGVsbG8sIOS4lueVjA==?="
    assert headers["Mcp-Param-InternalSpace"] == "us west 1" and headers["Mcp-Param-Tab"].startswith("=?base64?")
    assert not {"Mcp-Param-Query", "Mcp-Param-FloatVal"} & set(headers)
    assert "Mcp-Param-Verbose" not in param_headers(NULL_SCHEMA, NULL_ARGUMENTS)


def test_each_header_flaw_breaks_its_own_rule():
    flawed = param_headers(
        CUSTOM_SCHEMA, CUSTOM_ARGUMENTS, frozenset({"python-str", "sanitise-unsafe", "skip-empty", "mirror-all"})
    )
    assert flawed["Mcp-Param-Debug"] == "True" and flawed["Mcp-Param-Whitespace"] == "padded"
    assert "Mcp-Param-EmptyVal" not in flawed and flawed["Mcp-Param-Query"] == "SELECT * FROM users"
    assert param_headers(NULL_SCHEMA, NULL_ARGUMENTS, frozenset({"null-as-text"}))["Mcp-Param-Verbose"] == "null"
    assert param_headers(CUSTOM_SCHEMA, CUSTOM_ARGUMENTS, frozenset({"no-param-headers"})) == {}


def test_every_invalid_tool_of_the_suite_has_a_problem_and_a_valid_schema_none():
    assert all(problems(schema) for schema, _rule in INVALID_TOOLS.values())
    assert problems(CUSTOM_SCHEMA) == []


def test_annotations_are_reached_through_properties_only():
    nested = {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string",
              "x-mcp-header": "B"}}}}}  # fmt: skip
    assert [(path, name) for path, name, _ in header_annotations(nested)] == [(("a", "b"), "B")]
    hidden = {
        "type": "object",
        "properties": {"xs": {"type": "array", "items": {"type": "string", "x-mcp-header": "X"}}},
    }
    assert problems(hidden) == ["an x-mcp-header is not statically reachable through properties"]
