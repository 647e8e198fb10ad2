"""OpenAI Responses (`POST /v1/responses`, the only API Codex CLI speaks): the request read into a turn, an action
rendered as the API replies, streamed (response.created ... response.completed) or as one response object.

Codex groups an MCP server's tools in a tool of type "namespace" named `mcp__SERVER`; a call of one of them names
the namespace beside the tool's bare name. For a model it knows to support tool search (gpt-5.5), Codex defers MCP
tools behind a `tool_search` tool that it runs itself: the model's `tool_search_call` is answered by a
`tool_search_output` item carrying the tools it loaded, offered from then on.
"""

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

API = "openai-responses"
_CALLS = ("function_call", "custom_tool_call", "tool_search_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "tool_search_output")
TOOL_SEARCH = "tool_search"


def read(body: dict[str, Any], raw: bytes) -> ModelTurn:
    """The turn a Responses request asks for.

    Raises:
        RequestError: `input` is neither a string nor a list.
    """
    given = body.get("input")
    if isinstance(given, str):
        items: list[dict[str, Any]] = [{"type": "message", "role": "user", "content": given}]
    elif isinstance(given, list):
        items = as_dicts(given, "input")
    else:
        raise RequestError("'input' must be a string or a list of items")
    answered = {id_of(item.get("call_id")) for item in items if item.get("type") in _OUTPUTS} - {None}
    calls = tuple(
        PastCall(
            TOOL_SEARCH if item.get("type") == "tool_search_call" else text_of(item.get("name")),
            text_of(item.get("namespace")) or None,
            _arguments(item),
            id_of(item.get("call_id")) in answered,
        )
        for item in items
        if item.get("type") in _CALLS
    )
    # tools a tool search loaded are offered from then on, beside those the request lists
    loaded = [tool for item in items if item.get("type") == "tool_search_output" for tool in _loaded(item)]
    return ModelTurn(
        api=API,
        model=text_of(body.get("model")) or "gpt-stand-in",
        streamed=body.get("stream") is True,
        tools=tuple(_tools([*as_dicts(body.get("tools"), "tools"), *loaded])),
        last=_last(items),
        calls=calls,
        texts=strings_in(body),
        input_tokens=token_estimate(raw),
        response_schema=schema_at(json_schema_format(schema_at(body, "text", "format")), "schema"),
    )


def _arguments(item: dict[str, Any]) -> str:
    for key in ("arguments", "input"):
        value = item.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, dict):
            return arguments_text(value)
    return ""


def _loaded(item: dict[str, Any]) -> list[dict[str, Any]]:
    tools = item.get("tools")
    return [tool for tool in tools if isinstance(tool, dict)] if isinstance(tools, list) else []


def _tools(tools: list[dict[str, Any]]) -> list[OfferedTool]:
    offered: list[OfferedTool] = []
    for tool in tools:
        kind = text_of(tool.get("type")) or "function"
        if kind == "namespace":
            namespace = text_of(tool.get("name")) or None
            inner = as_dicts(tool.get("tools"), "tools[].tools")
            offered.extend(OfferedTool(t["name"], namespace) for t in inner if isinstance(t.get("name"), str))
        elif kind == TOOL_SEARCH:
            offered.append(OfferedTool(TOOL_SEARCH, kind=TOOL_SEARCH))
        elif isinstance(tool.get("name"), str):
            offered.append(OfferedTool(tool["name"], kind=kind))
    return offered


def _last(items: list[dict[str, Any]]) -> str:
    for item in reversed(items):
        kind = item.get("type", "message")
        if kind in _OUTPUTS:
            return "tool-result"
        if kind in _CALLS or (kind == "message" and item.get("role") == "assistant"):
            return "assistant"
        if kind == "message" and item.get("role") == "user":
            return "user"
    return "none"


