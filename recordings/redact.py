"""Redacting secrets from headers at write time, keeping each header's presence."""

from __future__ import annotations

import re
from collections.abc import Iterable

SENSITIVE = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key"})
REDACTED = "[redacted]"
_BEARER = re.compile(r"(?i)\b(bearer|basic|token)\s+\S+")


def redact_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The headers with secret values replaced, names and order kept."""
    out = []
    for name, value in headers:
        if name.lower() in SENSITIVE:
            out.append((name, REDACTED))
        else:
            out.append((name, _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", value)))
    return out
