"""Which provider API a request is, by its method and path, and that API's reader, renderer and error shape."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from backchannel.proxy.model import anthropic, gemini, openai_chat, openai_responses
from backchannel.proxy.model.turn import Action, ModelTurn, Reply, ReplyIds, json_reply

_GEMINI = re.compile(
    r"^/v1(?:beta|alpha)?/models/(?P<model>[^/:]{1,200}):(?P<verb>generateContent|streamGenerateContent)$"
)


@dataclass(frozen=True, slots=True)
class Route:
    """One API's handling: `read` is None for `GET /v1/models`, answered with a fixed list."""

    api: str
    read: Callable[[dict[str, Any], bytes], ModelTurn] | None
    render: Callable[[Action, ModelTurn, ReplyIds], Reply]
    error: Callable[[int, str], Reply]
    id_prefix: str  # a reply id's prefix in this API
    call_prefix: str  # a tool call id's prefix in this API


_MESSAGES = Route(anthropic.API, anthropic.read, anthropic.render, anthropic.error, "msg_", "toolu_")
_CHAT = Route(openai_chat.API, openai_chat.read, openai_chat.render, openai_chat.error, "chatcmpl-", "call_")
_RESPONSES = Route(
    openai_responses.API, openai_responses.read, openai_responses.render, openai_responses.error, "resp_", "call_"
)


def route(method: str, path: str, headers: dict[str, str]) -> Route | None:
    """The route for a request (path without its query), or None for a path no API of the stand-in has."""
    path = path.rstrip("/") or "/"
    if path == "/v1/messages":
        return _MESSAGES
    if path == "/v1/chat/completions":
        return _CHAT
    if path == "/v1/responses":
        return _RESPONSES
    if path == "/v1/models" and method == "GET":
        api = anthropic.API if "anthropic-version" in headers else openai_responses.API
        error = anthropic.error if api == anthropic.API else openai_responses.error
        return Route(api, None, _no_render, error, "", "")
    match = _GEMINI.match(path)
    if match is None:
        return None
    streamed = match["verb"] == "streamGenerateContent"
    model = match["model"]

    def read(body: dict[str, Any], raw: bytes) -> ModelTurn:
        return gemini.read(body, raw, model=model, streamed=streamed)

    api = gemini.STREAM if streamed else gemini.GENERATE
    return Route(api, read, gemini.render, gemini.error, "", "call_")


def _no_render(action: Action, turn: ModelTurn, ids: ReplyIds) -> Reply:
    raise AssertionError("the model list is not rendered from an action")


MODELS = ("claude-stand-in", "gpt-stand-in", "gemini-stand-in")


def model_list(created: int) -> Reply:
    """`GET /v1/models` in a shape both the Anthropic and the OpenAI clients read (each ignores the other's fields)."""
    data = [
        {"id": name, "object": "model", "type": "model", "created": created, "owned_by": "backchannel",
         "display_name": name, "created_at": "2026-01-01T00:00:00Z"}
        for name in MODELS
    ]  # fmt: skip
    return json_reply({"object": "list", "data": data, "has_more": False, "first_id": MODELS[0], "last_id": MODELS[-1]})


def unknown_path(path: str) -> Reply:
    return json_reply({"error": {"message": f"the model stand-in has no API at {path[:200]}", "type": "not_found"}})
