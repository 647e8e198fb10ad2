"""The `sdk-regressions` scenario's server: one tool per regression, each staging what a real SDK got wrong.

Every text and every value a form offers carries the recording's nonce and a fresh token, so the oracle can tell by
structure which request a value in an answer belongs to. Each tool keeps its place only in the requestState it
hands out (a 2025 session's calls go through proxy/endpoint/server_requests.py, as in every scenario):

- `decline_then_accept` (every era): a form whose message starts `DECLINE:` (the contract's user declines it), then,
  whatever the answer, a form with another requestedSchema (accepted), then the result. Neither form has `mode`
  (form mode in every era, 2025-06-18 included);
- `decline_url_then_accept` (2025-11-25 and 2026-07-28, a client that declared URL mode): a URL-mode request whose
  message starts `DECLINE:` (the SDK drivers' contract declines it), then a form to accept, so a client that
  declines no form is still seen after a decline;
- `keep_asking` (2026-07-28): every call draws a new `input_required` (a new requestState, a new form), until the
  LOOP_ROUNDS-th round has been answered: then a complete error result ends the loop. A client that drops the
  requestState starts over at round one, so a per-recording count of calls ends it too (nothing hangs);
- `ask_other_mode` (2026-07-28): an elicitation in the mode the request did not declare (URL to a form-only client,
  a form to a URL-only one: the server's MUST NOT, broken on purpose, the only place this scenario does), then the
  result whatever the answer. A client declaring both modes, or no elicitation, is not asked.

A 2025 session gets a plain result from the two 2026-07-28 tools, and a client without elicitation one saying so.
"""

from __future__ import annotations

import secrets
import threading
from typing import Any

from backchannel.oracle.scenarios.sdk_regressions.facts import DECLINE_PREFIX, LOOP_ROUNDS
from backchannel.proxy.endpoint.tools import ToolCall, ToolReply, ToolSpec

KEY = "ask"
MAX_LOOP_CALLS = LOOP_ROUNDS * 3  # calls of keep_asking per recording, whatever their state says


def _text(text: str, *, error: bool = False) -> ToolReply:
    return ToolReply(result={"content": [{"type": "text", "text": text}], "isError": error})


def _minted(call: ToolCall, what: str) -> str:
    """A value minted for one request: the recording's nonce and a fresh token."""
    return f"{what}-{call.nonce}-{secrets.token_hex(4)}"


def _asking(request: dict[str, Any], state: str) -> ToolReply:
    return ToolReply(result={"resultType": "input_required", "inputRequests": {KEY: request}, "requestState": state})


