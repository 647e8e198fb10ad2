"""What the Python SDK drivers show their user and answer their server: the drivers' contract's fenced rendering of
server text, its accept/decline rule, and the one-line errors (shared by `py_sdk` and `py_sdk_conformance`, which
`py_sdk` hands over to: the conformance driver builds on these, not on `py_sdk` itself, so neither reaches the other
twice).
"""

from __future__ import annotations

import sys
import unicodedata
from typing import Any
from urllib.parse import urlsplit

from mcp.shared.exceptions import MCPError

DRIVER_NAME = "backchannel-py-sdk-driver"
DRIVER_VERSION = "0.1.0"
MODES = ("auto", "legacy", "2026-07-28")
DECLINE_PREFIX = "DECLINE:"
URL_ELICITATION_REQUIRED = -32042  # 2025-11-25's URLElicitationRequiredError (2026-07-28 removed it)
STDIO_ORIGIN = "stdio"  # what names a server spawned over stdio, where there is no scheme://host:port
FENCE_END = "[end of server text]"
# bidi overrides and isolates can make fenced text read as if it were outside the fence
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def origin_of(url: str) -> str:
    """scheme://host:port of a URL, with the default port spelled out, so it names the server unambiguously."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{parts.hostname}:{port}"


def printable(text: str) -> str:
    """Server text made safe for a terminal: control and bidi characters shown as escapes, never obeyed."""
    return "".join(
        f"\\u{ord(ch):04x}" if ch in _BIDI else f"\\x{ord(ch):02x}" if unicodedata.category(ch) == "Cc" else ch
        for ch in text.replace("\t", "    ")
    )


def render_request(server: str | None, origin: str, mode: str, message: str, url: str | None) -> str:
    """The fenced, attributed block that shows an elicitation to the user (the drivers' contract)."""
    who = f"{printable(server)} ({origin})" if server else origin
    lines = [f"[input request from MCP server {who}, {mode} mode — untrusted text follows]"]
    # every line gets the prefix, so server text can never forge the closing line of the fence
    lines += [f"  | {printable(line)}" for line in (message.splitlines() or [""])]
    if url is not None:
        lines.append(f"  url (shown, not opened): {printable(url)}")
    lines.append(FENCE_END)
    return "\n".join(lines)


def answer_for(mode: str, message: str) -> dict[str, Any]:
    """The contract's answer: decline a URL request whose message starts DECLINE:, accept the rest."""
    if mode == "url":
        return {"action": "decline"} if message.startswith(DECLINE_PREFIX) else {"action": "accept"}
    return {"action": "accept", "content": {"confirmed": True}}


def required_elicitations(exc: BaseException) -> list[dict[str, Any]] | None:
    """The URL-mode elicitations a -32042 error names (None: not a -32042)."""
    if not isinstance(exc, MCPError) or exc.code != URL_ELICITATION_REQUIRED:
        return None
    found = exc.data.get("elicitations") if isinstance(exc.data, dict) else None
    return [e for e in found if isinstance(e, dict)] if isinstance(found, list) else []


def say(line: str, *, err: bool = False) -> None:
    print(line, file=sys.stderr if err else sys.stdout, flush=True)


def error_line(exc: BaseException) -> str:
    """`error: <code> <message>`: the JSON-RPC code for MCP errors, else the exception's type name."""
    if isinstance(exc, MCPError):
        return f"error: {exc.code} {printable(exc.message)}"
    first = str(exc).splitlines()[0] if str(exc) else ""
    return f"error: {type(exc).__name__} {printable(first)}"


def leaf(exc: BaseException) -> BaseException:
    """The first real failure inside anyio's task-group exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
