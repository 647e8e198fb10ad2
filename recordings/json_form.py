"""JSON as a recording holds it: the one compact form every JSON column and meta entry is written in, and a total
parse for what is read back (a recording from elsewhere may hold anything).

The bottom of recordings/: it imports nothing of the package, so the shapes, the meta entries and the redaction
record can all write and read JSON without importing each other.
"""

from __future__ import annotations

import json

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def json_text(value: object) -> str:
    """Compact JSON text, non-ASCII kept (the form every JSON column is written in)."""
    return _dumps(value)


def parse_json(text: object) -> object:
    """JSON text parsed; None when it is not text or not JSON (too deep, too long a number, invalid UTF-8 ...)."""
    if not isinstance(text, str | bytes):
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None
