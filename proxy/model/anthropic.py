"""Anthropic Messages (`POST /v1/messages`): the request read into a turn, an action rendered as the API replies,
streamed (message_start, content blocks with text_delta or input_json_delta, message_delta, message_stop) or whole."""

from __future__ import annotations

from typing import Any

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

API = "anthropic-messages"


def read(body: dict[str, Any], raw: bytes) -> ModelTurn:
    """The turn a Messages request asks for.

    Raises:
        RequestError: `messages` is missing or not a list of messages.
    """
    if not isinstance(body.get("messages"), list):
        raise RequestError("'messages' must be a list")
    messages = as_dicts(body["messages"], "messages")
    tools = tuple(
        OfferedTool(tool["name"], kind="function" if "input_schema" in tool else text_of(tool.get("type")) or "server")
        for tool in as_dicts(body.get("tools"), "tools")
        if isinstance(tool.get("name"), str)
    )
    answered = {
        id_of(block.get("tool_use_id"))
        for message in messages
        if message.get("role") == "user"
        for block in _blocks(message)
        if block.get("type") == "tool_result"
    } - {None}
    calls = tuple(
        PastCall(text_of(block.get("name")), None, arguments_text(_input(block)), id_of(block.get("id")) in answered)
        for message in messages
        if message.get("role") == "assistant"
        for block in _blocks(message)
        if block.get("type") == "tool_use"
    )
    return ModelTurn(
        api=API,
        model=text_of(body.get("model")) or "claude-stand-in",
        streamed=body.get("stream") is True,
        tools=tools,
        last=_last(messages),
        calls=calls,
        texts=strings_in(body),
        input_tokens=token_estimate(raw),
        response_schema=_schema(body),
    )


def _schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """Structured output: `output_config.format` (or the older `output_format`) of type json_schema."""
    config = body.get("output_config")
    found = json_schema_format(config.get("format") if isinstance(config, dict) else None)
    found = found or json_schema_format(body.get("output_format"))
    return schema_at(found, "schema")


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def _input(block: dict[str, Any]) -> dict[str, Any] | str:
    value = block.get("input")
    return value if isinstance(value, dict | str) else {}


def _last(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        role = message.get("role")
        if role == "user":
            return "tool-result" if any(b.get("type") == "tool_result" for b in _blocks(message)) else "user"
        if role == "assistant":
            return "assistant"
    return "none"


def render(action: Action, turn: ModelTurn, ids: ReplyIds) -> Reply:
    """The Messages reply to `action`, streamed as the API streams when the request asked for it."""
    output_tokens = max(1, len(dumps(_block(action))) // 4)
    stop = "tool_use" if isinstance(action, CallAction) else "end_turn"
    message = {
        "id": ids.response_id,
        "type": "message",
        "role": "assistant",
        "model": turn.model,
        "content": [_block(action)],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": _usage(turn.input_tokens, output_tokens),
    }
    if not turn.streamed:
        return json_reply(message)
    start = {**message, "content": [], "stop_reason": None, "usage": _usage(turn.input_tokens, 1)}
    if isinstance(action, CallAction):
        opened = {"type": "tool_use", "id": action.call_id, "name": action.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": arguments_text(action.arguments)}
    else:
        opened = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": action.text}
    events = [
        sse({"type": "message_start", "message": start}, "message_start"),
        sse({"type": "content_block_start", "index": 0, "content_block": opened}, "content_block_start"),
        sse({"type": "ping"}, "ping"),
        sse({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta"),
        sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
        sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
            "message_delta",
        ),
        sse({"type": "message_stop"}, "message_stop"),
    ]
    return sse_reply(events)


def _block(action: Action) -> dict[str, Any]:
    if isinstance(action, CallAction):
        return {"type": "tool_use", "id": action.call_id, "name": action.name, "input": action.arguments}
    return {"type": "text", "text": action.text}


def _usage(input_tokens: int, output_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def error(status: int, message: str) -> Reply:
    """The API's error object."""
    kind = {400: "invalid_request_error", 404: "not_found_error", 413: "request_too_large"}.get(status, "api_error")
    return json_reply({"type": "error", "error": {"type": kind, "message": message}})
