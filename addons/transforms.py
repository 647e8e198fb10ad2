"""Pure rewrites of one JSON-RPC response text through the active mutations, and the bytes the proxy makes itself."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from backchannel.recordings.json_form import escape_surrogates, json_text
from backchannel.recordings.mutation_records import MutationRecord

from .jsonrpc import loads
from .mutations.base import ResultStep
from .sse import StreamCut

if TYPE_CHECKING:
    from .plan import Mutation

KEEPALIVE = b":\r\n"


def dumps(value: Any) -> str:
    """Compact JSON text, UTF-8 kept as is; a lone surrogate (a peer's "\\ud800", decoded) written as its escape,
    so the text always encodes to the wire: the recording's own JSON form."""
    return json_text(value)


def answers(request: dict[str, Any] | None, payload: Any) -> bool:
    """True if payload is the JSON-RPC response (result or error) to this request."""
    return (
        isinstance(request, dict)
        and isinstance(payload, dict)
        and "method" not in payload
        and ("result" in payload or "error" in payload)
        and payload.get("id") == request.get("id")
    )


def rewrite_response(
    text: str,
    request: dict[str, Any] | None,
    mutations: tuple[Mutation, ...],
    mint_state: Callable[[int], str],
    records: list[MutationRecord],
    chosen: Mapping[int, Any] | None = None,
    *,
    sse_idx: int | None = None,
) -> str | StreamCut | None:
    """Apply the mutations in plan order to one message from upstream: the new text, a cut, or None (unchanged).

    Only the message answering the request is touched; `sse_idx` is the SSE item index when the message is an
    event's data (None: a whole JSON body). What each mutation did is appended to `records`.
    """
    if not mutations:
        return None
    try:
        payload = loads(text)
    except (ValueError, RecursionError):
        return None
    if request is None or not answers(request, payload):
        return None
    step = ResultStep(
        request=request,
        payload=payload,
        records=records,
        mint=mint_state,
        injections=chosen or {},
        sse=sse_idx is not None,
        sse_idx=sse_idx or 0,
    )
    current = text
    for mutation in mutations:
        new = mutation.params.on_result(mutation.index, current, step)
        if step.cut is not None:
            return StreamCut(step.cut)
        if new is not None:
            current = new
    return current if current != text else None


def sse_event(text: str) -> bytes:
    """One SSE `message` event carrying a JSON text (split into data lines if it has line breaks)."""
    lines = "".join(f"data: {line}\r\n" for line in text.splitlines() or [""])
    return escape_surrogates(f"event: message\r\n{lines}\r\n").encode()  # text from a body read leniently too


def progress_event(token: str | int, progress: int) -> bytes:
    note = {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": token, "progress": progress, "message": "backchannel is holding this response"},
    }
    return sse_event(dumps(note))


# JSON-RPC error codes the proxy answers with (-32001: the code the MCP SDKs use for a request that timed out)
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
UPSTREAM_TIMEOUT = -32001
_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"


def is_modern(request: Any) -> bool:
    """True when the request names a protocol version in `params._meta` (the 2026-07-28 era)."""
    params = request.get("params") if isinstance(request, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and _PROTOCOL_VERSION in meta


def error_status(code: int, request: Any, *, upstream_failed: bool = False) -> int:
    """The HTTP status a JSON-RPC error the proxy makes travels under: the scripted endpoint's rules.

    Parse errors and invalid requests: 400. Invalid params and unknown methods: 400 and 404 on a modern-era request,
    200 on a legacy one (legacy servers answered JSON-RPC errors under 200; a request we could not read counts as
    modern). An upstream that said nothing for too long: 504; one that failed: 502; anything else the proxy's own
    fault: 500.
    """
    legacy = isinstance(request, dict) and not is_modern(request)
    if code in (PARSE_ERROR, INVALID_REQUEST):
        return 400
    if code == INVALID_PARAMS:
        return 200 if legacy else 400
    if code == METHOD_NOT_FOUND:
        return 200 if legacy else 404
    if code == UPSTREAM_TIMEOUT:
        return 504
    return 502 if upstream_failed else 500


def proxy_error(
    request: Any, code: int, message: str, data: Any = None, *, upstream_failed: bool = False
) -> tuple[int, bytes]:
    """Every JSON-RPC error the proxy makes itself: (HTTP status, body), answering the request's id."""
    request_id = request.get("id") if isinstance(request, dict) else None
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None  # an id that is not a JSON-RPC id is not echoed (the endpoint's rule too)
    return error_status(code, request, upstream_failed=upstream_failed), error_body(request_id, code, message, data)


def error_body(request_id: Any, code: int, message: str, data: Any = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()


def progress_token(request: dict[str, Any] | None) -> str | int | None:
    params = request.get("params") if isinstance(request, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    return token if isinstance(token, str | int) and not isinstance(token, bool) else None
