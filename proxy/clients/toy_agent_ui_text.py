"""How the toy agent's `ui` builds render server text (control characters and bidi controls spelled out, links, hosts)
and read a form's answers (each field's hint, and what it takes)."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

_BIDI = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# a URL standing alone between spaces: one glued to (escaped) control characters is never linked
_LINK = re.compile(r"(?<!\S)https?://[^\s<>\"'`\\]+(?=\s|$)")


def neutralise(text: str) -> str:
    """`text` with every control character (C0 but tab, DEL, C1) and bidi control spelled out as `\\xNN`/`\\uNNNN`."""
    text = re.sub(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]", lambda m: f"\\x{ord(m.group()):02x}", text)
    return _BIDI.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def osc8(text: str) -> str:
    """The URLs in `text` as OSC 8 hyperlinks (what the osc8-links build does, and a careful client must not)."""

    def link(match: re.Match[str]) -> str:
        url = match.group().rstrip(".,;:)")
        return f"\x1b]8;;{url}\x1b\\{url}\x1b]8;;\x1b\\{match.group()[len(url) :]}"

    return _LINK.sub(link, text)


def host_of(url: str) -> str:
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def is_punycode(host: str) -> bool:
    return any(label.startswith("xn--") for label in host.lower().split("."))


def field_hint(prop: dict[str, Any]) -> str:
    """How a field's prompt says what it takes: its choices, `true/false`, or its type."""
    options = _choices(prop)
    if options:
        return "/".join(str(o) for o in options)
    kind = prop.get("type")
    names = {"boolean": "true/false", "integer": "integer", "number": "number", "array": "comma-separated"}
    return names.get(kind, "text") if isinstance(kind, str) else "text"


def _choices(prop: dict[str, Any]) -> list[Any]:
    if isinstance(prop.get("enum"), list):
        return list(prop["enum"])
    options = prop.get("oneOf") or prop.get("anyOf")
    return [o["const"] for o in options if isinstance(o, dict) and "const" in o] if isinstance(options, list) else []


def parse_field(prop: dict[str, Any], raw: str) -> tuple[bool, Any]:
    """(True, value) for an answer the field takes, (False, None) for one it does not."""
    options = _choices(prop)
    if options:
        found = [o for o in options if str(o) == raw]
        return (True, found[0]) if found else (False, None)
    kind = prop.get("type")
    if kind == "boolean":
        word = raw.strip().lower()
        if word in ("true", "yes", "y", "1", "false", "no", "n", "0"):
            return True, word in ("true", "yes", "y", "1")
        return False, None
    try:
        if kind == "integer":
            return True, int(raw)
        if kind == "number":
            return True, float(raw)
    except ValueError:
        return False, None
    if kind == "array":
        return True, [item.strip() for item in raw.split(",") if item.strip()]
    return True, raw


def review(content: dict[str, Any]) -> str:
    pairs = [
        f"{neutralise(name)}={neutralise(json.dumps(value, ensure_ascii=False))}" for name, value in content.items()
    ]
    return ", ".join(pairs) or "(no values)"
