"""Gemini (`POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`): the request read into
a turn, an action rendered as candidates with a text or `functionCall` part, as one JSON document or SSE chunks.

A request carrying `generationConfig.responseSchema` (or `responseJsonSchema`) wants JSON text that fits it: Gemini
CLI's model router sends one before each turn.
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
    sse,
    sse_reply,
    strings_in,
    text_of,
    token_estimate,
)

GENERATE = "gemini-generate"
STREAM = "gemini-stream"


def read(body: dict[str, Any], raw: bytes, *, model: str, streamed: bool) -> ModelTurn:
    """The turn a generateContent request asks for (`model` and `streamed` come from the path).

    Raises:
        RequestError: `contents` is missing or not a list.
    """
    if not isinstance(body.get("contents"), list):
        raise RequestError("'contents' must be a list")
    contents = as_dicts(body["contents"], "contents")
    tools = tuple(
        OfferedTool(declaration["name"])
        for tool in as_dicts(body.get("tools"), "tools")
        for key in ("functionDeclarations", "function_declarations")
        for declaration in as_dicts(tool.get(key), f"tools[].{key}")
        if isinstance(declaration.get("name"), str)
    )
    responses = [part["functionResponse"] for part in _parts(contents, "user") if _has(part, "functionResponse")]
    answered_ids = {id_of(response.get("id")) for response in responses} - {None}
    answered_names = [text_of(response.get("name")) for response in responses]
    calls: list[PastCall] = []
    for part in _parts(contents, "model"):
        if not _has(part, "functionCall"):
            continue
        call = part["functionCall"]
        name = text_of(call.get("name"))
        args = call.get("args")
        # without ids (older clients), the n-th call of a name is answered by the n-th response of that name
        call_id = id_of(call.get("id"))
        answered = call_id in answered_ids if call_id else name in answered_names
        if not call_id and name in answered_names:
            answered_names.remove(name)
        calls.append(PastCall(name, None, arguments_text(args if isinstance(args, dict) else {}), answered))
    config = body.get("generationConfig")
    schema = None
    if isinstance(config, dict):
        found = config.get("responseJsonSchema", config.get("responseSchema"))
        schema = found if isinstance(found, dict) else None
    return ModelTurn(
        api=STREAM if streamed else GENERATE,
        model=model,
        streamed=streamed,
        tools=tools,
        last=_last(contents),
        calls=tuple(calls),
        texts=strings_in(body),
        input_tokens=token_estimate(raw),
        response_schema=schema,
    )


def _parts(contents: list[dict[str, Any]], role: str) -> list[dict[str, Any]]:
    return [
        part
        for content in contents
        if content.get("role", "user") == role
        for part in as_dicts(content.get("parts"), "contents[].parts")
    ]


def _has(part: dict[str, Any], key: str) -> bool:
    return isinstance(part.get(key), dict)


def _last(contents: list[dict[str, Any]]) -> str:
    if not contents:
        return "none"
    last = contents[-1]
    if last.get("role", "user") == "model":
        return "assistant"
    parts = as_dicts(last.get("parts"), "contents[].parts")
    return "tool-result" if any(_has(part, "functionResponse") for part in parts) else "user"


def render(action: Action, turn: ModelTurn, ids: ReplyIds) -> Reply:
    """The generateContent reply to `action`; streamed, the same document as one SSE chunk (a text answer in two)."""
    parts_list: list[list[dict[str, Any]]]
    if isinstance(action, CallAction):
        call = {"name": action.name, "args": action.arguments, "id": action.call_id}
        parts_list = [[{"functionCall": call}]]
    elif turn.streamed and len(action.text) > 1:
        half = len(action.text) // 2
        parts_list = [[{"text": action.text[:half]}], [{"text": action.text[half:]}]]
    else:
        parts_list = [[{"text": action.text}]]
    output_tokens = max(1, len(dumps(parts_list)) // 4)
    usage = {
        "promptTokenCount": turn.input_tokens,
        "candidatesTokenCount": output_tokens,
        "totalTokenCount": turn.input_tokens + output_tokens,
    }
    documents = []
    for n, parts in enumerate(parts_list, start=1):
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if n == len(parts_list):
            candidate["finishReason"] = "STOP"
        documents.append(
            {
                "candidates": [candidate],
                "usageMetadata": usage,
                "modelVersion": turn.model,
                "responseId": ids.response_id,
            }
        )
    if not turn.streamed:
        return json_reply(documents[0])
    return sse_reply([sse(document) for document in documents])


def error(status: int, message: str) -> Reply:
    """The API's error object (google.rpc.Status)."""
    names = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 413: "INVALID_ARGUMENT"}
    return json_reply({"error": {"code": status, "message": message, "status": names.get(status, "INTERNAL")}})
