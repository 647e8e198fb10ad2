"""The `elicitation-ui` scenario's server: URL- and form-mode elicitations whose display the checks judge.

Every text carries the recording's nonce (oracle/scenarios/elicitation_ui/payloads.py, shared with the checks). Each
tool keeps its place only in the requestState it hands out, and decides from the capabilities of the request in
hand: a client without the mode gets -32021 (HTTP 400) and the checks of that tool SKIP.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from backchannel.oracle.scenarios.elicitation_ui import payloads
from backchannel.proxy.endpoint.tools import ToolCall, ToolReply, ToolSpec
from backchannel.proxy.scenarios.elicitation_ui.escape_tools import ESCAPE_TOOLS
from backchannel.proxy.scenarios.elicitation_url_mode.endpoint import refuse_undeclared

CONFIRM_SCHEMA = {"type": "object", "properties": {"confirmed": {"type": "boolean"}}, "required": ["confirmed"]}


def _refused(call: ToolCall, mode: str) -> ToolReply | None:
    return refuse_undeclared(call, mode, f"This tool needs the elicitation.{mode} client capability")


def _ours(call: ToolCall) -> bool:
    return (call.request_state or "").startswith(f"ui.{call.name}.")


def _ask(call: ToolCall, request: dict[str, Any]) -> ToolReply:
    state = f"ui.{call.name}.{secrets.token_hex(6)}"
    return ToolReply(result={"resultType": "input_required", "inputRequests": {"ask": request}, "requestState": state})


def _done(call: ToolCall) -> ToolReply:
    answer = (call.input_responses or {}).get("ask")
    action = answer.get("action") if isinstance(answer, dict) else None
    return ToolReply(result={"content": [{"type": "text", "text": f"{call.name}: {action}"}], "isError": False})


def _url_tool(url: Callable[[str], str], message: Callable[[str], str]) -> Callable[[ToolCall], ToolReply]:
    def handler(call: ToolCall) -> ToolReply:
        refused = _refused(call, "url")
        if refused is not None:
            return refused
        if _ours(call) and call.input_responses:
            return _done(call)
        params = {"mode": "url", "message": message(call.nonce), "url": url(call.nonce)}
        return _ask(call, {"method": "elicitation/create", "params": params})

    return handler


def confirm_change(call: ToolCall) -> ToolReply:
    """A form request whose message holds a URL (which a client SHOULD NOT render clickable)."""
    refused = _refused(call, "form")
    if refused is not None:
        return refused
    if _ours(call) and call.input_responses:
        return _done(call)
    params = {"mode": "form", "message": payloads.form_message(call.nonce), "requestedSchema": CONFIRM_SCHEMA}
    return _ask(call, {"method": "elicitation/create", "params": params})


connect_account = _url_tool(payloads.url, payloads.url_message)
connect_account.__doc__ = "A URL-mode request to an https URL on an ordinary host."
open_dashboard = _url_tool(payloads.punycode_url, payloads.punycode_message)
open_dashboard.__doc__ = "A URL-mode request whose host has a Punycode (xn--) label."


def _spec(name: str, handler: Callable[[ToolCall], ToolReply]) -> ToolSpec:
    schema = {"type": "object", "properties": {}}
    return ToolSpec(name=name, description=(handler.__doc__ or "").strip(), input_schema=schema, handler=handler)


OWN_TOOLS: tuple[ToolSpec, ...] = (
    _spec(payloads.URL_TOOL, connect_account),
    _spec(payloads.PUNYCODE_TOOL, open_dashboard),
    _spec(payloads.FORM_TOOL, confirm_change),
)
# what the scenario serves (its SCENARIO and its runner's endpoint both take this one tuple): its own tools, then
# the escape probes
TOOLS: tuple[ToolSpec, ...] = (*OWN_TOOLS, *ESCAPE_TOOLS)
