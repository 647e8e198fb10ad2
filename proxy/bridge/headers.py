"""The HTTP headers a stdio client never sends, derived from the message body and what the wire negotiated (pure).

Modern messages (`_meta.io.modelcontextprotocol/protocolVersion` in the params) get `MCP-Protocol-Version` from
that field, `Mcp-Method` and, for tools/call, resources/read and prompts/get, `Mcp-Name` from `params.name` or
`params.uri` (the `=?base64?…?=` sentinel when the value is not plain printable ASCII or looks like the sentinel).
Legacy messages get what a 2025-11-25 HTTP client sends after `initialize`: the negotiated version and the session.
Every request carries `X-Backchannel-Bridge: stdio` and `X-Backchannel-Derived` naming the headers derived here.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any

from backchannel.oracle.bridge import BRIDGE_HEADER, DERIVED_HEADER, STDIO

META_VERSION = "io.modelcontextprotocol/protocolVersion"
NAMED_METHODS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
ACCEPT = "application/json, text/event-stream"
CONTENT_TYPE = "application/json"

_HEADER_SAFE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")
_SENTINEL = re.compile(r"=\?base64\?.*\?=", re.DOTALL)


@dataclass(frozen=True)
class Negotiated:
    """What the wire settled for a legacy client: the session `initialize` handed out and the version it agreed."""

    session_id: str | None = None
    version: str | None = None


def header_safe(value: str) -> bool:
    """Visible ASCII with inner spaces: a value that may go into a header unencoded."""
    return _HEADER_SAFE.fullmatch(value) is not None


def name_value(value: str) -> str:
    """`Mcp-Name`'s spelling of a value: as is when header-safe, else the `=?base64?…?=` sentinel (also for a plain
    value that looks like the sentinel, so it is never mistaken for one)."""
    if header_safe(value) and not _SENTINEL.fullmatch(value):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def modern_version(message: Any) -> str | None:
    """`params._meta.io.modelcontextprotocol/protocolVersion`, when the message carries one as a string."""
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(META_VERSION) if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


def derive(message: Any, negotiated: Negotiated) -> dict[str, str]:
    """Every header the bridge sends with this message (`message` is the parsed line, None when it was not JSON).

    A derived value that cannot be a header (a version or method with control characters) is left out rather
    than altered: the endpoint then judges the request as one that lacks the header."""
    derived = {"Accept": ACCEPT, "Content-Type": CONTENT_TYPE}
    method = message.get("method") if isinstance(message, dict) else None
    version = modern_version(message)
    if version is not None:
        if header_safe(version):
            derived["MCP-Protocol-Version"] = version
        if isinstance(method, str) and header_safe(method):
            derived["Mcp-Method"] = method
        source = NAMED_METHODS.get(method) if isinstance(method, str) else None
        params = message.get("params") if isinstance(message, dict) else None
        name = params.get(source) if source and isinstance(params, dict) else None
        if isinstance(name, str):
            derived["Mcp-Name"] = name_value(name)
    elif method != "initialize":
        if negotiated.version is not None and header_safe(negotiated.version):
            derived["MCP-Protocol-Version"] = negotiated.version
        if negotiated.session_id is not None and header_safe(negotiated.session_id):
            derived["Mcp-Session-Id"] = negotiated.session_id
    return {**derived, BRIDGE_HEADER: STDIO, DERIVED_HEADER: ",".join(derived)}


def learn(negotiated: Negotiated, sent: Any, session_header: str | None, answer: Any) -> Negotiated:
    """What an `initialize` exchange settles: the `Mcp-Session-Id` its response carried and the version its result
    agreed (the requested one when the result names none). Any other exchange, or a refused one, settles nothing."""
    if not (isinstance(sent, dict) and sent.get("method") == "initialize"):
        return negotiated
    result = answer.get("result") if isinstance(answer, dict) else None
    if not isinstance(result, dict):  # a refused initialize settles nothing
        return negotiated
    agreed = result.get("protocolVersion")
    params = sent.get("params")
    asked = params.get("protocolVersion") if isinstance(params, dict) else None
    version = agreed if isinstance(agreed, str) else asked if isinstance(asked, str) else negotiated.version
    return Negotiated(session_id=session_header or negotiated.session_id, version=version)
