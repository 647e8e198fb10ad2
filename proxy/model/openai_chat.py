"""OpenAI Chat Completions (`POST /v1/chat/completions`): the request read into a turn, an action rendered as the
API replies, streamed (chat.completion.chunk deltas, tool_calls deltas, `data: [DONE]`) or as one completion."""

from __future__ import annotations

from typing import Any

from backchannel.proxy.model.openai_responses import error
from backchannel.proxy.model.turn import (
    Action,
    CallAction,
    ModelTurn,
    OfferedTool,
    PastCall,
    Reply,
    ReplyIds,
    RequestError,
    arguments_text,
    as_dicts,
    dumps,
    id_of,
    json_reply,
    json_schema_format,
    schema_at,
    sse,
    sse_reply,
    strings_in,
    text_of,
    token_estimate,
)

__all__ = ["API", "error", "read", "render"]

API = "openai-chat"


def read(body: dict[str, Any], raw: bytes) -> ModelTurn:
    """The turn a Chat Completions request asks for.

    Raises:
        RequestError: `messages` is missing or not a list.
    """
    if not isinstance(body.get("messages"), list):
        raise RequestError("'messages' must be a list")
    messages = as_dicts(body["messages"], "messages")
    tools = tuple(
        OfferedTool(function["name"])
        for tool in as_dicts(body.get("tools"), "tools")
        if isinstance(function := tool.get("function"), dict) and isinstance(function.get("name"), str)
    )
    answered = {id_of(message.get("tool_call_id")) for message in messages if message.get("role") == "tool"} - {None}
    calls = tuple(
        PastCall(
            text_of(function.get("name")), None, text_of(function.get("arguments")), id_of(call.get("id")) in answered
        )
        for message in messages
        if message.get("role") == "assistant"
        for call in as_dicts(message.get("tool_calls"), "tool_calls")
        if isinstance(function := call.get("function"), dict)
    )
    options = body.get("stream_options")
    return ModelTurn(
        api=API,
        model=text_of(body.get("model")) or "gpt-stand-in",
        streamed=body.get("stream") is True,
        tools=tools,
        last=_last(messages),
        calls=calls,
        texts=strings_in(body),
        input_tokens=token_estimate(raw),
        wants_usage=isinstance(options, dict) and options.get("include_usage") is True,
        response_schema=schema_at(json_schema_format(body.get("response_format")), "json_schema", "schema"),
    )


def _last(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        role = message.get("role")
        if role == "tool":
            return "tool-result"
        if role in ("user", "assistant"):
            return str(role)
    return "none"


def render(action: Action, turn: ModelTurn, ids: ReplyIds) -> Reply:
    """The Chat Completions reply to `action`, as chunks when the request asked for a stream."""
    finish = "tool_calls" if isinstance(action, CallAction) else "stop"
    message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
    if isinstance(action, CallAction):
        function = {"name": action.name, "arguments": arguments_text(action.arguments)}
        message["tool_calls"] = [{"id": action.call_id, "type": "function", "function": function}]
    else:
        message["content"] = action.text
    output_tokens = max(1, len(dumps(message)) // 4)
    usage = {
        "prompt_tokens": turn.input_tokens,
        "completion_tokens": output_tokens,
        "total_tokens": turn.input_tokens + output_tokens,
    }
    head = {"id": ids.response_id, "created": ids.created, "model": turn.model}
    if not turn.streamed:
        choice = {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
        return json_reply({**head, "object": "chat.completion", "choices": [choice], "usage": usage})
    chunk = {**head, "object": "chat.completion.chunk"}
    if isinstance(action, CallAction):
        opened = {"index": 0, "id": action.call_id, "type": "function", "function": {"name": action.name}}
        first: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [opened]}
        rest: dict[str, Any] = {"tool_calls": [{"index": 0, "function": {"arguments": function["arguments"]}}]}
    else:
        first, rest = {"role": "assistant", "content": ""}, {"content": action.text}
    deltas = [(first, None), (rest, None), ({}, finish)]
    events = [sse({**chunk, "choices": [{"index": 0, "delta": d, "finish_reason": f}]}) for d, f in deltas]
    if turn.wants_usage:
        events.append(sse({**chunk, "choices": [], "usage": usage}))
    return sse_reply([*events, sse(b"[DONE]")])
