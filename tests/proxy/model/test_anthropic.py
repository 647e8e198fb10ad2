"""The stand-in speaks Anthropic Messages well enough for the official `anthropic` SDK, streamed and not."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import jsonschema
import pytest
from anthropic.types import TextBlock, ToolUseBlock

from backchannel.proxy.model import anthropic as messages_api
from backchannel.proxy.model.turn import CallAction, ReplyIds, RequestError
from tests.proxy.model.conftest import API_KEY, ModelLab, assert_key_redacted, opened

TOOLS: list[Any] = [
    {"name": "Write", "description": "write a file", "input_schema": {"type": "object", "properties": {}}},
    {
        "name": "mcp__backchannel__get_repo_status",
        "description": "the repo's status",
        "input_schema": {"type": "object", "properties": {"repo": {"type": "string"}}},
    },
]
PROMPT: list[Any] = [{"role": "user", "content": "What is the repository's status?"}]


def _client(lab: ModelLab) -> anthropic.Anthropic:
    return opened(anthropic.Anthropic(base_url=lab.url, api_key=API_KEY, max_retries=0, timeout=10))


def _after(call: ToolUseBlock) -> list[Any]:
    result = {"type": "tool_result", "tool_use_id": call.id, "content": "repo demo: clean"}
    return [*PROMPT, {"role": "assistant", "content": [call.model_dump()]}, {"role": "user", "content": [result]}]


def test_the_sdk_gets_a_tool_call_then_the_answer_and_both_exchanges_are_recorded_without_the_key(lab: ModelLab):
    client = _client(lab)
    first = client.messages.create(model="claude-x", max_tokens=64, messages=PROMPT, tools=TOOLS)
    call = first.content[0]
    assert isinstance(call, ToolUseBlock) and first.stop_reason == "tool_use"
    assert (call.name, call.input) == ("mcp__backchannel__get_repo_status", {"repo": "demo"})
    second = client.messages.create(model="claude-x", max_tokens=64, messages=_after(call), tools=TOOLS)
    assert isinstance(second.content[0], TextBlock) and second.content[0].text == "All clean."
    assert second.stop_reason == "end_turn" and second.usage.input_tokens > 0

    rows = lab.exchanges()
    assert [(r.api, r.status, r.streamed) for r in rows] == [("anthropic-messages", 200, False)] * 2
    assert [r.step["action"] for r in rows if r.step] == ["call-tool", "answer"]
    assert rows[0].step and rows[0].step["call_id"] == call.id
    assert_key_redacted(rows)
    assert rows[1].request_body and call.id.encode() in rows[1].request_body


def test_the_sdk_stream_assembles_the_tool_call_from_input_json_deltas_and_the_answer_from_text_deltas(lab: ModelLab):
    client = _client(lab)
    with client.messages.stream(model="claude-x", max_tokens=64, messages=PROMPT, tools=TOOLS) as stream:
        kinds = [event.type for event in stream]
        first = stream.get_final_message()
    assert kinds[0] == "message_start" and "content_block_stop" in kinds and kinds[-1] == "message_stop"
    call = first.content[0]
    assert isinstance(call, ToolUseBlock) and call.input == {"repo": "demo"} and first.stop_reason == "tool_use"
    with client.messages.stream(model="claude-x", max_tokens=64, messages=_after(call), tools=TOOLS) as stream:
        assert stream.get_final_text() == "All clean."

    rows = lab.exchanges()
    assert [(r.streamed, r.step["action"] if r.step else None) for r in rows] == [(True, "call-tool"), (True, "answer")]
    assert rows[0].reply_body and b"event: message_start" in rows[0].reply_body


def test_a_request_without_messages_is_a_request_error():
    with pytest.raises(RequestError, match="messages"):
        messages_api.read({"model": "x"}, b"{}")


def test_a_tool_call_renders_as_one_tool_use_block_whose_stop_reason_is_tool_use():
    turn = messages_api.read({"messages": PROMPT, "tools": TOOLS}, b"{}")
    reply = messages_api.render(CallAction("Write", {"a": 1}, "toolu_1"), turn, ReplyIds("msg_1", 0))
    assert b'"stop_reason":"tool_use"' in reply.body and b'"input":{"a":1}' in reply.body
    assert [tool.name for tool in turn.tools] == ["Write", "mcp__backchannel__get_repo_status"]


def test_a_structured_output_request_gets_json_its_schema_accepts_after_the_tool_call(lab: ModelLab):
    schema = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
    structured: Any = {"output_config": {"format": {"type": "json_schema", "schema": schema}}}
    client = _client(lab)
    titled = client.messages.create(model="claude-x", max_tokens=64, messages=PROMPT, extra_body=structured)
    first = client.messages.create(model="claude-x", max_tokens=64, messages=PROMPT, tools=TOOLS, extra_body=structured)
    call = first.content[0]
    assert isinstance(call, ToolUseBlock)
    final = client.messages.create(
        model="claude-x", max_tokens=64, messages=_after(call), tools=TOOLS, extra_body=structured
    )
    for reply in (titled, final):
        block = reply.content[0]
        assert isinstance(block, TextBlock)
        jsonschema.validate(json.loads(block.text), schema)

    rows = lab.exchanges()
    assert [r.step and (r.step["action"], r.step.get("format")) for r in rows] == [
        ("schema-answer", None),
        ("call-tool", None),
        ("answer", "json-schema"),
    ]
