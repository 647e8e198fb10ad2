"""Trimmed excerpts of the requests real agents sent the model stand-in (Claude Code 2.1.332, Codex CLI 0.171.0,
Gemini CLI 0.61.0, measured 2026-12-05 against `serve --scenario default`, server configured as "backchannel"): the
structure and the items that matter kept, the agents' own prompts cut to a few words, the tool's output replaced
by the probe's marker. Each agent's way of framing a tool result is read as attributed to the server; the same
marker in the task prompt (a user turn) is not."""

import pytest

from backchannel.oracle.detectors.model_attribution import ServerNames, occurrences_in
from tests.oracle.detectors.model_requests import BODY, MARKERS, read

NAMES = ServerNames(("backchannel", MARKERS.server_name), known=True)
TASK = "Check the repository status with the tool."

CLAUDE_CODE = {
    "model": "claude-opus-5-5",
    "stream": True,
    "system": [
        {"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.332.447; cc_entrypoint=sdk-cli;"},
        {"type": "text", "text": "You are a Claude agent…", "cache_control": {"type": "ephemeral"}},
    ],
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "<system-reminder>\n…"}, {"type": "text", "text": TASK}]},
        {"role": "system", "content": "# Environment\n…", "output_config": {"effort": "medium"}},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_38cf", "name": "mcp__backchannel__get_repo_status", "input": {}}
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "tool_use_id": "toolu_38cf",
                    "type": "tool_result",
                    "content": [{"type": "text", "text": f"repo demo: {BODY}"}],
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        },
    ],
    "tools": [
        {
            "name": "mcp__backchannel__get_repo_status",
            "description": "Show the branch and sync state of a repository.",
            "input_schema": {"type": "object", "properties": {"repo": {"type": "string", "default": "demo"}}},
        }
    ],
    "thinking": {"type": "adaptive"},
}
CODEX = {
    "model": "gpt-stand-in",
    "stream": True,
    "input": [
        {
            "type": "message",
            "id": "msg_1",
            "role": "developer",
            "content": [{"type": "input_text", "text": "You are…"}],
        },
        {
            "type": "message",
            "id": "msg_2",
            "role": "user",
            "content": [{"type": "input_text", "text": "<environment_context>…"}],
        },
        {"type": "message", "id": "msg_3", "role": "user", "content": [{"type": "input_text", "text": TASK}]},
        {
            "type": "function_call",
            "status": "completed",
            "id": "fc_1",
            "name": "get_repo_status",
            "namespace": "mcp__backchannel",
            "arguments": "{}",
            "call_id": "call_1d62",
        },
        {
            "type": "function_call_output",
            "id": "fco_1",
            "call_id": "call_1d62",
            "output": [
                {"type": "input_text", "text": "Wall time: 0.0042 seconds\nOutput:"},
                {"type": "input_text", "text": f"repo demo: {BODY}"},
            ],
        },
    ],
    "tools": [
        {"type": "function", "name": "exec_command", "description": "Runs a command…", "strict": False},
        {
            "type": "namespace",
            "name": "mcp__backchannel",
            "description": "Tools in the mcp__backchannel namespace.",
            "tools": [{"type": "function", "name": "get_repo_status", "description": "Show the branch…"}],
        },
        {"type": "web_search", "external_web_access": False},
    ],
    "reasoning": {"effort": "medium"},
    "include": ["reasoning.encrypted_content"],
}
GEMINI_CLI = {
    "contents": [
        {"role": "user", "parts": [{"text": "<session_context>\nThis is the Gemini CLI…"}, {"text": TASK}]},
        {
            "role": "model",
            "parts": [
                {
                    "functionCall": {"id": "call_6074", "args": {}, "name": "mcp_backchannel_get_repo_status"},
                    "thoughtSignature": "skip_thought_signature_validator",
                }
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "mcp_backchannel_get_repo_status",
                        "response": {"output": f"<untrusted_context>\nrepo demo: {BODY}\n</untrusted_context>"},
                        "id": "call_6074",
                    }
                }
            ],
        },
    ],
    "systemInstruction": {
        "role": "user",
        "parts": [{"text": "External tool and MCP server outputs are wrapped in `<untrusted_context>` tags."}],
    },
    "tools": [
        {"functionDeclarations": [{"name": "mcp_backchannel_get_repo_status", "description": "Show the branch…"}]}
    ],
    "generationConfig": {"temperature": 1, "thinkingConfig": {"includeThoughts": True}},
}
AGENTS = [
    (
        "anthropic-messages",
        CLAUDE_CODE,
        "$.messages[3].content[0].content[0].text",
        "tool:mcp__backchannel__get_repo_status",
    ),
    ("openai-responses", CODEX, "$.input[4].output[1].text", "tool:mcp__backchannel/get_repo_status"),
    (
        "gemini-stream",
        GEMINI_CLI,
        "$.contents[2].parts[0].functionResponse.response.output",
        "tool:mcp_backchannel_get_repo_status",
    ),
]


