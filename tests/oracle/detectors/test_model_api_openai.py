"""OpenAI Chat Completions and Responses requests read into segments, tool results tied to their calls."""

from tests.oracle.detectors.model_requests import read, rows, unread


def test_chat_turns_tool_calls_and_tool_turns_are_segments_tied_by_tool_call_id():
    context = read(
        "openai-chat",
        {
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "developer", "content": [{"type": "text", "text": "dev"}]},
                {"role": "user", "content": "go"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "mcp__lab__s", "arguments": "{}"}}
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "out"},
            ],
            "tools": [{"type": "function", "function": {"name": "mcp__lab__s", "description": "d"}}],
        },
    )
    assert rows(context) == [
        ("system", "system", None, "sys", "$.messages[0].content"),
        ("system", "developer", None, "dev", "$.messages[1].content[0].text"),
        ("user", "user", None, "go", "$.messages[2].content"),
        ("tool-call", "assistant", "mcp__lab__s", "{}", "$.messages[3].tool_calls[0].function.arguments"),
        ("tool-result", "tool", "mcp__lab__s", "out", "$.messages[4].content"),
        ("tool-description", "tool", "mcp__lab__s", "d", "$.tools[0].function.description"),
    ]


def test_responses_instructions_items_and_a_namespace_tie_an_output_to_its_call_and_namespace():
    context = read(
        "openai-responses",
        {
            "instructions": "sys",
            "input": [
                {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "dev"}]},
                {"role": "user", "content": "go"},
                {"type": "reasoning", "summary": [], "encrypted_content": "x"},
                {"type": "function_call", "namespace": "mcp__lab", "name": "s", "arguments": "{}", "call_id": "k"},
                {"type": "function_call_output", "call_id": "k", "output": "Wall time: 0.01 seconds\nOutput:\n{}"},
            ],
            "tools": [
                {
                    "type": "namespace",
                    "name": "mcp__lab",
                    "description": "ns",
                    "tools": [{"type": "function", "name": "s"}],
                },
                {"type": "function", "name": "shell", "description": "run", "parameters": {"type": "object"}},
            ],
        },
    )
    assert [(s.kind, s.role, s.tool, s.namespace, s.path) for s in context.segments] == [
        ("system", "system", None, None, "$.instructions"),
        ("system", "developer", None, None, "$.input[0].content[0].text"),
        ("user", "user", None, None, "$.input[1].content"),
        ("tool-call", "assistant", "s", "mcp__lab", "$.input[3].arguments"),
        ("tool-result", "tool", "s", "mcp__lab", "$.input[4].output"),
        ("tool-description", "tool", None, "mcp__lab", "$.tools[0].description"),
        ("tool-description", "tool", "shell", None, "$.tools[1].description"),
        ("tool-description", "tool", "shell", None, "$.tools[1].parameters.type"),
    ]


def test_responses_input_as_a_plain_string_is_one_user_segment():
    assert rows(read("openai-responses", {"input": "hello"})) == [("user", "user", None, "hello", "$.input")]


def test_an_unknown_item_type_or_a_tool_call_without_a_function_is_unread():
    assert "'mystery'" in unread("openai-responses", {"input": [{"type": "mystery"}]}).reason
    bad_call = {"messages": [{"role": "assistant", "tool_calls": [{"id": "c", "function": "x"}]}]}
    assert "$.messages[0].tool_calls[0].function" in unread("openai-chat", bad_call).reason
