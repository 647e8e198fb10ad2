"""Pure wire helpers for the scripted endpoint: JSON-RPC framing, error objects, header decoding, `_meta` checks."""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NoReturn
from urllib.parse import urlsplit

from backchannel.recordings.json_form import json_text

MODERN_VERSION = "2026-07-28"
SUPPORTED_MODERN_VERSIONS = (MODERN_VERSION,)
LEGACY_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_LEGACY_VERSION = "2025-11-25"

META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
HEADER_MISMATCH = -32020
UNSUPPORTED_PROTOCOL_VERSION = -32022

MAX_BODY_BYTES = 4 * 1024 * 1024
KEEPALIVE = b": keepalive\r\n\r\n"

LOCAL_ORIGIN_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})

_SENTINEL = re.compile(r"^=\?base64\?(?P<payload>.*)\?=$", re.DOTALL)


class RpcError(Exception):
    """A JSON-RPC error the endpoint answers with, and the HTTP status it travels under."""

    def __init__(self, code: int, message: str, *, status: int, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.data = data

    def error_object(self) -> dict[str, Any]:
        """The `error` member of the JSON-RPC response."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def fail(code: int, message: str, *, status: int = 400, data: Any = None) -> NoReturn:
    """Abort the current request with a JSON-RPC error."""
    raise RpcError(code, message, status=status, data=data)


def error_response(request_id: object, error: dict[str, Any]) -> dict[str, Any]:
    """A JSON-RPC error response; `request_id=None` leaves `id` out, as the 2026 schema allows for unreadable ids."""
    response: dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not None:
        response["id"] = request_id
    response["error"] = error
    return response


def result_response(request_id: object, result: dict[str, Any]) -> dict[str, Any]:
    """A JSON-RPC result response."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def dumps(message: dict[str, Any]) -> bytes:
    """Compact JSON bytes, UTF-8 kept as is; a lone surrogate written as its escape (json_text)."""
    return json_text(message).encode("utf-8")


def sse_event(message: dict[str, Any]) -> bytes:
    """One SSE `message` event carrying a JSON-RPC message."""
    return b"event: message\ndata: " + dumps(message) + b"\n\n"


def request_headers(raw: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """ASGI headers as a dict of lower-cased names; repeated headers are joined with `, ` as RFC 9110 allows."""
    headers: dict[str, str] = {}
    for name, value in raw:
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    return headers


def decode_header_value(value: str) -> str | None:
    """A header value with the `=?base64?…?=` sentinel removed, or None when the sentinel's payload is invalid."""
    match = _SENTINEL.match(value)
    if match is None:
        return value
    try:
        return base64.b64decode(match["payload"], validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def parse_body(body: bytes) -> Any:
    """The decoded JSON body.

    Raises:
        RpcError: -32700 for anything that is not strict UTF-8 JSON.
    """
    try:
        return json.loads(body.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        fail(PARSE_ERROR, "Parse error: body is not valid UTF-8")
    except (ValueError, RecursionError) as exc:
        fail(PARSE_ERROR, f"Parse error: {type(exc).__name__}")


@dataclass(frozen=True)
class RpcRequest:
    """A JSON-RPC request as received; `params` is unchecked until an era's rules look at it."""

    id: object
    method: str
    params: object
    headers: dict[str, str]


def parse_request(message: Any, headers: dict[str, str]) -> RpcRequest | None:
    """The request in a decoded body, or None for a notification.

    Raises:
        RpcError: -32600 for batches, non-objects, a missing method or an id MCP does not allow.
    """
    if isinstance(message, list):
        fail(INVALID_REQUEST, "Invalid Request: JSON-RPC batches are not supported")
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        fail(INVALID_REQUEST, 'Invalid Request: expected a JSON-RPC object with "jsonrpc": "2.0"')
    if not isinstance(message.get("method"), str):
        fail(INVALID_REQUEST, "Invalid Request: method must be a string (clients must not send responses)")
    if "id" not in message:
        return None
    if not is_request_id(message["id"]):
        fail(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    return RpcRequest(message["id"], message["method"], message.get("params"), headers)


def readable_id(message: Any) -> object:
    """The request id of a decoded body when it is a valid one, else None."""
    candidate = message.get("id") if isinstance(message, dict) else None
    return candidate if is_request_id(candidate) else None


def has_modern_meta(params: object) -> bool:
    """True when `params._meta` names a protocol version: the request speaks the modern era."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and META_PROTOCOL_VERSION in meta


def foreign_origin(headers: dict[str, str]) -> str | None:
    """The `Origin` header when it names a host other than this machine (a DNS-rebinding risk), else None."""
    origin = headers.get("origin")
    if origin is None:
        return None
    try:
        host = urlsplit(origin).hostname
    except ValueError:
        return origin
    return None if host in LOCAL_ORIGIN_HOSTS else origin


def is_request_id(value: object) -> bool:
    """True for the id types MCP allows: strings and integers (never null or booleans)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def modern_meta(params: object) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The request's `_meta`, protocol version and client capabilities.

    Raises:
        RpcError: -32602 naming any missing required key; -32022 for a version this endpoint does not speak.
    """
    if not isinstance(params, dict):
        fail(INVALID_PARAMS, f"Invalid params: params must be an object carrying _meta with {_required_keys()}")
    meta = params.get("_meta")
    if not isinstance(meta, dict):
        fail(INVALID_PARAMS, f"Invalid params: params._meta is missing; it must carry {_required_keys()}")
    missing = [key for key in (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES) if key not in meta]
    if missing:
        fail(INVALID_PARAMS, f"Invalid params: params._meta is missing required key(s) {', '.join(missing)}")
    capabilities = meta[META_CLIENT_CAPABILITIES]
    if not isinstance(capabilities, dict):
        fail(INVALID_PARAMS, f"Invalid params: params._meta {META_CLIENT_CAPABILITIES} must be an object")
    return meta[META_PROTOCOL_VERSION], meta, capabilities


def _required_keys() -> str:
    return f"{META_PROTOCOL_VERSION} and {META_CLIENT_CAPABILITIES}"


def check_version(version: object) -> str:
    """The version, if this endpoint speaks it.

    Raises:
        RpcError: -32022 listing the supported versions.
    """
    if version not in SUPPORTED_MODERN_VERSIONS:
        fail(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            data={"supported": list(SUPPORTED_MODERN_VERSIONS), "requested": version},
        )
    assert isinstance(version, str)
    return version


def check_version_header(headers: dict[str, str], version: object) -> None:
    """The `MCP-Protocol-Version` header is present and equals the `_meta` version.

    Raises:
        RpcError: -32020 HeaderMismatch.
    """
    _check_header(headers, "mcp-protocol-version", "MCP-Protocol-Version", version, sentinel=False)


def check_request_headers(headers: dict[str, str], method: str, params: dict[str, Any]) -> None:
    """`Mcp-Method` equals the method and, for `tools/call`, `Mcp-Name` equals `params.name`.

    Raises:
        RpcError: -32020 HeaderMismatch.
    """
    _check_header(headers, "mcp-method", "Mcp-Method", method, sentinel=False)
    if method == "tools/call":
        _check_header(headers, "mcp-name", "Mcp-Name", params.get("name"), sentinel=True)


def _check_header(headers: dict[str, str], key: str, label: str, expected: object, *, sentinel: bool) -> None:
    raw = headers.get(key)
    if raw is None:
        fail(HEADER_MISMATCH, f"Header mismatch: required header {label} is missing")
    value = decode_header_value(raw) if sentinel else raw
    if value is None:
        fail(HEADER_MISMATCH, f"Header mismatch: {label} header value {raw!r} is not valid base64 sentinel encoding")
    if value != expected:
        fail(HEADER_MISMATCH, f"Header mismatch: {label} header value {value!r} does not match body value {expected!r}")


def progress_token(params: object) -> str | int | None:
    """The request's `_meta.progressToken`, if it is a valid one."""
    if not isinstance(params, dict) or not isinstance(meta := params.get("_meta"), dict):
        return None
    token = meta.get("progressToken")
    return token if is_request_id(token) else None


def progress_notification(token: str | int, progress: int) -> dict[str, Any]:
    """A `notifications/progress` message for a held request."""
    params = {"progressToken": token, "progress": progress, "message": "holding"}
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}
