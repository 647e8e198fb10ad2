"""JSON as a recording holds it: the one compact form every JSON column and meta entry is written in, and a total
parse for what is read back (a recording from elsewhere may hold anything).

The bottom of recordings/: it imports nothing of the package, so the shapes, the meta entries and the redaction
record can all write and read JSON without importing each other.
"""

from __future__ import annotations

import json
import re
from typing import Any

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
# a code point of the surrogate range alone in a str: what the reader hands on from a hostile file's JSON ("\udcff")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(value: object) -> str:
    """Compact JSON text, non-ASCII kept (the form every JSON column is written in); a lone surrogate stays the
    escape it was read from, so the text is always valid UTF-8 and reads back to the same value."""
    return escape_surrogates(_dumps(value))


def escape_surrogates(text: str) -> str:
    """JSON text with each lone surrogate written as its `\\uXXXX` escape (only strings can hold one, and there the
    escape means the same code point): text that encodes to UTF-8 whatever the value held."""
    if not _LONE_SURROGATE.search(text):
        return text
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def parse_json(text: object) -> object:
    """JSON text parsed; None when it is not text or not JSON (too deep, too long a number, invalid UTF-8 ...)."""
    if not isinstance(text, str | bytes):
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def member(payload: object, *path: str) -> Any:
    """The value at `path` in parsed JSON (`member(msg, "params", "_meta")`); None where any step is not an object
    or lacks the key. Parsed JSON objects are dicts, so the test is for dict."""
    for key in path:
        if not isinstance(payload, dict):
            return None
        payload = payload.get(key)
    return payload
