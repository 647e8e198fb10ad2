"""The `sampling` scenario's server: tools whose calls ask for `sampling/createMessage`, and one round of every kind.

Every tool speaks MRTR in every era: it answers `input_required` and completes on the call that carries its answer.
A 2026-07-28 client gets the round as it is; in a 2025 session the endpoint sends each input request as a
server-initiated request on the call's stream (proxy/endpoint/server_requests.py) and calls the tool again with the
client's answers, so the texts are the same in both eras. Each tool keeps its place only in the requestState it hands
out, and decides from the capabilities of the request in hand (2026-07-28: its `_meta`; 2025: `initialize`'s):

- a client that did not declare `sampling` gets -32021 (HTTP 400) in 2026-07-28, an error result in 2025, and no
  sampling request at all (the checks of that tool SKIP);
- `plan_route` adds `tools` and `toolChoice` in 2026-07-28 only for a client that declared `sampling.tools` (the
  server rule). In 2025-11-25 it adds them whatever was declared: the client's rule ("the client MUST return an
  error if this field is provided but ClientCapabilities.sampling.tools is not declared") can be observed only
  there, where a JSON-RPC error can answer it; backchannel's endpoint is the staged side and is not judged. In
  2025-06-18 the fields do not exist, so none are sent;
- `check_everything` (2026-07-28 only) asks, in one round, for every kind the request declared (a form
  elicitation, a sampling request, roots/list); a retry that leaves keys out gets another round with only those
  keys (its requestState names them), up to one round per kind.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from backchannel.oracle.scenarios.sampling import payloads
from backchannel.proxy.endpoint.tools import ToolCall, ToolReply, ToolSpec

MISSING_CAPABILITY = -32021
MAX_TOKENS = 64
CONFIRM_SCHEMA = {"type": "object", "properties": {"confirmed": {"type": "boolean"}}, "required": ["confirmed"]}
KEY = "sample"  # the inputRequests key of each sampling tool's one request
MAP_TOOL = {
    "name": "lookup_map",
    "description": "Look up the distance between two places on the map",
    "inputSchema": {
        "type": "object",
        "properties": {"from": {"type": "string"}, "to": {"type": "string"}},
        "required": ["from", "to"],
    },
}


def _text(text: str, *, error: bool = False) -> ToolReply:
    return ToolReply(result={"content": [{"type": "text", "text": text}], "isError": error})


def _sampling(call: ToolCall) -> dict[str, Any] | None:
    found = call.client_capabilities.get("sampling")
    return found if isinstance(found, dict) else None


def _refused(call: ToolCall) -> ToolReply | None:
    """-32021 (2026-07-28) or an error result (2025) for a client that did not declare sampling; None when it did."""
    if _sampling(call) is not None:
        return None
    message = f"{call.name} needs the sampling client capability"
    if call.era == "legacy":
        return _text(message, error=True)
    error = {"code": MISSING_CAPABILITY, "message": message, "data": {"requiredCapabilities": {"sampling": {}}}}
    return ToolReply(error=error, http_status=400)


def _state(call: ToolCall, step: int = 1, wanted: tuple[str, ...] = ()) -> str:
    """`smp.<tool>.<step>.<random>`, then the keys the round asked (`+`-joined) when a later round must know them."""
    return ".".join((f"smp.{call.name}.{step}.{secrets.token_hex(4)}", *(["+".join(wanted)] if wanted else [])))


def _parts(call: ToolCall) -> list[str]:
    parts = (call.request_state or "").split(".")
    ours = len(parts) in (4, 5) and parts[0] == "smp" and parts[1] == call.name and parts[2].isdigit()
    return parts if ours else []


def _step(call: ToolCall) -> int:
    parts = _parts(call)
    return int(parts[2]) if parts else 0


def _ask(call: ToolCall, requests: dict[str, Any], step: int = 1) -> ToolReply:
    state = _state(call, step, tuple(requests) if call.name == payloads.ALL_KINDS_TOOL else ())
    return ToolReply(result={"resultType": "input_required", "inputRequests": requests, "requestState": state})


def sampling_request(text: str, **extra: Any) -> dict[str, Any]:
    params = {"messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": MAX_TOKENS}
    return {"method": "sampling/createMessage", "params": {**params, **extra}}


def _answered(call: ToolCall) -> ToolReply:
    answer = (call.input_responses or {}).get(KEY)
    if isinstance(answer, dict) and "error" in answer:
        return _text(f"{call.name}: the client refused the sampling request")
    return _text(f"{call.name}: sampled")


def _sampling_tool(params: Callable[[ToolCall], dict[str, Any]]) -> Callable[[ToolCall], ToolReply]:
    def handler(call: ToolCall) -> ToolReply:
        refused = _refused(call)
        if refused is not None:
            return refused
        if _step(call) and KEY in (call.input_responses or {}):
            return _answered(call)
        extra = params(call)
        text = extra.pop("text")
        return _ask(call, {KEY: sampling_request(text, **extra)})

    return handler


def _summary(call: ToolCall) -> dict[str, Any]:
    return {"text": payloads.summary_text(call.nonce)}


def tools_offered(call: ToolCall) -> bool:
    """Whether plan_route's request carries tools and toolChoice (see the module's docstring)."""
    if call.era == "modern":
        return isinstance((_sampling(call) or {}).get("tools"), dict)
    return call.protocol_version >= payloads.TOOLS_FIELD_ERA


def _route(call: ToolCall) -> dict[str, Any]:
    extra: dict[str, Any] = {"text": payloads.route_text(call.nonce)}
    if tools_offered(call):
        extra.update(tools=[MAP_TOOL], toolChoice={"mode": "auto"})
    return extra


def _context(call: ToolCall) -> dict[str, Any]:
    return {"text": payloads.context_text(call.nonce), "includeContext": "allServers"}


def read_notes(call: ToolCall) -> ToolReply:
    """Read the team's release notes."""
    return _text(payloads.notes_text(call.nonce))


