"""Anthropic Messages requests read into segments: system text, turns, tool calls and the results that answer them."""

from tests.oracle.detectors.model_requests import read, rows, unread

API = "anthropic-messages"


def test_system_as_string_or_blocks_and_a_system_role_inside_messages_are_system_segments():
    context = read(
        API,
        {
            "system": [{"type": "text", "text": "You are an agent.", "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "system", "content": "# MCP Server Instructions\n## lab\nbe nice"},
                {"role": "user", "content": [{"type": "text", "text": "fix the bug"}]},
            ],
        },
    )
    assert rows(context) == [
        ("system", "system", None, "You are an agent.", "$.system[0].text"),
        ("system", "system", None, "# MCP Server Instructions\n## lab\nbe nice", "$.messages[0].content"),
        ("user", "user", None, "fix the bug", "$.messages[1].content[0].text"),
    ]
    assert read(API, {"system": "plain", "messages": []}).segments[0].path == "$.system"


def test_a_tool_result_is_tied_to_the_name_of_the_tool_use_it_answers():
    context = read(
        API,
        {
            "messages": [
                {"role": "user", "content": "go"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "hmm", "signature": "x"},
                        {"type": "tool_use", "id": "toolu_1", "name": "mcp__lab__status", "input": {"q": "a"}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"result":"ok"}'},
                        {"type": "tool_result", "tool_use_id": "toolu_9", "content": [{"type": "text", "text": "?"}]},
                    ],
                },
            ],
            "tools": [{"name": "mcp__lab__status", "description": "Status.", "input_schema": {"type": "object"}}],
        },
    )
    assert rows(context) == [
        ("user", "user", None, "go", "$.messages[0].content"),
        ("tool-call", "assistant", "mcp__lab__status", "a", "$.messages[1].content[1].input.q"),
        ("tool-result", "user", "mcp__lab__status", '{"result":"ok"}', "$.messages[2].content[0].content"),
        ("tool-result", "user", None, "?", "$.messages[2].content[1].content[0].text"),
        ("tool-description", "tool", "mcp__lab__status", "Status.", "$.tools[0].description"),
        ("tool-description", "tool", "mcp__lab__status", "object", "$.tools[0].input_schema.type"),
    ]


def test_a_streamed_request_reads_the_same_as_one_that_is_not():
    body = {"stream": True, "messages": [{"role": "user", "content": "hi"}]}
    assert rows(read(API, body, streamed=True)) == rows(read(API, body))


def test_an_unknown_block_type_a_missing_messages_list_or_an_unknown_role_is_unread_with_where():
    assert (
        "$.messages[0].content[0]" in unread(API, {"messages": [{"role": "user", "content": [{"type": "x"}]}]}).reason
    )
    assert "$.messages is missing" in unread(API, {"system": "s"}).reason
    assert "'narrator'" in unread(API, {"messages": [{"role": "narrator", "content": "x"}]}).reason
    assert (
        "not a string" in unread(API, {"messages": [{"role": "user", "content": [{"type": "text", "text": 3}]}]}).reason
    )
