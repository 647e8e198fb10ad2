"""The records of a model context (segments of one request a coding agent sent its model) and the bounded walk that
builds them; the per-API readers are in model_apis.py, the entry point in model_context.py."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["system", "user", "assistant", "tool-call", "tool-result", "tool-description"]

MAX_SEGMENTS = 4096  # more than any agent's request holds; past it the request is not read (never half-read clean)
MAX_DEPTH = 32  # JSON nesting a reader follows inside one value (tool arguments, a tool's response, a schema)

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class Segment:
    """One piece of text in the request, with the structure around it.

    `tool` is the tool it is tied to: for a tool call or a tool description its own name, for a tool result the name
    of the call it answers (found by id, call_id or name; None when no call matches). `namespace` is the tool's
    namespace where the API groups tools (OpenAI Responses `namespace` items), else None. `call` ties a call and its
    result by the API's id (tool_use id, tool_call_id, call_id, functionCall id). `path` is where the text
    sits in the request body, as a JSON path (`$.messages[3].content[0].content`)."""

    kind: Kind
    role: str
    text: str
    path: str
    tool: str | None = None
    namespace: str | None = None
    call: str | None = None  # a tool call's id, or the id of the call a tool result answers (when the API has ids)


@dataclass(frozen=True, slots=True)
class ModelContext:
    """The context one model request carried, as segments in body order."""

    seq: int
    api: str
    segments: tuple[Segment, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class Unread:
    """A request the oracle could not read, and why: never judged, never counted clean."""

    seq: int
    reason: str


class ShapeError(Exception):
    """The request is not the shape its API gives it: the message says where and what was seen."""


def child(path: str, key: str | int) -> str:
    """The JSON path of a member (`$.a.b`, `$.a["x-y"]`) or an item (`$.a[2]`)."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if _IDENTIFIER.fullmatch(key) else f"{path}[{json.dumps(key)}]"


def what(value: object) -> str:
    """A value's JSON type, for a shape error."""
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array"}.get(
        type(value), "an object"
    )


def expect_object(value: object, path: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise ShapeError(f"{path} is {what(value)}, not an object")
    return value


def expect_list(value: object, path: str) -> list[object]:
    if not isinstance(value, list):
        raise ShapeError(f"{path} is {what(value)}, not an array")
    return value


def optional_str(value: object, path: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ShapeError(f"{path} is {what(value)}, not a string")
    return value


def strings(value: object, path: str, depth: int = 0) -> Iterator[tuple[str, str]]:
    """Every string inside a JSON value with its path, depth first (object keys are not text the model reads as
    content: a schema's property names are, but they hold no marker the probe plants)."""
    if depth > MAX_DEPTH:
        raise ShapeError(f"{path} nests deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, child(path, index), depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, child(path, key), depth + 1)


class Segments:
    """The segments of one request as a reader finds them, bounded by MAX_SEGMENTS."""

    def __init__(self) -> None:
        self.found: list[Segment] = []

    def add(self, segment: Segment) -> None:
        if len(self.found) >= MAX_SEGMENTS:
            raise ShapeError(f"the request holds more than {MAX_SEGMENTS} pieces of text")
        self.found.append(segment)

    def text(
        self,
        kind: Kind,
        role: str,
        text: str,
        path: str,
        tool: str | None = None,
        ns: str | None = None,
        call: str | None = None,
    ) -> None:
        self.add(Segment(kind, role, text, path, tool, ns, call))

    def value(
        self,
        kind: Kind,
        role: str,
        value: object,
        path: str,
        tool: str | None = None,
        ns: str | None = None,
        call: str | None = None,
    ) -> None:
        """Every string inside a JSON value (tool arguments, a tool's response, a schema), one segment each."""
        for where, text in strings(value, path):
            self.add(Segment(kind, role, text, where, tool, ns, call))


def role_kind(role: str, path: str) -> Kind:
    """The kind of a turn by its role (OpenAI's `developer` is a system turn, Gemini's `model` an assistant one)."""
    if role in ("system", "developer"):
        return "system"
    if role == "user":
        return "user"
    if role in ("assistant", "model"):
        return "assistant"
    raise ShapeError(f"{path} has role {role!r}, which this reader does not know")


def text_or_blocks(
    out: Segments,
    kind: Kind,
    role: str,
    value: object,
    path: str,
    silent: frozenset[str],
    tool: str | None = None,
    ns: str | None = None,
    call: str | None = None,
) -> None:
    """A content that is a string or a list of `{"type": ..., "text": ...}` blocks (bare strings allowed); a block
    of a type neither textual nor in `silent` is a ShapeError."""
    if isinstance(value, str):
        out.text(kind, role, value, path, tool, ns, call)
        return
    for index, block in enumerate(expect_list(value, path)):
        where = child(path, index)
        if isinstance(block, str):
            out.text(kind, role, block, where, tool, ns, call)
            continue
        item = expect_object(block, where)
        block_type = item.get("type")
        if block_type in (None, "text", "input_text", "output_text") and isinstance(item.get("text"), str):
            out.text(kind, role, str(item["text"]), child(where, "text"), tool, ns, call)
        elif block_type not in silent:
            raise ShapeError(f"{where} is a block of type {block_type!r}, which this reader does not know")


def described(out: Segments, tool: dict[str, object], path: str, schema_key: str, ns: str | None = None) -> None:
    """A tool's description and every string of its parameter schema, tied to its name."""
    name = optional_str(tool.get("name"), child(path, "name"))
    description = optional_str(tool.get("description"), child(path, "description"))
    if description is not None:
        out.text("tool-description", "tool", description, child(path, "description"), name, ns)
    if tool.get(schema_key) is not None:
        out.value("tool-description", "tool", tool[schema_key], child(path, schema_key), name, ns)


def each_object(value: object, path: str) -> Iterator[tuple[dict[str, object], str]]:
    """The objects of an array with their paths; absent (None) is empty."""
    if value is None:
        return
    for index, item in enumerate(expect_list(value, path)):
        yield expect_object(item, child(path, index)), child(path, index)
