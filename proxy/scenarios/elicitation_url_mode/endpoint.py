"""The `elicitation-url-mode` scenario's endpoint: seven tools that answer with URL- and form-mode input requests.

Each tool keeps its place in the flow only in the requestState it hands out, as a stateless server must (in a 2025
era the endpoint's channel sends the requests on the call's stream and hands the state back itself). Settings come
from EndpointConfig.params: `url_declined` (the URL served by the declined-URL server), `url_declined_base` (that
server's root), `url_base` (where every other URL points) and `hold_ms` (how long the held retries wait, default
5000). What differs in the 2025 eras (a tool error where 2026 answers -32021, `elicitationId`,
`notifications/elicitation/complete`, the -32042 of `url_required`) lives in endpoint_2025.py.
"""

from __future__ import annotations

import secrets
from typing import Any

from backchannel.proxy.endpoint.tools import ToolCall, ToolReply, ToolSpec
from backchannel.proxy.scenarios.elicitation_url_mode.endpoint_2025 import (
    completions,
    legacy_gate,
    url_mode_ids,
    url_required,
)

MISSING_CAPABILITY = -32021
CONFIRM_SCHEMA = {"type": "object", "properties": {"confirmed": {"type": "boolean"}}, "required": ["confirmed"]}
NEEDS = {
    "url_rounds": ("url",),
    "url_and_form": ("url", "form"),
    "missing_mode": ("form",),
    "form_only": ("form",),
    "held_json": ("url",),
    "held_sse": ("url",),
    "url_required": ("url",),
}


def declared_modes(capabilities: dict[str, Any]) -> set[str]:
    """Elicitation modes a request declared; an empty object means form only."""
    elicitation = capabilities.get("elicitation")
    if not isinstance(elicitation, dict):
        return set()
    return {"form"} if not elicitation else {m for m in ("form", "url") if m in elicitation}


def refuse_undeclared(call: ToolCall, mode: str, message: str) -> ToolReply | None:
    """-32021 under HTTP 400 naming exactly `mode` when this request did not declare it (None when it did): the
    answer the server scenarios' tools give a client without the mode they need."""
    if mode in declared_modes(call.client_capabilities):
        return None
    error = {
        "code": MISSING_CAPABILITY,
        "message": message,
        "data": {"requiredCapabilities": {"elicitation": {mode: {}}}},
    }
    return ToolReply(error=error, http_status=400)


def state(tool: str, step: int) -> str:
    return f"eum.{tool}.{step}.{secrets.token_hex(4)}"


def step_of(call: ToolCall) -> int:
    """0 for a first call; otherwise the step recorded in the requestState this tool handed out."""
    parts = (call.request_state or "").split(".")
    if len(parts) == 4 and parts[0] == "eum" and parts[1] == call.name and parts[2].isdigit():
        return int(parts[2])
    return 0


def url_request(message: str, url: str) -> dict[str, Any]:
    return {"method": "elicitation/create", "params": {"mode": "url", "message": message, "url": url}}


def form_request(message: str) -> dict[str, Any]:
    return {
        "method": "elicitation/create",
        "params": {"mode": "form", "message": message, "requestedSchema": CONFIRM_SCHEMA},
    }


def ask(requests: dict[str, Any], call: ToolCall, step: int) -> ToolReply:
    """The round's input requests and a new requestState (URL requests gain their 2025-11-25 elicitationId), with
    the completion notifications of the URL requests the client just accepted."""
    minted = state(call.name, step)
    result = {"resultType": "input_required", "inputRequests": url_mode_ids(call, requests, minted)}
    return ToolReply(result={**result, "requestState": minted}, notifications=completions(call))


def done(text: str, call: ToolCall | None = None) -> ToolReply:
    notes = completions(call) if call is not None else ()
    return ToolReply(result={"content": [{"type": "text", "text": text}], "isError": False}, notifications=notes)


def _url(call: ToolCall, path: str) -> str:
    return f"{call.params.get('url_base', 'http://127.0.0.1:9')}{path}"


