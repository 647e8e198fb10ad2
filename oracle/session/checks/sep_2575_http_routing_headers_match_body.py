"""A 2026-07-28 client's Mcp-Method and Mcp-Name headers say what its request's body says."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, Request, Tally, modern_posts

NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
SENTINEL_START, SENTINEL_END = "=?base64?", "?="
_VISIBLE = re.compile(r"[\x20-\x7e]+")


def header_form(value: str) -> str | None:
    """What a header value stands for: its own text, or the Base64 sentinel's decoded UTF-8; None when broken."""
    if value.startswith(SENTINEL_START) and value.endswith(SENTINEL_END) and len(value) >= 11:
        try:
            return base64.b64decode(value[len(SENTINEL_START) : -len(SENTINEL_END)], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
    return value


def plain_safe(value: str) -> bool:
    """A value that may go as it is: visible ASCII and inner spaces, not itself the sentinel's shape."""
    if not value or value != value.strip(" \t") or _VISIBLE.fullmatch(value) is None:
        return False
    return not (value.startswith(SENTINEL_START) and value.endswith(SENTINEL_END))


def _problems(request: Request) -> list[str]:
    method = request.message.method or ""
    out = []
    said_method = request.headers.get("mcp-method")
    if said_method is None:
        out.append("no Mcp-Method header")
    elif said_method != method:
        out.append(f"Mcp-Method {said_method[:40]!r} for method {method[:40]!r}")
    member = NAMED.get(method)
    value = request.params.get(member) if member else None
    if isinstance(value, str):
        said_name = request.headers.get("mcp-name")
        if said_name is None:
            out.append("no Mcp-Name header")
        elif header_form(said_name) != value:
            out.append(f"Mcp-Name {said_name[:40]!r} does not stand for {member} {value[:40]!r}")
        elif said_name == value and not plain_safe(value):
            out.append(f"Mcp-Name sent plain where the Base64 sentinel is required ({value[:40]!r})")
    return out


@check(
    "sep-2575-http-routing-headers-match-body",
    scenario=SCENARIO,
    side="client",
    level="MUST",
    spec=f"{SPEC}/basic/transports/streamable-http",
    title="Mcp-Method and Mcp-Name are sent and agree with the body (Base64 where the value is not header-safe)",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Over Streamable HTTP, 2026-07-28 requests MUST carry `Mcp-Method` (the body's `method`) and, for
    `tools/call`, `prompts/get` and `resources/read`, `Mcp-Name` (`params.name` or `params.uri`), encoded as
    `=?base64?...?=` when the value is not plain visible ASCII without edge whitespace (or looks like the sentinel
    itself). Judged on each 2026-07-28 request in a POST of its own, the headers as sent against the body as the
    client sent it. A header missing, disagreeing, or plain where Base64 is required: FAIL. None: SKIP."""
    tally = Tally()
    for request in modern_posts(rec):
        tally.exercise(request.message.run_id)
        problems = _problems(request)
        if problems:
            why = f"{request.message.method} (id {request.message.jsonrpc_id}): {'; '.join(problems)}"
            tally.broke(why, (request.evidence("; ".join(problems)[:200]),))
        elif tally.keeping:
            tally.keep(request.evidence("routing headers agree"))
    yield tally.finding(what="2026-07-28 POST(s)", kept="each with agreeing routing headers")
