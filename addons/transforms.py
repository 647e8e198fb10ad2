"""Pure rewrites of one JSON-RPC response text, per mutation: what the client will get, and the record of why."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .json_edit import remove_member
from .plan import Mutation

KEEPALIVE = b":\r\n"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def answers(request: dict[str, Any] | None, payload: Any) -> bool:
    """True if payload is the JSON-RPC response (result or error) to this request."""
    return (
        isinstance(request, dict)
        and isinstance(payload, dict)
        and "method" not in payload
        and ("result" in payload or "error" in payload)
        and payload.get("id") == request.get("id")
    )


def declared(capabilities: Any, capability: str, mode: str | None) -> bool:
    """Whether the client declared this input capability (an empty elicitation object means form only)."""
    if not isinstance(capabilities, dict) or not isinstance(capabilities.get(capability), dict):
        return False
    if capability != "elicitation" or mode is None:
        return True
    modes = capabilities["elicitation"]
    return mode in modes or (mode == "form" and not modes)


def choose_input_requests(mutation: Mutation, request: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The inputRequests to inject into the answer to this request, and the record of why (or why none).

    A server must not send an input request the client has not declared, so by default the choice follows the
    capabilities declared on this very request; a legacy-era request gets none when the plan is modernOnly.
    """
    raw_params = request.get("params")
    params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
    raw_meta = params.get("_meta")
    meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
    version = meta.get("io.modelcontextprotocol/protocolVersion")
    capabilities = meta.get("io.modelcontextprotocol/clientCapabilities")
    record: dict[str, Any] = {"kind": "inject-decision", "index": mutation.index, "protocolVersion": version}
    if mutation.params.get("modernOnly") and not isinstance(version, str):
        return None, {**record, "chosen": None, "reason": "legacy-era"}
    options = mutation.params.get("byCapability")
    if options is None:
        return mutation.params["inputRequests"], {**record, "chosen": "fixed"}
    for option in options:
        if declared(capabilities, option["capability"], option.get("mode")):
            return option["inputRequests"], {**record, "chosen": option["capability"]}
    if mutation.params.get("ignoreCapabilities"):
        first = options[0]
        return first["inputRequests"], {
            **record,
            "chosen": first["capability"],
            "outOfSpec": True,
            "reason": "sent although the client did not declare it",
        }
    return None, {**record, "chosen": None, "reason": "client-declares-no-input-capability"}


def rewrite_response(
    text: str,
    request: dict[str, Any] | None,
    mutations: tuple[Mutation, ...],
    mint_state: Callable[[Mutation], str],
    chosen: dict[int, dict[str, Any]] | None = None,
) -> tuple[str | None, list[dict[str, Any]]]:
    """Apply the result mutations in plan order; (None, []) when nothing applies to this message."""
    try:
        payload = json.loads(text)
    except ValueError:
        return None, []
    if not answers(request, payload) or not isinstance(payload.get("result"), dict):
        return None, []
    current = text
    records: list[dict[str, Any]] = []
    for mutation in mutations:
        if mutation.kind == "inject-input-requests":
            result = json.loads(current)["result"]
            injected: dict[str, Any] = {
                "resultType": "input_required",
                "inputRequests": (chosen or {}).get(mutation.index) or mutation.params["inputRequests"],
                "requestState": mint_state(mutation),
            }
            if isinstance(result.get("_meta"), dict):
                injected["_meta"] = result["_meta"]
            current = _dumps({"jsonrpc": "2.0", "id": payload.get("id"), "result": injected})
            records.append({"kind": mutation.kind, "index": mutation.index, "requestState": injected["requestState"]})
        elif mutation.kind == "drop-result-type":
            removal = remove_member(current, ("result", "resultType"))
            if removal is None:
                records.append({"kind": mutation.kind, "index": mutation.index, "removed": None})
                continue
            records.append(
                {
                    "kind": mutation.kind,
                    "index": mutation.index,
                    "removed": removal.removed(current),
                    "start": removal.start,
                    "end": removal.end,
                }
            )
            current = removal.text
    return (current if current != text else None), records


def sse_event(text: str) -> bytes:
    """One SSE `message` event carrying a JSON text (split into data lines if it has line breaks)."""
    lines = "".join(f"data: {line}\r\n" for line in text.splitlines() or [""])
    return f"event: message\r\n{lines}\r\n".encode()


def progress_event(token: str | int, progress: int) -> bytes:
    note = {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": token, "progress": progress, "message": "backchannel is holding this response"},
    }
    return sse_event(_dumps(note))


def error_body(request_id: Any, code: int, message: str, data: Any = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return _dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()


def progress_token(request: dict[str, Any] | None) -> str | int | None:
    params = request.get("params") if isinstance(request, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    return token if isinstance(token, str | int) and not isinstance(token, bool) else None
