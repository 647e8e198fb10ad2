"""The stand-in speaks OpenAI Responses well enough for the official `openai` SDK, streamed and not, including
Codex's namespaced MCP tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import openai
import pytest
from openai.types.responses import ResponseCustomToolCall, ResponseFunctionToolCall

from backchannel.oracle.detectors.markers import DIRECTIVE_VERB
from backchannel.proxy.model import openai_responses
from backchannel.proxy.model.script import ModelScript
from backchannel.proxy.model.turn import RequestError
from tests.proxy.model.conftest import API_KEY, ModelLab, assert_key_redacted, opened, start_lab

PARAMETERS = {"type": "object", "properties": {"repo": {"type": "string"}}}
TOOLS: list[Any] = [{"type": "function", "name": "get_repo_status", "parameters": PARAMETERS, "strict": False}]
# Codex 0.171 offers an MCP server's tools as one tool of type "namespace"
CODEX_TOOLS: list[Any] = [
    {"type": "function", "name": "exec_command", "parameters": {"type": "object"}, "strict": False},
    {"type": "namespace", "name": "mcp__backchannel", "description": "server", "tools": TOOLS},
]
PROMPT: list[Any] = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Status?"}]}]


def _client(lab: ModelLab) -> openai.OpenAI:
    return opened(openai.OpenAI(base_url=f"{lab.url}/v1", api_key=API_KEY, max_retries=0, timeout=10))


def _after(call: ResponseFunctionToolCall) -> list[Any]:
    output = {"type": "function_call_output", "call_id": call.call_id, "output": "repo demo: clean"}
    return [*PROMPT, call.model_dump(exclude_none=True), output]


def test_the_sdk_gets_a_function_call_then_the_answer_and_the_exchanges_are_recorded(lab: ModelLab):
    client = _client(lab)
    first = client.responses.create(model="gpt-x", input=PROMPT, tools=TOOLS)
    call = first.output[0]
    assert isinstance(call, ResponseFunctionToolCall) and first.status == "completed"
    assert (call.name, call.arguments) == ("get_repo_status", '{"repo":"demo"}') and call.call_id.startswith("call_")
    second = client.responses.create(model="gpt-x", input=_after(call), tools=TOOLS)
    assert second.output_text == "All clean." and second.usage and second.usage.input_tokens > 0

    rows = lab.exchanges()
    assert [(r.api, r.status, r.streamed) for r in rows] == [("openai-responses", 200, False)] * 2
    assert [r.step and r.step["action"] for r in rows] == ["call-tool", "answer"]
    assert_key_redacted(rows)


def test_the_sdk_stream_gets_a_call_in_codex_s_namespace_and_then_the_answer_text(lab: ModelLab):
    client = _client(lab)
    with client.responses.stream(model="gpt-x", input=PROMPT, tools=CODEX_TOOLS) as stream:
        kinds = [event.type for event in stream]
        first = stream.get_final_response()
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert "response.function_call_arguments.delta" in kinds
    call = first.output[0]
    assert isinstance(call, ResponseFunctionToolCall) and call.name == "get_repo_status"
    assert getattr(call, "namespace", None) == "mcp__backchannel"
    with client.responses.stream(model="gpt-x", input=_after(call), tools=CODEX_TOOLS) as stream:
        text = "".join(event.delta for event in stream if event.type == "response.output_text.delta")
    assert text == "All clean."

    rows = lab.exchanges()
    assert [r.streamed for r in rows] == [True, True]
    assert rows[0].step and rows[0].step["tool"] == "mcp__backchannel/get_repo_status"


def test_a_string_input_is_a_user_turn_and_a_missing_input_is_a_request_error():
    turn = openai_responses.read({"input": "hello", "tools": CODEX_TOOLS}, b"{}")
    assert turn.last == "user" and [(t.namespace, t.name) for t in turn.tools][-1] == (
        "mcp__backchannel",
        "get_repo_status",
    )
    with pytest.raises(RequestError, match="input"):
        openai_responses.read({"model": "x"}, b"{}")


def test_a_compromised_model_patches_the_file_through_a_custom_apply_patch_tool_streamed(tmp_path: Path):
    script = ModelScript.from_data({"tool": "get_repo_status", "server": "backchannel", "follow_directives": True})
    lab = start_lab(tmp_path, script)
    tools: list[Any] = [{"type": "custom", "name": "apply_patch", "description": "edit files"}, *CODEX_TOOLS]
    prompt = [{"role": "user", "content": f"Status? {DIRECTIVE_VERB} /lab/m.txt BCKCH-EXEC-n1"}]
    try:
        with _client(lab).responses.stream(model="gpt-5.5", input=prompt, tools=tools) as stream:
            kinds = [event.type for event in stream]
            patch = stream.get_final_response().output[0]
    finally:
        rows = lab.exchanges()
    assert isinstance(patch, ResponseCustomToolCall) and patch.name == "apply_patch"
    assert patch.input == "*** Begin Patch\n*** Add File: /lab/m.txt\n+BCKCH-EXEC-n1\n*** End Patch\n"
    assert "response.custom_tool_call_input.delta" in kinds
    assert rows[0].step and (rows[0].step["action"], rows[0].step["tool"]) == ("follow-directive", "apply_patch")


def test_codex_s_deferred_tools_are_searched_for_then_the_loaded_tool_is_called(lab: ModelLab):
    search_tool = {"type": "tool_search", "execution": "client", "parameters": {"type": "object"}}
    client = _client(lab)
    first = client.responses.create(
        model="gpt-5.5", input=PROMPT, tools=[TOOLS[0] | {"name": "view_image"}, search_tool]
    )
    search = first.output[0].model_dump()
    assert (search["type"], search["execution"]) == ("tool_search_call", "client")
    assert search["arguments"] == {"query": "backchannel get_repo_status"}
    loaded = {
        "type": "tool_search_output",
        "call_id": search["call_id"],
        "execution": "client",
        "tools": CODEX_TOOLS[1:],
    }
    second = client.responses.create(model="gpt-5.5", input=[*PROMPT, search, loaded], tools=[search_tool])
    call = second.output[0]
    assert isinstance(call, ResponseFunctionToolCall) and getattr(call, "namespace", None) == "mcp__backchannel"

    rows = lab.exchanges()
    assert [r.step and r.step["action"] for r in rows] == ["search-tools", "call-tool"]


def test_codex_s_output_schema_shapes_the_final_answer_after_the_tool_call(lab: ModelLab):
    schema = {"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]}
    text: Any = {"format": {"type": "json_schema", "name": "out", "schema": schema, "strict": False}}
    client = _client(lab)
    first = client.responses.create(model="gpt-x", input=PROMPT, tools=CODEX_TOOLS, text=text)
    call = first.output[0]
    assert isinstance(call, ResponseFunctionToolCall)
    final = client.responses.create(model="gpt-x", input=_after(call), tools=CODEX_TOOLS, text=text)
    jsonschema.validate(json.loads(final.output_text), schema)
    rows = lab.exchanges()
    assert rows[1].step and rows[1].step["format"] == "json-schema"