def _form(message: str, properties: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": sorted(properties)}
    return {"method": "elicitation/create", "params": {"message": message, "requestedSchema": schema}}


def _choice(value: str) -> dict[str, Any]:
    return {"type": "string", "enum": [value], "default": value}


def _elicitation(call: ToolCall) -> dict[str, Any] | None:
    found = call.client_capabilities.get("elicitation")
    return found if isinstance(found, dict) else None


def decline_then_accept(call: ToolCall) -> ToolReply:
    """Asks for a form the user is to decline, then for another one, and reports what it got."""
    if _elicitation(call) is None:
        return _text(f"{call.name} needs the elicitation client capability", error=True)
    state = call.request_state or ""
    if state.startswith("decline.second."):
        answer = (call.input_responses or {}).get(KEY)
        action = answer.get("action") if isinstance(answer, dict) else None
        return _text(f"{call.name}: the second form was answered {action!r}")
    if state.startswith("decline.first."):
        second = _form(
            f"Second form ({_minted(call, 'asked')}): accept it.",
            {"accepted_field": _choice(_minted(call, "accepted")), "shared_note": _choice(_minted(call, "accepted"))},
        )
        return _asking(second, f"decline.second.{secrets.token_hex(6)}")
    first = _form(
        f"{DECLINE_PREFIX} first form ({_minted(call, 'asked')}): decline it.",
        {"declined_field": _choice(_minted(call, "declined")), "shared_note": _choice(_minted(call, "declined"))},
    )
    return _asking(first, f"decline.first.{secrets.token_hex(6)}")


def decline_url_then_accept(call: ToolCall) -> ToolReply:
    """Asks a client that declared URL mode to open a page it is to decline, then for a form, and reports."""
    declared = _elicitation(call)
    if declared is None or "url" not in declared:
        return _text(f"{call.name}: the client declared no URL-mode elicitation; nothing asked")
    state = call.request_state or ""
    if state.startswith("decline-url.second."):
        answer = (call.input_responses or {}).get(KEY)
        action = answer.get("action") if isinstance(answer, dict) else None
        return _text(f"{call.name}: the form was answered {action!r}")
    if state.startswith("decline-url.first."):
        form = _form(
            f"A form ({_minted(call, 'asked')}): accept it.", {"accepted_field": _choice(_minted(call, "accepted"))}
        )
        return _asking(form, f"decline-url.second.{secrets.token_hex(6)}")
    marker = _minted(call, "declined")
    params = {
        "mode": "url",
        "message": f"{DECLINE_PREFIX} open this page ({marker})",
        "url": f"https://example.com/{marker}",
    }
    return _asking({"method": "elicitation/create", "params": params}, f"decline-url.first.{secrets.token_hex(6)}")


class _LoopCalls:
    """How many calls of keep_asking each recording (nonce) made: the bound that holds whatever the state says."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[str, int] = {}

    def count(self, nonce: str) -> int:
        with self._lock:
            if len(self._calls) > 256:  # one entry per recording an endpoint served: never grows without bound
                self._calls.clear()
            self._calls[nonce] = self._calls.get(nonce, 0) + 1
            return self._calls[nonce]


_LOOP_CALLS = _LoopCalls()


def keep_asking(call: ToolCall) -> ToolReply:
    """Asks again on every answer, each round a new form and a new requestState, until the endpoint's bound."""
    if call.era == "legacy":
        return _text(f"{call.name}: MRTR only (2026-07-28); nothing to loop in a 2025 session")
    if _elicitation(call) is None:
        return _text(f"{call.name} needs the elicitation client capability", error=True)
    parts = (call.request_state or "").split(".")
    done = int(parts[1]) if len(parts) == 3 and parts[0] == "loop" and parts[1].isdigit() else 0
    if done >= LOOP_ROUNDS or _LOOP_CALLS.count(call.nonce) > MAX_LOOP_CALLS:
        return _text(f"{call.name}: the endpoint ended the loop after {done} answered rounds (its bound)", error=True)
    form = _form(f"Round {done + 1} ({_minted(call, 'round')}): confirm to go on.", {"go_on": {"type": "boolean"}})
    return _asking(form, f"loop.{done + 1}.{secrets.token_hex(6)}")


def ask_other_mode(call: ToolCall) -> ToolReply:
    """Asks in the elicitation mode the client did not declare, then reports the answer it got."""
    if call.era == "legacy":
        return _text(f"{call.name}: 2026-07-28 only; nothing asked in a 2025 session")
    declared = _elicitation(call)
    if declared is None:
        return _text(f"{call.name}: the client declared no elicitation; nothing asked")
    modes = set(declared) & {"form", "url"} or {"form"}  # `elicitation: {}` declares form mode
    if call.request_state and call.request_state.startswith("mode."):
        answer = (call.input_responses or {}).get(KEY)
        action = answer.get("action") if isinstance(answer, dict) else None
        return _text(f"{call.name}: answered {action!r}")
    if modes == {"form", "url"}:
        return _text(f"{call.name}: the client declared both modes; nothing asked")
    marker = _minted(call, "other-mode")
    request: dict[str, Any]
    if "url" not in modes:
        params = {"mode": "url", "message": f"Open this page ({marker}).", "url": f"https://example.com/{marker}"}
        request = {"method": "elicitation/create", "params": params}
    else:
        form = _form(f"A form ({marker}) for a client that declared URL mode only.", {"ok": {"type": "boolean"}})
        request = {**form, "params": {**form["params"], "mode": "form"}}
    return _asking(request, f"mode.{secrets.token_hex(6)}")


# their names are the oracle's DECLINE_TOOL, DECLINE_URL_TOOL, LOOP_TOOL and MODE_TOOL (a test holds them equal)
TOOLS: tuple[ToolSpec, ...] = tuple(
    ToolSpec(name=fn.__name__, description=(fn.__doc__ or "").strip(), input_schema={"type": "object"}, handler=fn)
    for fn in (decline_then_accept, decline_url_then_accept, keep_asking, ask_other_mode)
)