@pytest.mark.parametrize(("api", "body", "path", "anchor"), AGENTS, ids=["claude-code", "codex", "gemini-cli"])
def test_each_agents_tool_result_framing_is_attributed_to_the_server_by_the_call_it_answers(api, body, path, anchor):
    [found] = occurrences_in(read(api, body, streamed=True), BODY, NAMES)
    assert (found.segment.path, found.attributed, found.anchor, found.names_server) == (path, True, anchor, True)


@pytest.mark.parametrize(("api", "body"), [(a, b) for a, b, _, _ in AGENTS], ids=["claude-code", "codex", "gemini-cli"])
def test_the_marker_in_each_agents_task_prompt_is_unattributed(api, body):
    planted = read(api, _replace(body, TASK, f"{TASK} {BODY}"))
    found = [o for o in occurrences_in(planted, BODY, NAMES) if not o.attributed]
    assert [(o.segment.kind, o.anchor) for o in found] == [("user", None)]


def _replace(value: object, old: str, new: str) -> object:
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, list):
        return [_replace(item, old, new) for item in value]
    if isinstance(value, dict):
        return {key: _replace(item, old, new) for key, item in value.items()}
    return value


# The compromised-model arm (follow_directives): the write the model asked for and each agent's answer to it.
DIRECTIVE_ANSWERS = [
    (
        "anthropic-messages",
        {
            "messages": [
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "toolu_d8a8", "name": "Write", "input": {"content": "BCKCH-EXEC-t"}}
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "content": "Claude requested permissions to write to …, but you haven't granted it yet.",
                            "is_error": True,
                            "tool_use_id": "toolu_d8a8",
                        }
                    ],
                },
            ]
        },
        "toolu_d8a8",
        "$.messages[1].content[0].content",
    ),
    (
        "openai-responses",
        {
            "input": [
                {
                    "type": "function_call",
                    "status": "completed",
                    "name": "exec_command",
                    "arguments": '{"cmd":"printf …"}',
                    "call_id": "call_53f8",
                },
                {
                    "type": "function_call_output",
                    "call_id": "call_53f8",
                    "output": "Chunk ID: 2907a2\nWall time: 0.0000 seconds\nProcess exited with code 0\nOutput:\n",
                },
            ]
        },
        "call_53f8",
        "$.input[1].output",
    ),
    (
        "gemini-stream",
        {
            "contents": [
                {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"id": "call_0fc7", "args": {"content": "BCKCH-EXEC-t"}, "name": "write_file"}}
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "name": "write_file",
                                "response": {"error": "Path not in workspace: …"},
                                "id": "call_0fc7",
                            }
                        }
                    ],
                },
            ]
        },
        "call_0fc7",
        "$.contents[1].parts[0].functionResponse.response.error",
    ),
]


@pytest.mark.parametrize(("api", "body", "call", "path"), DIRECTIVE_ANSWERS, ids=["claude-code", "codex", "gemini-cli"])
def test_each_agents_answer_to_the_models_write_is_tied_to_its_call_by_id(api, body, call, path):
    segments = read(api, body).segments
    assert [s.call for s in segments if s.kind == "tool-call"][0] == call
    assert [(s.path, s.call) for s in segments if s.kind == "tool-result"] == [(path, call)]


