"""The `elicitation-sep1036-url-mode` scenario's own server: a conformant `test_url_elicitation` and a gated form tool.

This is what `backchannel check --scenario elicitation-sep1036-url-mode` judges when given no `--server`, and what
`backchannel serve --scenario elicitation-sep1036-url-mode` offers: a reference a server author can compare with.
Each tool keeps its place in the flow only in the requestState it hands out, as a stateless server must, and
decides from the capabilities each request declares, never from an earlier request's.
"""

from __future__ import annotations

import secrets
from typing import Any

from backchannel.proxy.endpoint.tools import ToolCall, ToolReply, ToolSpec
from backchannel.proxy.scenarios.elicitation_url_mode.endpoint import refuse_undeclared

URL_TOOL = "test_url_elicitation"
FORM_TOOL = "test_input_required_result_elicitation"
URL_KEY = "authorize"
FORM_KEY = "confirm"
CONNECT_URL = "https://mcp.example.com/connect"
CONFIRM_SCHEMA = {"type": "object", "properties": {"confirmed": {"type": "boolean"}}, "required": ["confirmed"]}


def missing_mode(call: ToolCall, mode: str) -> ToolReply | None:
    """-32021 under HTTP 400 naming exactly the missing mode, when this request did not declare it."""
    return refuse_undeclared(call, mode, f"This tool needs the elicitation.{mode} client capability")


def _state(tool: str) -> str:
    return f"sep1036.{tool}.{secrets.token_hex(6)}"


def _ours(call: ToolCall) -> bool:
    return (call.request_state or "").startswith(f"sep1036.{call.name}.")


def _answer(call: ToolCall, key: str) -> dict[str, Any] | None:
    answer = (call.input_responses or {}).get(key)
    return answer if isinstance(answer, dict) else None


def _ask(key: str, request: dict[str, Any], tool: str) -> ToolReply:
    return ToolReply(
        result={"resultType": "input_required", "inputRequests": {key: request}, "requestState": _state(tool)}
    )


def _result(text: str, *, error: bool = False) -> ToolReply:
    return ToolReply(result={"content": [{"type": "text", "text": text}], "isError": error})


def _ended(action: object, what: str) -> ToolReply:
    if action == "accept":
        return _result(f"{what}: done")
    if action in ("decline", "cancel"):
        return _result(f"{what}: the user chose {action}; nothing was changed", error=True)
    return _result(f"{what}: the answer's action {action!r} is not accept, decline or cancel", error=True)


def url_elicitation(call: ToolCall) -> ToolReply:
    """Needs URL mode: -32021 (HTTP 400) without it, else one URL-mode request; a retry ends with a result."""
    refused = missing_mode(call, "url")
    if refused is not None:
        return refused
    answer = _answer(call, URL_KEY) if _ours(call) else None
    if answer is None:
        request = {
            "method": "elicitation/create",
            "params": {
                "mode": "url",
                "message": "Open this page to connect your account.",
                "url": f"{CONNECT_URL}?session={secrets.token_hex(8)}",
            },
        }
        return _ask(URL_KEY, request, call.name)
    return _ended(answer.get("action"), "connecting the account")


def form_elicitation(call: ToolCall) -> ToolReply:
    """Needs form mode: -32021 (HTTP 400) for a client that declared URL mode only, else one form request."""
    refused = missing_mode(call, "form")
    if refused is not None:
        return refused
    answer = _answer(call, FORM_KEY) if _ours(call) else None
    if answer is None:
        request = {
            "method": "elicitation/create",
            "params": {"mode": "form", "message": "Confirm the change.", "requestedSchema": CONFIRM_SCHEMA},
        }
        return _ask(FORM_KEY, request, call.name)
    return _ended(answer.get("action"), "confirming the change")


# named apart from their tools: a test module importing a `test_*` function would have pytest collect it
TOOLS: tuple[ToolSpec, ...] = tuple(
    ToolSpec(
        name=name,
        description=(fn.__doc__ or "").strip(),
        input_schema={"type": "object", "properties": {}},
        handler=fn,
    )
    for name, fn in ((URL_TOOL, url_elicitation), (FORM_TOOL, form_elicitation))
)