def _gate(call: ToolCall) -> ToolReply | None:
    if call.era != "modern":
        return legacy_gate(call, NEEDS[call.name], declared_modes(call.client_capabilities))
    missing = [mode for mode in NEEDS[call.name] if mode not in declared_modes(call.client_capabilities)]
    if not missing:
        return None
    error = {
        "code": MISSING_CAPABILITY,
        "message": "Missing required client capability",
        "data": {"requiredCapabilities": {"elicitation": {mode: {} for mode in missing}}},
    }
    return ToolReply(error=error, http_status=400)


def _answered(call: ToolCall, key: str) -> dict[str, Any] | None:
    answer = (call.input_responses or {}).get(key)
    return answer if isinstance(answer, dict) else None


def url_rounds(call: ToolCall) -> ToolReply:
    """Three URL rounds, each a new key and state; round 3 reuses round 1's URL and asks for a decline."""
    first = call.params.get("url_declined", _url(call, "/link/round-1"))
    rounds = {
        1: url_request("Open this page to link your account (round 1).", first),
        2: url_request("Open this page to grant access (round 2).", _url(call, "/link/round-2")),
        3: url_request("DECLINE: this page must not be opened (round 3).", first),
    }
    step = step_of(call)
    if step == 0:
        return ask({"url_1": rounds[1]}, call, 1)
    if _answered(call, f"url_{step}") is None:  # the new key went unanswered: ask again, as a server SHOULD
        return ask({f"url_{step}": rounds[step]}, call, step)
    if step < 3:
        return ask({f"url_{step + 1}": rounds[step + 1]}, call, step + 1)
    last = _answered(call, "url_3") or {}
    return done(f"three rounds answered; round 3: {last.get('action')}", call)


def url_and_form(call: ToolCall) -> ToolReply:
    """A URL request and a form request in one InputRequiredResult."""
    if step_of(call) == 0:
        link = url_request("Open this page to connect the repository.", _url(call, "/link/mixed"))
        return ask({"link": link, "confirm": form_request("Confirm the repository connection.")}, call, 1)
    return done("mixed round answered", call)


def missing_mode(call: ToolCall) -> ToolReply:
    """A request with no mode (so form mode) carrying a stray url field next to its schema."""
    if step_of(call) == 0:
        request = form_request("Confirm the repository details.")
        del request["params"]["mode"]
        request["params"]["url"] = _url(call, "/stray")
        return ask({"details": request}, call, 1)
    return done("details answered")


def form_only(call: ToolCall) -> ToolReply:
    """One plain form request."""
    if step_of(call) == 0:
        return ask({"confirm": form_request("Confirm the status refresh.")}, call, 1)
    return done("confirmation answered")


def _held(call: ToolCall, transport: str) -> ToolReply:
    if step_of(call) == 0:
        return ask(
            {"authorize": url_request("Open this page to authorize the sync.", _url(call, f"/link/{call.name}"))},
            call,
            1,
        )
    answer = _answered(call, "authorize") or {}
    if answer.get("action") != "accept":
        return done(f"authorization {answer.get('action', 'missing')}")
    hold = int(call.params.get("hold_ms", "5000"))
    reply = done("authorized after the server finished waiting")
    return ToolReply(
        result=reply.result, hold_ms=hold, transport="sse" if transport == "sse" else "json", keepalive_ms=500
    )


def held_json(call: ToolCall) -> ToolReply:
    """After the accept, the retry's answer is held as plain JSON: no bytes until it is ready."""
    return _held(call, "json")


def held_sse(call: ToolCall) -> ToolReply:
    """After the accept, the retry's answer is held on SSE with keep-alives (and progress, given a token)."""
    return _held(call, "sse")


def _gated(handler: Any) -> Any:
    def run(call: ToolCall) -> ToolReply:
        return _gate(call) or handler(call)

    run.__doc__ = handler.__doc__
    return run


TOOLS: tuple[ToolSpec, ...] = tuple(
    ToolSpec(
        name=fn.__name__,
        description=(fn.__doc__ or "").strip(),
        input_schema={"type": "object", "properties": {}},
        handler=_gated(fn),
    )
    for fn in (url_rounds, url_and_form, missing_mode, form_only, held_json, held_sse, url_required)
)
