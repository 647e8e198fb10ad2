"""What the `elicitation-url-mode` tools do differently in the 2025 eras (the endpoint's channel carries their
input requests as server-initiated `elicitation/create` requests on the call's stream).

- 2025-06-18 has no URL mode: a tool that needs it answers a tool error saying so and asks nothing.
- 2025 has no -32021: a tool needing a mode the client's `initialize` did not declare answers a tool error.
- The held retries are MRTR's: there is no retry to hold in 2025, so held_json/held_sse answer at once.
- 2025-11-25: every URL-mode request carries an `elicitationId` (derived from the round's requestState, so the
  stateless tool finds it again), and once the client accepts one the tool reports the out-of-band step done with
  `notifications/elicitation/complete` on the call's stream, after one for an id it never issued (clients MUST
  ignore unknown ids). The contract forbids opening any URL, so no browser ever completes the step: the server
  calls it done when the accept arrives, and says so in the tool's text.
- `url_required` answers its first call in a session with -32042 (URLElicitationRequiredError, 2025-11-25 only:
  2026-07-28 removed it) carrying one URL-mode elicitation, and its retry with the result: 2025 servers that use
  -32042 are stateful by design (the spec: "the MCP server must be stateful"), so the session is remembered.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from typing import Any

from backchannel.proxy.endpoint.tools import ToolCall, ToolReply

URL_MODE_FROM = "2025-11-25"  # the first revision with URL-mode elicitation, elicitationId and -32042
URL_ELICITATION_REQUIRED = -32042
HELD = ("held_json", "held_sse")
REQUIRED_PATH = "/link/required"
UNKNOWN_ID = "bckch-elicitation-never-issued"
MAX_SESSIONS = 1024
COMPLETE = "notifications/elicitation/complete"

_required_sent: OrderedDict[str, None] = OrderedDict()  # sessions that already got url_required's -32042


def _text(text: str, *, error: bool) -> ToolReply:
    return ToolReply(result={"content": [{"type": "text", "text": text}], "isError": error})


def url_mode_era(call: ToolCall) -> bool:
    """A 2025 session whose revision has URL mode (2025-11-25)."""
    return call.era == "legacy" and call.protocol_version >= URL_MODE_FROM


def legacy_gate(call: ToolCall, needs: tuple[str, ...], declared: set[str]) -> ToolReply | None:
    """The 2025 answer of a tool that cannot run as asked (None: run it)."""
    if call.name in HELD:
        return _text(f"{call.name}: a held retry is MRTR's (2026-07-28); {call.protocol_version} has no retry to hold",
                     error=False)  # fmt: skip
    if "url" in needs and not url_mode_era(call):
        return _text(f"{call.name} needs URL-mode elicitation, which {call.protocol_version} does not have", error=True)
    missing = [mode for mode in needs if mode not in declared]
    if missing:
        # 2025 has no -32021 (2026-07-28's missing-capability error): a tool error names what is missing
        modes = ", ".join(f"elicitation.{mode}" for mode in missing)
        return _text(f"{call.name} needs {modes}, which the client's initialize did not declare", error=True)
    return None


def elicitation_id(state: str, key: str) -> str:
    return f"{state}.{key}"


def url_mode_ids(call: ToolCall, requests: dict[str, Any], state: str) -> dict[str, Any]:
    """The round's requests, each URL-mode one with the `elicitationId` 2025-11-25 requires (2026-07-28 has none)."""
    if not url_mode_era(call):
        return requests
    out: dict[str, Any] = {}
    for key, request in requests.items():
        params = request.get("params", {})
        if params.get("mode") == "url":
            request = {**request, "params": {**params, "elicitationId": elicitation_id(state, key)}}
        out[key] = request
    return out


def completions(call: ToolCall) -> tuple[dict[str, Any], ...]:
    """`notifications/elicitation/complete` for each URL-mode request of the last round the client accepted
    (the request's id is found again from the round's requestState), led by one for an id never issued."""
    if not url_mode_era(call) or not call.request_state or not call.input_responses:
        return ()
    accepted = [
        key
        for key, answer in call.input_responses.items()
        if (key.startswith("url_") or key in ("link", "authorize"))
        and isinstance(answer, dict)
        and answer.get("action") == "accept"
    ]
    if not accepted:
        return ()
    decoy = {"method": COMPLETE, "params": {"elicitationId": UNKNOWN_ID}}
    real = ({"method": COMPLETE, "params": {"elicitationId": elicitation_id(call.request_state, k)}} for k in accepted)
    return (decoy, *real)


def url_required(call: ToolCall) -> ToolReply:
    """-32042 (URL elicitation required, 2025-11-25) on the first call of a session; the result on its retry."""
    if call.era == "modern":
        return _text("url_required: -32042 exists only in 2025-11-25 (2026-07-28 removed it): nothing to ask",
                     error=False)  # fmt: skip
    session = call.headers.get("mcp-session-id", "")
    if session in _required_sent:
        return _text("url_required: the export was authorized out of band; the retry succeeded", error=False)
    _required_sent[session] = None
    while len(_required_sent) > MAX_SESSIONS:
        _required_sent.popitem(last=False)
    base = call.params.get("url_declined_base", "http://127.0.0.1:9")
    elicitation = {
        "mode": "url",
        "elicitationId": f"bckch-required-{secrets.token_hex(4)}",
        "url": f"{base}{REQUIRED_PATH}",
        "message": "Authorize the export on this page (the server finishes the step out of band).",
    }
    error = {
        "code": URL_ELICITATION_REQUIRED,
        "message": "This request requires more information.",
        "data": {"elicitations": [elicitation]},
    }
    return ToolReply(error=error)