def render(action: Action, turn: ModelTurn, ids: ReplyIds) -> Reply:
    """The Responses reply to `action`: the event stream when the request asked for it, else the response object."""
    item_id = f"{'fc' if isinstance(action, CallAction) else 'msg'}_{ids.response_id}"
    done = _item(action, item_id, "completed")
    output_tokens = max(1, len(dumps(done)) // 4)
    response = _response(turn, ids, "completed", [done], output_tokens)
    if not turn.streamed:
        return json_reply(response)
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": _response(turn, ids, "in_progress", [], None)},
        {"type": "response.in_progress", "response": _response(turn, ids, "in_progress", [], None)},
        {"type": "response.output_item.added", "output_index": 0, "item": _item(action, item_id, "in_progress")},
        *_deltas(action, item_id),
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {"type": "response.completed", "response": response},
    ]
    return sse_reply([sse({**event, "sequence_number": n}, event["type"]) for n, event in enumerate(events)])


def _deltas(action: Action, item_id: str) -> list[dict[str, Any]]:
    where = {"item_id": item_id, "output_index": 0}
    if isinstance(action, CallAction):
        text = arguments_text(action.arguments)
        if action.kind == TOOL_SEARCH:  # no deltas: the item arrives whole in output_item.added and .done
            return []
        if action.kind == "custom":
            return [
                {"type": "response.custom_tool_call_input.delta", **where, "delta": text},
                {"type": "response.custom_tool_call_input.done", **where, "input": text},
            ]
        return [
            {"type": "response.function_call_arguments.delta", **where, "delta": text},
            {"type": "response.function_call_arguments.done", **where, "arguments": text},
        ]
    part = {"type": "output_text", "text": "", "annotations": []}
    at = {**where, "content_index": 0}
    return [
        {"type": "response.content_part.added", **at, "part": part},
        {"type": "response.output_text.delta", **at, "delta": action.text, "logprobs": []},
        {"type": "response.output_text.done", **at, "text": action.text, "logprobs": []},
        {"type": "response.content_part.done", **at, "part": {**part, "text": action.text}},
    ]


def _item(action: Action, item_id: str, status: str) -> dict[str, Any]:
    final = status == "completed"
    if isinstance(action, CallAction):
        text = arguments_text(action.arguments) if final else ""
        if action.kind == TOOL_SEARCH:
            return {
                "type": "tool_search_call", "id": item_id, "call_id": action.call_id, "execution": "client",
                "arguments": action.arguments, "status": status,
            }  # fmt: skip
        if action.kind == "custom":
            return {
                "type": "custom_tool_call", "id": item_id, "call_id": action.call_id, "name": action.name,
                "input": text, "status": status,
            }  # fmt: skip
        item = {
            "type": "function_call", "id": item_id, "call_id": action.call_id, "name": action.name,
            "arguments": text, "status": status,
        }  # fmt: skip
        return {**item, "namespace": action.namespace} if action.namespace else item
    content = [{"type": "output_text", "text": action.text, "annotations": []}] if final else []
    return {"type": "message", "id": item_id, "status": status, "role": "assistant", "content": content}


def _response(
    turn: ModelTurn, ids: ReplyIds, status: str, output: list[dict[str, Any]], output_tokens: int | None
) -> dict[str, Any]:
    usage = None
    if output_tokens is not None:
        usage = {
            "input_tokens": turn.input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": turn.input_tokens + output_tokens,
        }
    return {
        "id": ids.response_id, "object": "response", "created_at": ids.created, "status": status,
        "model": turn.model, "output": output, "parallel_tool_calls": False, "tool_choice": "auto", "tools": [],
        "error": None, "incomplete_details": None, "instructions": None, "metadata": {}, "temperature": 1.0,
        "top_p": 1.0, "text": {"format": {"type": "text"}}, "usage": usage,
    }  # fmt: skip


def error(status: int, message: str) -> Reply:
    """The API's error object."""
    kind = "invalid_request_error" if status < 500 else "server_error"
    return json_reply({"error": {"message": message, "type": kind, "param": None, "code": None}})
