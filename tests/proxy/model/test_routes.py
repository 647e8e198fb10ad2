"""Which API a request is, by its method and path."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backchannel.proxy.model.decide import decide
from backchannel.proxy.model.routes import route
from backchannel.proxy.model.script import ModelScript
from backchannel.proxy.model.turn import ReplyIds, RequestError


@pytest.mark.parametrize(
    ("method", "path", "api"),
    [
        ("POST", "/v1/messages", "anthropic-messages"),
        ("POST", "/v1/chat/completions", "openai-chat"),
        ("POST", "/v1/responses/", "openai-responses"),
        ("POST", "/v1beta/models/gemini-3.8-flash:generateContent", "gemini-generate"),
        ("POST", "/v1beta/models/gemini-3.8-flash:streamGenerateContent", "gemini-stream"),
        ("GET", "/v1/models", "openai-responses"),
    ],
)
def test_each_provider_path_is_its_api(method: str, path: str, api: str):
    found = route(method, path, {})
    assert found is not None and found.api == api


@pytest.mark.parametrize(
    "path", ["/", "/v1/complete", "/v1beta/models/a/b:generateContent", "/v1beta/models/m:countTokens", "/mcp"]
)
def test_other_paths_have_no_route(path: str):
    assert route("POST", path, {}) is None


def test_the_model_list_is_anthropic_s_when_the_client_sends_its_version_header():
    found = route("GET", "/v1/models", {"anthropic-version": "2023-06-01"})
    assert found is not None and found.api == "anthropic-messages" and found.read is None


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=30,
)
# keys each API reads, so generated bodies reach past the first check
KEYS = st.sampled_from(
    ["messages", "tools", "input", "contents", "role", "content", "type", "name", "namespace", "tool_calls",
     "function", "parts", "functionCall", "functionResponse", "call_id", "id", "tool_use_id", "generationConfig",
     "responseJsonSchema", "properties", "stream", "stream_options"]
)  # fmt: skip
WORDS = st.sampled_from(
    ["user", "assistant", "model", "tool", "system", "tool_use", "tool_result", "function_call", "custom_tool_call",
     "function_call_output", "namespace", "function", "t", "mcp__s__t", "mcp__s", "mcp_s_t", "Write", "exec_command",
     "write_file", "c1", "WRITE-MARKER /x BCKCH-EXEC-1"]
)  # fmt: skip
BODIES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=20) | WORDS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=40,
)
PATHS = ["/v1/messages", "/v1/chat/completions", "/v1/responses", "/v1beta/models/g:generateContent",
         "/v1beta/models/g:streamGenerateContent"]  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(path=st.sampled_from(PATHS), body=st.dictionaries(KEYS, BODIES, max_size=6) | st.dictionaries(st.text(), JSON))
def test_any_json_object_on_any_api_is_read_or_refused_and_any_turn_read_renders(path: str, body: dict[str, Any]):
    found = route("POST", path, {})
    assert found is not None and found.read is not None
    try:
        turn = found.read(body, b"{}")
    except RequestError:
        return
    compromised = ModelScript.from_data({"tool": "t", "server": "s", "follow_directives": True})
    decision = decide(turn, compromised, lambda: "id")
    reply = found.render(decision.action, turn, ReplyIds("r", 0))
    assert reply.body and decision.step["action"]


HOSTILE = {
    "/v1/messages": {
        "messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": {"x": 1}, "name": ["n"], "input": 3}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": [1]}, "text", 5]},
        ],
        "tools": [{"name": {"n": 1}}, "Write", {"name": "Write", "input_schema": {}}],
    },
    "/v1/chat/completions": {
        "messages": [
            {"role": "assistant", "tool_calls": [{"id": [1], "function": {"name": 1, "arguments": {}}}, 7]},
            {"role": "tool", "tool_call_id": {"a": 1}},
        ],
        "tools": [{"function": "f"}, {"function": {"name": "t"}}],
    },
    "/v1/responses": {
        "input": [
            {"type": "function_call", "call_id": {"a": 1}, "name": None, "arguments": [1]},
            {"type": "function_call_output", "call_id": [1], "output": {"x": "y"}},
            {"type": ["message"], "role": "user"},
        ],
        "tools": [{"type": "namespace", "name": 5, "tools": [{"name": "t"}, 3]}, {"type": "custom"}],
    },
    "/v1beta/models/g:streamGenerateContent": {
        "contents": [
            {"role": "model", "parts": [{"functionCall": {"name": "t", "id": [1], "args": [2]}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": {"n": 1}, "id": {"i": 1}}}, "p"]},
        ],
        "tools": [{"functionDeclarations": [{"name": "t"}, "x"]}],
    },
}


@pytest.mark.parametrize("path", list(HOSTILE))
def test_ids_names_and_items_of_the_wrong_type_are_read_as_absent_not_a_crash(path: str):
    found = route("POST", path, {})
    assert found is not None and found.read is not None
    turn = found.read(HOSTILE[path], b"{}")
    assert all(not call.answered for call in turn.calls)
    decision = decide(turn, ModelScript.from_data({"tool": "t", "server": "s"}), lambda: "id")
    assert found.render(decision.action, turn, ReplyIds("r", 0)).body
