"""Line framing for the stdio side and SSE parsing for the HTTP side: pure functions over bytes.

The 2026-07-28 stdio transport: one JSON-RPC message per line, newline-delimited, no embedded newlines, nothing on
stdout that is not a message. A server's answer may be pretty-printed JSON; it is written back compactly on one line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeGuard

from backchannel.recordings.json_form import json_text


class NotAMessage(ValueError):
    """Bytes that cannot go on the client's stdout: not UTF-8 JSON, or JSON that is neither an object nor a batch."""


@dataclass(frozen=True)
class Incoming:
    """One line the client wrote: its bytes (what gets POSTed) and the JSON value they hold, if any."""

    raw: bytes
    message: Any = None
    parsed: bool = False

    @property
    def method(self) -> str | None:
        method = self.message.get("method") if isinstance(self.message, dict) else None
        return method if isinstance(method, str) else None

    @property
    def request_id(self) -> str | int | None:
        """The id of a JSON-RPC request (a message with a method and an id): the one the bridge must answer."""
        if self.method is None or not isinstance(self.message, dict):
            return None
        found = self.message.get("id")
        return found if _is_id(found) else None


def read_line(raw: bytes) -> Incoming | None:
    """The client's line without its line ending; None for a blank line (framing noise, never forwarded).

    Bytes that are not JSON (invalid UTF-8, a fragment of a pretty-printed message) are kept as they are: the
    bridge forwards them anyway, so the endpoint answers them and the recording shows them. A line that is JSON
    once its invalid UTF-8 is replaced still names its request (`message`, not `parsed`): whatever the upstream
    makes of its bytes, the request gets its one answer."""
    body = raw.rstrip(b"\r\n")
    if not body.strip():
        return None
    try:
        return Incoming(body, json.loads(body.decode("utf-8")), True)
    except UnicodeDecodeError:
        try:
            return Incoming(body, json.loads(body.decode("utf-8", "replace")))
        except (ValueError, RecursionError):
            return Incoming(body)
    except (ValueError, RecursionError):
        return Incoming(body)


_WS = re.compile(r"[ \t\n\r]*")


def top_level_members(prefix: bytes) -> tuple[set[str], str | int | None]:
    """The member names an object's first bytes show at its top level, and its `id` if one of them (a string or an
    integer): what is known of a line too long to read whole. A member whose value is cut off by the end of
    `prefix` is named and ends the reading; ids inside nested values are never taken for the message's own."""
    text = prefix.decode("utf-8", "replace")
    decoder = json.JSONDecoder()
    names: set[str] = set()
    found: str | int | None = None
    at = _WS.match(text, 0).end()  # type: ignore[union-attr]
    if not text.startswith("{", at):
        return names, None
    at += 1
    while True:
        at = _WS.match(text, at).end()  # type: ignore[union-attr]
        if not text.startswith('"', at):
            return names, found
        try:
            name, at = decoder.raw_decode(text, at)  # a string, since it starts with a quote
        except (ValueError, RecursionError):
            return names, found
        names.add(name)  # named even when its value is cut off: a `"result":` seen is a response
        at = _WS.match(text, at).end()  # type: ignore[union-attr]
        if not text.startswith(":", at):
            return names, found
        try:
            value, at = decoder.raw_decode(text, _WS.match(text, at + 1).end())  # type: ignore[union-attr]
        except (ValueError, RecursionError):
            return names, found
        if name == "id" and found is None and _is_id(value):
            found = value
        at = _WS.match(text, at).end()  # type: ignore[union-attr]
        if not text.startswith(",", at):
            return names, found
        at += 1


def _is_id(value: object) -> TypeGuard[str | int]:
    """A JSON-RPC request id: a string or an integer (a bool is not one)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def to_line(text: str | bytes) -> bytes:
    """One server message as one stdout line (ending in `\\n`): its own bytes when they hold no line break, else
    re-serialised compactly (JSON strings cannot hold a raw newline, so that is always one line).

    Raises:
        NotAMessage: Not UTF-8 JSON, or a JSON value that is neither an object nor an array of objects.
    """
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise NotAMessage(f"not UTF-8 JSON ({type(exc).__name__})") from exc
    if not (isinstance(value, dict) or (isinstance(value, list) and value and all(isinstance(v, dict) for v in value))):
        raise NotAMessage(f"a JSON {type(value).__name__}, not a JSON-RPC message")
    stripped = data.strip()
    if b"\n" in stripped or b"\r" in stripped:
        return compact(value)
    return stripped + b"\n"


def compact(message: Any) -> bytes:
    """A JSON value as one line: no whitespace between tokens, UTF-8 kept as is (a lone surrogate, a `\\ud800` either
    side may send, which UTF-8 cannot carry, as its escape), `\\n` at the end."""
    return json_text(message).encode("utf-8") + b"\n"


class SseParser:
    """Incremental SSE: feed it the stream's lines as they arrive, get each complete event's data."""

    def __init__(self) -> None:
        self._data: list[str] = []

    def feed(self, raw: bytes) -> str | None:
        """One line of the stream (with or without its line ending); the data of the event it completes, if any."""
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if not line:
            return self.finish()
        if line.startswith(":"):  # a comment or keep-alive
            return None
        field, _, value = line.partition(":")
        if field == "data":
            self._data.append(value[1:] if value.startswith(" ") else value)
        return None

    def finish(self) -> str | None:
        """The data of a pending event (a stream cut short after a data line still delivers it)."""
        data, self._data = self._data, []
        return "\n".join(data) if data else None


def sse_events(lines: Iterable[bytes]) -> Iterator[str]:
    """The data of each event in an SSE stream, in order; comments and events without data yield nothing."""
    parser = SseParser()
    for raw in lines:
        event = parser.feed(raw)
        if event is not None:
            yield event
    last = parser.finish()
    if last is not None:
        yield last


def error_line(request_id: str | int, code: int, message: str) -> bytes:
    """A JSON-RPC error answering `request_id`, as one line (what the bridge writes when no answer can come)."""
    return compact({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})
