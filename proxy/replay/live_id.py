"""Putting the live JSON-RPC id into a recorded reply without touching any other byte of it.

Re-serialising the JSON would change spacing and key order, and the client must receive the recorded bytes; so
only the span of the top-level `id` value is replaced, and only when it is the recorded request's id.
"""

from __future__ import annotations

import json
from typing import Any

from backchannel.recordings.json_form import json_text

_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n"


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _SPACE:
        pos += 1
    return pos


def _id_span(text: str) -> tuple[int, int, Any] | None:
    """Where the top-level object's `id` value sits, and that value; None if there is none or it does not parse."""
    pos = _skip(text, 0)
    if not text.startswith("{", pos):
        return None
    pos = _skip(text, pos + 1)
    while pos < len(text) and text[pos] != "}":
        key, pos = _DECODER.raw_decode(text, pos)
        pos = _skip(text, pos)
        if not text.startswith(":", pos):
            return None
        start = _skip(text, pos + 1)
        value, end = _DECODER.raw_decode(text, start)
        if key == "id":
            return start, end, value
        pos = _skip(text, end)
        if text.startswith(",", pos):
            pos = _skip(text, pos + 1)
    return None


def with_live_id(body: bytes, recorded_id: Any, live_id: Any) -> bytes:
    """`body` with its top-level id swapped from `recorded_id` to `live_id`; unchanged when they are equal, when
    the body is not a JSON object, or when its id is another one (a server-to-client request in a stream)."""
    if recorded_id == live_id or recorded_id is None:
        return body
    try:
        text = body.decode("utf-8")
        span = _id_span(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return body
    if span is None or span[2] != recorded_id or isinstance(span[2], bool) != isinstance(recorded_id, bool):
        return body
    start, end, _ = span
    # json_text: a live id holding a lone surrogate (a client's "\ud800") is written as its escape
    return (text[:start] + json_text(live_id) + text[end:]).encode("utf-8")


def sse_with_live_id(event: bytes, recorded_id: Any, live_id: Any) -> bytes:
    """An SSE item with the id swapped in each `data:` line that holds the reply (one JSON document per line)."""
    if recorded_id == live_id or b"data:" not in event:
        return event
    lines = event.split(b"\n")
    for i, line in enumerate(lines):
        if line.startswith(b"data:"):
            value = line[5:]
            lead = b" " if value.startswith(b" ") else b""
            tail = b"\r" if value.endswith(b"\r") else b""
            core = value[len(lead) : len(value) - len(tail)]
            lines[i] = b"data:" + lead + with_live_id(core, recorded_id, live_id) + tail
    return b"\n".join(lines)