def _kinds(call: ToolCall) -> list[str]:
    capabilities = call.client_capabilities
    return [kind for kind in payloads.ALL_KINDS_KEYS if isinstance(capabilities.get(kind), dict)]


def _kind_request(kind: str, nonce: str) -> dict[str, Any]:
    if kind == "elicitation":
        message = f"Confirm the status check ({payloads.sample_tag(nonce)})."
        return {"method": "elicitation/create",
                "params": {"mode": "form", "message": message, "requestedSchema": CONFIRM_SCHEMA}}  # fmt: skip
    if kind == "sampling":
        return sampling_request(payloads.all_kinds_text(nonce))
    return {"method": "roots/list", "params": {}}


def check_everything(call: ToolCall) -> ToolReply:
    """Run a status check that needs a confirmation, a drafted line and the workspace roots, all at once."""
    if call.era != "modern":
        return _text(f"{call.name} needs protocol 2026-07-28 (one multi round-trip round of every kind)", error=True)
    kinds = _kinds(call)
    if len(kinds) < 2:
        return _text(f"{call.name}: the client declared {kinds or 'no input kind'}: fewer than two kinds to mix")
    keys = {payloads.ALL_KINDS_KEYS[kind]: kind for kind in kinds}
    step, parts = _step(call), _parts(call)
    if step == 0:
        return _ask(call, {key: _kind_request(kind, call.nonce) for key, kind in keys.items()})
    asked = [key for key in (parts[4].split("+") if len(parts) == 5 else keys) if key in keys]
    missing = [key for key in asked if key not in (call.input_responses or {})]
    if not missing:
        return _text(f"{call.name}: every request answered" + (f" (in {step} rounds)" if step > 1 else ""))
    if step >= len(keys):
        return _text(f"{call.name}: {missing} still unanswered after {step} rounds", error=True)
    return _ask(call, {key: _kind_request(keys[key], call.nonce) for key in missing}, step=step + 1)


summarize_notes = _sampling_tool(_summary)
summarize_notes.__doc__ = "Summarize the release notes with the client's model (sampling)."
plan_route = _sampling_tool(_route)
plan_route.__doc__ = "Plan a route with the client's model, which may use a map tool (tool-enabled sampling)."
gather_context = _sampling_tool(_context)
gather_context.__doc__ = "Ask the client's model what it knows, with context from every server (includeContext)."


def _spec(name: str, handler: Callable[[ToolCall], ToolReply]) -> ToolSpec:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    return ToolSpec(name=name, description=(handler.__doc__ or "").strip(), input_schema=schema, handler=handler)


# in this order: the context the client holds (read_notes) comes before the request that asks for it
TOOLS: tuple[ToolSpec, ...] = (
    _spec(payloads.CONTEXT_TOOL, read_notes),
    _spec(payloads.SUMMARY_TOOL, summarize_notes),
    _spec(payloads.TOOLS_TOOL, plan_route),
    _spec(payloads.CONTEXT_REQUEST_TOOL, gather_context),
    _spec(payloads.ALL_KINDS_TOOL, check_everything),
)
