"""The stand-in speaks OpenAI Chat Completions well enough for the official `openai` SDK, streamed and not."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import openai
import pytest

from backchannel.proxy.model import openai_chat
from backchannel.proxy.model.turn import RequestError
from tests.proxy.model.conftest import API_KEY, ModelLab, assert_key_redacted, opened

PARAMETERS = {"type": "object", "properties": {"repo": {"type": "string"}}}
TOOLS: list[Any] = [{"type": "function", "function": {"name": "get_repo_status", "parameters": PARAMETERS}}]
PROMPT: list[Any] = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Status?"}]


def _client(lab: ModelLab) -> openai.OpenAI:
    return opened(openai.OpenAI(base_url=f"{lab.url}/v1", api_key=API_KEY, max_retries=0, timeout=10))


def _after(call_id: str, arguments: str) -> list[Any]:
    function = {"name": "get_repo_status", "arguments": arguments}
    assistant = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }
    return [*PROMPT, assistant, {"role": "tool", "tool_call_id": call_id, "content": "repo demo: clean"}]


def test_the_sdk_gets_a_tool_call_by_the_bare_name_then_the_answer_and_the_exchanges_are_recorded(lab: ModelLab):
    client = _client(lab)
    first = client.chat.completions.create(model="gpt-x", messages=PROMPT, tools=TOOLS)
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.tool_calls
    call = choice.message.tool_calls[0]
    assert call.type == "function" and call.function.name == "get_repo_status"
    assert call.function.arguments == '{"repo":"demo"}'
    second = client.chat.completions.create(
        model="gpt-x", messages=_after(call.id, call.function.arguments), tools=TOOLS
    )
    assert second.choices[0].message.content == "All clean." and second.choices[0].finish_reason == "stop"
    assert second.usage and second.usage.prompt_tokens > 0

    rows = lab.exchanges()
    assert [(r.api, r.path, r.status, r.streamed) for r in rows] == [
        ("openai-chat", "/v1/chat/completions", 200, False)
    ] * 2
    assert [r.step and r.step["action"] for r in rows] == ["call-tool", "answer"]
    assert_key_redacted(rows)


def test_the_sdk_stream_helper_assembles_tool_call_deltas_and_reports_usage_before_done(lab: ModelLab):
    client = _client(lab)
    options: Any = {"include_usage": True}
    with client.chat.completions.stream(model="gpt-x", messages=PROMPT, tools=TOOLS, stream_options=options) as stream:
        first = stream.get_final_completion()
    calls = first.choices[0].message.tool_calls
    assert calls and calls[0].function.name == "get_repo_status" and calls[0].function.arguments == '{"repo":"demo"}'
    assert first.usage and first.usage.total_tokens > 0
    chunks = list(client.chat.completions.create(model="gpt-x", messages=_after(calls[0].id, "{}"), stream=True))
    assert "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices) == "All clean."

    rows = lab.exchanges()
    assert [r.streamed for r in rows] == [True, True]
    assert rows[1].reply_body and rows[1].reply_body.endswith(b"data: [DONE]\n\n")


def test_a_request_whose_messages_is_not_a_list_is_a_request_error():
    with pytest.raises(RequestError, match="messages"):
        openai_chat.read({"messages": "hello"}, b"{}")


def test_a_response_format_json_schema_answer_is_json_the_schema_accepts(lab: ModelLab):
    schema = {
        "type": "object",
        "properties": {"ok": {"type": "boolean"}},
        "required": ["ok"],
        "additionalProperties": False,
    }
    response_format: Any = {"type": "json_schema", "json_schema": {"name": "verdict", "schema": schema, "strict": True}}
    reply = _client(lab).chat.completions.create(model="gpt-x", messages=PROMPT, response_format=response_format)
    jsonschema.validate(json.loads(reply.choices[0].message.content or ""), schema)
    (row,) = lab.exchanges()
    assert row.step and row.step["action"] == "schema-answer"
