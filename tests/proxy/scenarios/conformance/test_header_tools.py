"""The HTTP header runs' tools: the suite's names, schemas and context, each invalid tool breaking its constraint."""

from backchannel.proxy.scenarios.conformance import header_tools


def test_the_custom_headers_context_names_the_two_annotated_tools_with_the_suites_arguments():
    calls = header_tools.CUSTOM_HEADERS_CONTEXT["toolCalls"]
    assert [c["name"] for c in calls] == ["test_custom_headers", "test_custom_headers_null"]
    assert calls[0]["arguments"]["non_ascii_val"] == "Hello, 世界" and calls[1]["arguments"]["verbose"] is None
    annotated = {k for k, p in header_tools.CUSTOM_SCHEMA["properties"].items() if "x-mcp-header" in p}
    assert "query" not in annotated and "float_val" not in annotated and len(annotated) == 14


def test_the_invalid_tool_run_lists_one_valid_tool_and_the_eleven_invalid_ones_of_the_suite():
    names = [t.name for t in header_tools.INVALID_HEADER_TOOLS]
    assert names[0] == "valid_tool" and set(names[1:]) == set(header_tools.INVALID_TOOLS) and len(names) == 12
    rules = {rule for _schema, rule in header_tools.INVALID_TOOLS.values()}
    assert rules == {
        "sep-2243-x-mcp-header-not-empty",
        "sep-2243-x-mcp-header-primitive-only",
        "sep-2243-x-mcp-header-unique",
        "sep-2243-x-mcp-header-charset",
    }


def test_every_tool_answers_complete_text():
    for tool in (*header_tools.STANDARD_TOOLS, *header_tools.CUSTOM_TOOLS, *header_tools.INVALID_HEADER_TOOLS):
        reply = tool.handler(None)  # type: ignore[arg-type]
        assert reply.result is not None and reply.result["content"][0]["type"] == "text"  # type: ignore[union-attr]
