"""Turning HTTP bodies into JSON-RPC messages, and naming what is wrong with the ones that are not."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import orjson

from backchannel.recordings.guard import DEFAULT_LIMITS, json_depth_over

# Bodies above this are stored raw but not parsed: the proxy must stay responsive for everyone else.
PARSE_LIMIT = 16 * 1024 * 1024
# How much of a value that cannot be re-serialised a message keeps (its bytes are whole in the exchange row).
DEEP_PREFIX = 4096


@dataclass(frozen=True, slots=True)
class ParsedMessage:
    """One JSON-RPC message out of a body or an SSE event."""

    kind: str  # request | notification | response | error | invalid
    jsonrpc_id: str | None  # the id as JSON text, so 7 and "7" stay apart
    method: str | None
    payload: Any
    raw: str | None = None  # the text to record instead of the payload (a value too deep to decode)


@dataclass(frozen=True, slots=True)
class ParsedBody:
    """What a body held: its messages, its text, and the anomalies it showed."""

    text: str | None
    messages: tuple[ParsedMessage, ...]
    anomalies: tuple[tuple[str, str], ...]  # (kind, detail)


_PLAIN_ID = re.compile(r"[A-Za-z0-9_.:-]*\Z")


def loads(text: str | bytes) -> Any:
    """json.loads, faster: orjson first; what orjson refuses and the stdlib takes (NaN, integers past 64 bits, lone
    surrogates, deeper nesting) falls back to the stdlib, so every message decodes exactly as before.

    Raises:
        ValueError: not JSON. RecursionError: nested deeper than the stdlib can follow.
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


# The reader refuses a recording whose JSON columns nest deeper than this: what the proxy writes must stay under it.
READABLE_DEPTH = DEFAULT_LIMITS.max_json_depth


def too_deep(text: str | None) -> bool:
    """Whether JSON text nests deeper than a reader of the recording accepts (linear; strings skipped)."""
    return text is not None and json_depth_over(text, READABLE_DEPTH)


def deep_stand_in(what: str, size: int) -> str:
    """The JSON string a column holds instead of a value nested too deeply to be read back."""
    return json.dumps(f"backchannel: {what} nested deeper than {READABLE_DEPTH} levels ({size} characters); kept raw")


def id_text(raw_id: Any) -> str:
    """A JSON-RPC id as JSON text, byte for byte as json.dumps writes it (so 7 and "7" stay apart)."""
    if type(raw_id) is int:
        return str(raw_id)
    if type(raw_id) is str and _PLAIN_ID.match(raw_id):
        return f'"{raw_id}"'
    try:
        return json.dumps(raw_id, separators=(",", ":"))
    except (RecursionError, ValueError):
        return '"<id too deep to encode>"'


def classify(payload: Any) -> ParsedMessage:
    """Name the kind of one decoded JSON-RPC value."""
    if not isinstance(payload, dict):
        return ParsedMessage("invalid", None, None, payload)
    raw_id = payload.get("id")
    jid = None if "id" not in payload else id_text(raw_id)
    method = payload.get("method") if isinstance(payload.get("method"), str) else None
    if method is not None:
        return ParsedMessage("request" if "id" in payload else "notification", jid, method, payload)
    if "error" in payload:
        return ParsedMessage("error", jid, None, payload)
    if "result" in payload:
        return ParsedMessage("response", jid, None, payload)
    return ParsedMessage("invalid", jid, None, payload)


def parse_text(text: str) -> tuple[tuple[ParsedMessage, ...], tuple[tuple[str, str], ...]]:
    """Decode JSON text into messages; a batch array yields each member plus a `jsonrpc-batch` anomaly."""
    try:
        value = loads(text)
    except ValueError as exc:
        return (), (("not-json", f"body is not JSON: {exc}"),)
    except RecursionError:
        invalid = ParsedMessage("invalid", None, None, None, raw=text)
        detail = f"JSON nested too deeply to decode ({len(text)} characters); kept raw"
        return (invalid,), (("json-too-deep", detail),)
    if isinstance(value, list):
        detail = f"JSON-RPC batch of {len(value)} messages (batching was removed from MCP in 2025-06-18)"
        return tuple(classify(v) for v in value), (("jsonrpc-batch", detail),)
    message = classify(value)
    anomalies: tuple[tuple[str, str], ...] = ()
    if message.kind == "invalid":
        anomalies = (("not-jsonrpc", "JSON value is not a JSON-RPC request, notification or response"),)
    return (message,), anomalies


def parse_body(body: bytes | None, content_type: str | None) -> ParsedBody:
    """Parse a whole JSON body (not SSE) without ever raising."""
    if not body:
        return ParsedBody(None, (), ())
    if len(body) > PARSE_LIMIT:
        return ParsedBody(
            None, (), (("body-too-large", f"{len(body)} bytes, over the {PARSE_LIMIT}-byte parse limit; kept raw"),)
        )
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ParsedBody(None, (), (("invalid-utf8", f"body is not UTF-8 at byte {exc.start}: {exc.reason}"),))
    messages, anomalies = parse_text(text)
    return ParsedBody(text, messages, anomalies)


def is_sse(content_type: str | None) -> bool:
    return bool(content_type) and content_type.split(";")[0].strip().lower() == "text/event-stream"  # type: ignore[union-attr]


def is_json(content_type: str | None) -> bool:
    return bool(content_type) and content_type.split(";")[0].strip().lower() == "application/json"  # type: ignore[union-attr]
