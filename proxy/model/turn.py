"""What every provider API's request and reply come down to: one neutral turn read from the agent, one action back.

Each provider module (anthropic.py, openai_chat.py, openai_responses.py, gemini.py) reads its API's request JSON
into a `ModelTurn` and renders an `Action` into its API's exact reply; the script (decide.py) only ever sees these.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

# Bounds on walking an agent's request for text: a hostile body cannot make the walk slow or deep.
MAX_TEXTS = 20_000
MAX_DEPTH = 64


class RequestError(ValueError):
    """A request the stand-in cannot read as its API's shape; the message says what was wrong (a 400 reply)."""


@dataclass(frozen=True, slots=True)
class OfferedTool:
    """One tool the agent offered the model, named as the API carries it (Codex groups MCP tools in a namespace)."""

    name: str
    namespace: str | None = None
    kind: str = "function"  # "function", or the API's other tool kinds ("custom" freeform tools, server tools)


@dataclass(frozen=True, slots=True)
class PastCall:
    """A tool call the model made earlier in this conversation, and whether the agent has answered it."""

    name: str
    namespace: str | None
    arguments: str  # JSON text (or a freeform tool's input) as the conversation carries it
    answered: bool


@dataclass(frozen=True, slots=True)
class ModelTurn:
    """One request as the script needs it, whatever API carried it."""

    api: str
    model: str
    streamed: bool
    tools: tuple[OfferedTool, ...]
    last: str  # what the conversation ends with: "user", "tool-result", "assistant" or "none"
    calls: tuple[PastCall, ...]
    texts: tuple[str, ...]  # every string in the request, in order: where the script looks for directives
    input_tokens: int  # an estimate, for the usage numbers clients insist on
    response_schema: dict[str, Any] | None = None  # Gemini: the JSON schema the reply's text must satisfy
    wants_usage: bool = False  # Chat Completions: stream_options.include_usage


@dataclass(frozen=True, slots=True)
class TextAction:
    """Answer with text."""

    text: str


@dataclass(frozen=True, slots=True)
class CallAction:
    """Call one tool; `arguments` is an object, or a string for a freeform (custom) tool."""

    name: str
    arguments: dict[str, Any] | str
    call_id: str
    namespace: str | None = None
    kind: str = "function"


Action = TextAction | CallAction


@dataclass(frozen=True, slots=True)
class ReplyIds:
    """The ids and clock a reply carries, chosen by the server so rendering stays a pure function."""

    response_id: str
    created: int  # seconds since the epoch


@dataclass(frozen=True, slots=True)
class Reply:
    """A rendered reply: its content type and the bytes to send, one chunk per SSE event when streamed."""

    content_type: str
    chunks: tuple[bytes, ...] = field(default=())

    @property
    def body(self) -> bytes:
        return b"".join(self.chunks)


def dumps(value: Any) -> bytes:
    return orjson.dumps(value)


def json_reply(value: Any) -> Reply:
    return Reply("application/json", (dumps(value),))


def sse(data: Any, event: str | None = None) -> bytes:
    """One SSE event; `data` is JSON-encoded unless it is already bytes (Chat Completions' `[DONE]`)."""
    payload = data if isinstance(data, bytes) else dumps(data)
    head = b"event: " + event.encode() + b"\n" if event else b""
    return head + b"data: " + payload + b"\n\n"


def sse_reply(events: list[bytes]) -> Reply:
    return Reply("text/event-stream", tuple(events))


def arguments_text(arguments: dict[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()


def strings_in(value: Any) -> tuple[str, ...]:
    """Every string in a JSON value (keys excluded), depth-first in document order, bounded in count and depth."""
    found: list[str] = []
    for text in _walk(value):
        found.append(text)
        if len(found) >= MAX_TEXTS:
            break
    return tuple(found)


def _walk(value: Any) -> Iterator[str]:
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            yield item
        elif depth < MAX_DEPTH and isinstance(item, dict):
            stack.extend((child, depth + 1) for child in reversed(list(item.values())))
        elif depth < MAX_DEPTH and isinstance(item, list):
            stack.extend((child, depth + 1) for child in reversed(item))


def token_estimate(body: bytes) -> int:
    """A rough token count (four bytes a token): clients want a number, none checks it."""
    return max(1, len(body) // 4)


def as_list(value: Any, where: str) -> list[Any]:
    """`value` if it is a list, [] if absent; RequestError naming `where` otherwise."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise RequestError(f"{where} is not a list")
    return value


def as_dicts(value: Any, where: str) -> list[dict[str, Any]]:
    """The objects in a list (other items skipped: an API's kinds the stand-in does not know are not an error)."""
    return [item for item in as_list(value, where) if isinstance(item, dict)]


def text_of(value: Any) -> str:
    return value if isinstance(value, str) else ""


def schema_at(value: Any, *keys: str) -> dict[str, Any] | None:
    """The JSON schema of a structured-output request at `keys` (each level an object), when its type is
    json_schema; None when the request asks for none."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value if isinstance(value, dict) else None


def json_schema_format(value: Any) -> dict[str, Any] | None:
    """`value` when it is a structured-output format object of type json_schema."""
    return value if isinstance(value, dict) and value.get("type") == "json_schema" else None


def id_of(value: Any) -> str | None:
    """An id as the conversation pairs calls and results by: a string, or None (an id of another type pairs nothing)."""
    return value if isinstance(value, str) and value else None
