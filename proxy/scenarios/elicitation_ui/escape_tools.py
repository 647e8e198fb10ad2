"""The two tools of the `elicitation-terminal-escape-injection` probe (CWE-150): server text carrying terminal escapes.

`show_notice` asks through a form-mode elicitation (2026-07-28, MRTR) whose `message` is
`escapes.payload(nonce)`; its retry gets a complete result with plain text. `get_notice` answers at once with a
complete result whose text is the same payload. Each keeps its place only in the requestState it hands out and
decides from the capabilities of the request in hand: `show_notice` needs the elicitation form mode (-32021, HTTP
400, without it) and the 2026-07-28 era (an error result on an earlier one); `get_notice` needs neither, since a
tool result reaches a client of any era.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from backchannel.oracle.scenarios.elicitation_ui.escapes import payload
from backchannel.oracle.scenarios.elicitation_ui.payloads import ESCAPE_FORM_TOOL, ESCAPE_RESULT_TOOL
from backchannel.proxy.endpoint.tools import ToolCall, ToolReply, ToolSpec
from backchannel.proxy.scenarios.elicitation_url_mode.endpoint import refuse_undeclared

KEY = "notice"  # the inputRequests key of show_notice's one form request
STATE = "esc"  # requestState: esc.<tool>.<random>
CONFIRM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"confirmed": {"type": "boolean"}},
    "required": ["confirmed"],
}


def _text(text: str, *, error: bool = False) -> ToolReply:
    return ToolReply(result={"content": [{"type": "text", "text": text}], "isError": error})


def _refused(call: ToolCall) -> ToolReply | None:
    if call.era != "modern":
        return _text(f"{call.name} needs protocol 2026-07-28 (multi round-trip requests)", error=True)
    return refuse_undeclared(call, "form", f"{call.name} needs the elicitation.form client capability")


def _ours(call: ToolCall) -> bool:
    return (call.request_state or "").startswith(f"{STATE}.{call.name}.")


def notice_request(nonce: str) -> dict[str, Any]:
    """The form request show_notice sends: the payload as its message, one boolean to confirm."""
    params = {"mode": "form", "message": payload(nonce), "requestedSchema": CONFIRM_SCHEMA}
    return {"method": "elicitation/create", "params": params}


def show_notice(call: ToolCall) -> ToolReply:
    """A form-mode request whose message carries terminal escape sequences."""
    refused = _refused(call)
    if refused is not None:
        return refused
    answer = (call.input_responses or {}).get(KEY)
    if _ours(call) and isinstance(answer, dict):
        return _text(f"{call.name}: {answer.get('action', '?')}")
    state = f"{STATE}.{call.name}.{secrets.token_hex(6)}"
    return ToolReply(
        result={
            "resultType": "input_required",
            "inputRequests": {KEY: notice_request(call.nonce)},
            "requestState": state,
        }
    )


def get_notice(call: ToolCall) -> ToolReply:
    """A tool result whose text carries terminal escape sequences."""
    return _text(payload(call.nonce))


def _spec(name: str, handler: Callable[[ToolCall], ToolReply]) -> ToolSpec:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    return ToolSpec(name=name, description=(handler.__doc__ or "").strip(), input_schema=schema, handler=handler)


ESCAPE_TOOLS: tuple[ToolSpec, ...] = (_spec(ESCAPE_FORM_TOOL, show_notice), _spec(ESCAPE_RESULT_TOOL, get_notice))