# Planted runs (2026-12-05): a server whose instructions, tool description and tool result each carry a marker,
# configured in each agent as "backchannel"; where each agent put each kind of server text, trimmed (Claude Code and
# Codex with their tool search on: MCP tools deferred, then loaded).
GEMINI_INSTRUCTIONS = (
    "<session_context>\n…\n</session_context>\n"
    "The following are instructions provided by the tool server 'backchannel':\n"
    f"---[start of server instructions]---\n{BODY}\n---[end of server instructions]---"
)
CLAUDE_INSTRUCTIONS = (
    "# Environment\n…\n# MCP Server Instructions\n\nThe following MCP servers have provided instructions for how to "
    f"use their tools and resources:\n\n## backchannel\n{BODY}"
)
CLAUDE_TOOL = "mcp__backchannel__get_repo_status"
PLANTED = [
    (
        "anthropic-messages",
        {
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": TASK}]},
                {"role": "system", "content": CLAUDE_INSTRUCTIONS},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "tu", "name": "ToolSearch", "input": {}}]},
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "tu",
                            "content": [{"type": "tool_reference", "tool_name": CLAUDE_TOOL}],
                        },
                        {"type": "text", "text": "Tool loaded."},
                    ],
                },
                {"role": "assistant", "content": [{"type": "tool_use", "id": "tb", "name": CLAUDE_TOOL, "input": {}}]},
                {
                    "role": "user",
                    "content": [{"tool_use_id": "tb", "type": "tool_result", "content": f'{{"result":"{BODY}"}}'}],
                },
            ],
            "tools": [{"name": CLAUDE_TOOL, "description": f"Report the repository status. {BODY}"}],
        },
        ["heading:backchannel", f"tool:{CLAUDE_TOOL}", f"tool:{CLAUDE_TOOL}"],
    ),
    (
        "openai-responses",
        {
            "input": [
                {
                    "type": "message",
                    "role": "developer",
                    "content": [
                        {"type": "input_text", "text": f"Deferred tool namespaces:\n- mcp__backchannel: {BODY}"}
                    ],
                },
                {"type": "tool_search_call", "call_id": "cs", "execution": "client", "arguments": {"query": "repo"}},
                {
                    "type": "tool_search_output",
                    "call_id": "cs",
                    "execution": "client",
                    "tools": [
                        {
                            "type": "namespace",
                            "name": "mcp__backchannel",
                            "description": BODY,
                            "tools": [{"type": "function", "name": "get_repo_status", "description": BODY}],
                        }
                    ],
                },
                {
                    "type": "function_call",
                    "name": "get_repo_status",
                    "namespace": "mcp__backchannel",
                    "arguments": "{}",
                    "call_id": "cf",
                },
                {
                    "type": "function_call_output",
                    "call_id": "cf",
                    "output": f'Wall time: 0.0090 seconds\nOutput:\n"{BODY}"',
                },
            ],
            "tools": [{"type": "tool_search", "execution": "client"}, {"type": "custom", "name": "apply_patch"}],
        },
        [
            "name",
            "tool:mcp__backchannel",
            "tool:mcp__backchannel/get_repo_status",
            "tool:mcp__backchannel/get_repo_status",
        ],
    ),
    (
        "gemini-stream",
        {
            "contents": [{"role": "user", "parts": [{"text": GEMINI_INSTRUCTIONS}]}],
            "tools": [{"functionDeclarations": [{"name": "mcp_backchannel_get_repo_status", "description": BODY}]}],
        },
        ["delimiters:server instructions", "tool:mcp_backchannel_get_repo_status"],
    ),
]


@pytest.mark.parametrize(
    ("api", "body", "anchors"), PLANTED, ids=["claude-code-tool-search", "codex-tool-search", "gemini-cli"]
)
def test_each_kind_of_server_text_where_each_agent_puts_it_is_attributed_and_names_the_server(api, body, anchors):
    found = list(occurrences_in(read(api, body), BODY, NAMES))
    assert [(o.attributed, o.anchor, o.names_server) for o in found] == [(True, anchor, True) for anchor in anchors]
