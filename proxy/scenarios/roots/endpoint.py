"""The `roots` scenario's server: one tool that asks for the client's roots, and what its GET stream carries.

`list_roots` asks `roots/list` as an MRTR input request (2026-07-28; in a 2025 session the endpoint sends it as a
server-initiated request on the call's stream, proxy/endpoint/server_requests.py), then reports how many roots it
got. It asks only a client that declared `roots` (one that did not gets -32021 under HTTP 400 in 2026-07-28, an
error result in 2025), except in the dedicated run whose endpoint has the `ask_undeclared` setting: there it asks
every client, so what a client without the capability does is seen (the only place backchannel asks out of turn).

On a 2025 session's GET stream (proxy/endpoint/listen.py) it asks `roots/list` when the stream opens and again on
every `notifications/roots/list_changed`: the classic use of the stream, unrelated to any call. It asks there only
a client that declared `roots`.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from backchannel.oracle.scenarios.roots.facts import ASK_UNDECLARED, LIST_CHANGED, TOOL
from backchannel.proxy.endpoint.listen import OPENED
from backchannel.proxy.endpoint.tools import ListenEvent, ToolCall, ToolReply, ToolSpec

MISSING_CAPABILITY = -32021
KEY = "roots"
ASK = {"method": "roots/list", "params": {}}


def _text(text: str, *, error: bool = False) -> ToolReply:
    return ToolReply(result={"content": [{"type": "text", "text": text}], "isError": error})


def list_roots(call: ToolCall) -> ToolReply:
    """Asks the client for its roots (roots/list) and says how many it gave."""
    answer = (call.input_responses or {}).get(KEY)
    if (call.request_state or "").startswith(f"roots.{call.name}.") and call.input_responses is not None:
        roots = answer.get("roots") if isinstance(answer, dict) else None
        if isinstance(roots, list):
            return _text(f"{call.name}: the client gave {len(roots)} root(s)")
        return _text(f"{call.name}: the client gave no roots list", error=True)
    if "roots" not in call.client_capabilities and call.params.get(ASK_UNDECLARED) != "1":
        message = f"{call.name} needs the roots client capability"
        if call.era == "modern":
            error = {"code": MISSING_CAPABILITY, "message": message, "data": {"requiredCapabilities": {"roots": {}}}}
            return ToolReply(error=error, http_status=400)
        return _text(message, error=True)
    state = f"roots.{call.name}.{secrets.token_hex(6)}"
    return ToolReply(result={"resultType": "input_required", "inputRequests": {KEY: ASK}, "requestState": state})


def listen(event: ListenEvent) -> Sequence[Mapping[str, Any]]:
    """roots/list on the GET stream when it opens and after each list_changed, for a client that declared roots."""
    if "roots" not in event.client_capabilities or event.trigger not in (OPENED, LIST_CHANGED):
        return []
    return [ASK]


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name=TOOL,
        description=(list_roots.__doc__ or "").strip(),
        input_schema={"type": "object", "properties": {}},
        handler=list_roots,
    ),
)
