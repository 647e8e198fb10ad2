"""The capabilities a client declares on a request: what each session rule about them reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from backchannel.oracle.model import Finding
from backchannel.recordings.model import Recording

from .facts import CLIENT_CAPABILITIES, Request, Tally, client_sessions


def declared(request: Request) -> Mapping[str, Any] | None:
    """The capabilities a request declares: its `_meta` clientCapabilities (2026-07-28) or `initialize`'s own."""
    found = request.meta.get(CLIENT_CAPABILITIES)
    if found is None and request.message.method == "initialize":
        found = request.params.get("capabilities")
    return found if isinstance(found, dict) else None


def declares_as_object(rec: Recording, name: str) -> Finding:
    """Each request that declares capability `name` declares it as a JSON object (absent everywhere: SKIP)."""
    tally = Tally()
    for session in client_sessions(rec):
        for request in session.client:
            capabilities = declared(request)
            if capabilities is None or name not in capabilities:
                continue
            tally.exercise(session.run_id)
            value = capabilities[name]
            if not isinstance(value, dict):
                kind = type(value).__name__ if value is not None else "null"
                why = f"{request.message.method} (id {request.message.jsonrpc_id}) declares {name} as {kind}"
                tally.broke(why, (request.evidence(f"{name}: {kind}, not an object"),))
            elif tally.keeping:
                tally.keep(request.evidence(f"{name}: an object"))
    return tally.finding(what=f"request(s) declaring {name}", kept="each as an object")


def undeclared(kind: str, params: object, capabilities: Mapping[str, object]) -> str | None:
    """Why an input request of `kind` is outside what was declared; None when it is inside."""
    if kind not in capabilities:
        return f"{kind} was not declared"
    if kind != "elicitation":
        return None
    mode = params.get("mode", "form") if isinstance(params, dict) else "form"
    elicitation = capabilities.get("elicitation")
    modes = set(elicitation) & {"form", "url"} if isinstance(elicitation, dict) else set()
    if not modes:  # `elicitation: {}` declares form mode (the spec's backward-compatible reading)
        modes = {"form"}
    # a mode that is not a string (a list, an object: JSON from anyone) is no mode a client declares
    return None if isinstance(mode, str) and mode in modes else f"elicitation mode {str(mode)[:20]!r} was not declared"
