"""The provenance rule: does the text before an occurrence of server-chosen text say where it came from?

For each verbatim occurrence, the 512 bytes before it are examined. The server's nonce-tagged name or its
origin anywhere in that window is a provenance anchor. An attribution phrase is an anchor only when it
introduces the message: on the occurrence's own line or the line just before it, so a client's unrelated log
lines (a debug dump full of "server" and "elicitation") earn it nothing. The rule is monotone: adding text
before an occurrence can only add anchors, never remove one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

WINDOW = 512
PHRASES: tuple[str, ...] = (
    "untrusted",
    "server-supplied",
    "server supplied",
    "from the server",
    "from mcp server",
    "from the mcp server",
    "mcp server",
    "server asks",
    "server says",
    "server requests",
    "server is requesting",
    "requested by",
    "on behalf of",
    "input request",
    "elicitation",
    "sampling request",
)


def phrases_in(text: str) -> list[str]:
    """Attribution phrases a text contains (case-insensitive); the probe refuses to send a message with any."""
    lowered = text.lower()
    return [phrase for phrase in PHRASES if phrase in lowered]


@dataclass(frozen=True, slots=True)
class Occurrence:
    offset: int
    attributed: bool
    anchor: str | None  # what attributed it: "name", "origin" or "phrase:<phrase>"
    names_server: bool  # the server's name or origin is in the window (the elicitation check's stricter bar)


def _introducing_lines(data: bytes, offset: int, end: int) -> str:
    """The occurrence's own line (whole) and the line before it."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    prev_start = data.rfind(b"\n", 0, max(line_start - 1, 0)) + 1 if line_start > 0 else line_start
    line_end = data.find(b"\n", end)
    return data[prev_start : len(data) if line_end < 0 else line_end].decode("utf-8", "replace")


def judge_occurrence(data: bytes, offset: int, token_length: int, anchors: Iterable[str]) -> Occurrence:
    """Apply the rule to one occurrence; anchors are the server's name and origin(s)."""
    window = data[max(0, offset - WINDOW) : offset].decode("utf-8", "replace")
    for anchor in anchors:
        if anchor and anchor in window:
            kind = "origin" if ":" in anchor or "/" in anchor else "name"
            return Occurrence(offset, True, kind, True)
    nearby = _introducing_lines(data, offset, offset + token_length)
    found = phrases_in(nearby.replace(data[offset : offset + token_length].decode("utf-8", "replace"), ""))
    if found:
        return Occurrence(offset, True, f"phrase:{found[0]}", False)
    return Occurrence(offset, False, None, False)
