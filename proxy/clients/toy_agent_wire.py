"""The toy agent's MCP side: JSON-RPC over Streamable HTTP (stdlib only), era detection, SSE, input responses.

Deliberately free of the MCP SDK, so every byte the toy agent sends is one this module chose. A connection made with
wire flaws (`--wire-flaw`, toy_agent_core.WIRE_FLAWS) breaks those rules on the wire on purpose (without any, it sends
exactly what it always did). The `server/discover` probe is always sent right, so a server that refuses a flawed
request cannot talk the toy into the 2025 era: the flaws show on the requests after it.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import http.client

CLIENT_NAME = "backchannel-toy-agent"
CLIENT_VERSION = "0.1.0"
MODERN_VERSION = "2026-07-28"
LEGACY_VERSION = "2025-11-25"
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
MODERN_ERROR_CODES = frozenset({-32020, -32021, -32022})
UNSUPPORTED_PROTOCOL_VERSION = -32022
TIMEOUT_S = 30.0

META = "io.modelcontextprotocol/"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
# what the `unasked-response` flaw posts: a JSON-RPC response to a request the server never sent (valid otherwise:
# a 2026-07-28 result carries its resultType)
UNASKED_ID = 999

# What the toy's "model" answers to every sampling request; the toy "user" fills forms with form_content().
SAMPLING_ANSWER = {
    "role": "assistant",
    "content": {"type": "text", "text": "ok"},
    "model": "toy-model",
    "stopReason": "endTurn",
}

_HEADER_SAFE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")
_SENTINEL = re.compile(r"=\?base64\?.*\?=", re.DOTALL)

Era = Literal["modern", "legacy"]


class WireError(Exception):
    """The server could not be reached, or answered with something that is not a JSON-RPC response."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class RpcFailure(Exception):
    """The server answered with a JSON-RPC error."""

    def __init__(self, error: dict[str, Any]) -> None:
        self.code = error.get("code")
        self.message = str(error.get("message", ""))
        self.data = error.get("data")
        super().__init__(f"{self.code} {self.message}")


def origin_of(url: str) -> str:
    """`scheme://host:port` of an http(s) URL, with the default port spelled out."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{f'[{host}]' if ':' in host else host}:{port}"


def header_value(value: str) -> str:
    """A header-safe spelling of `value`: as-is when it is plain printable ASCII, else the `=?base64?…?=` sentinel."""
    if _HEADER_SAFE.fullmatch(value) and not _SENTINEL.fullmatch(value):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def sse_events(lines: Iterator[bytes]) -> Iterator[str]:
    """The data of each SSE event in `lines`, in order; comments, keep-alives and empty events yield nothing."""
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if not line:
            if data:
                yield "\n".join(data)
            data = []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            if field == "data":
                data.append(value[1:] if value.startswith(" ") else value)
    if data:  # a stream cut short after a complete data line still counts
        yield "\n".join(data)


# the flaws that declare a capability as `true` rather than an object, and which capability
NOT_OBJECT_FLAWS = {"capability-not-object": "roots", "elicitation-not-object": "elicitation",
                    "sampling-not-object": "sampling"}  # fmt: skip


class Connection:
    """One client's view of one MCP endpoint: its era, session, server identity and request ids."""

    def __init__(
        self, url: str, capabilities: dict[str, Any], timeout: float = TIMEOUT_S, *, flaws: frozenset[str] = frozenset()
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r} is not an http:// or https:// URL")
        self.url = url
        self.origin = origin_of(url)
        self.flaws = flaws  # the wire flaws this connection has on purpose (toy_agent_core.WIRE_FLAWS)
        self.capabilities = capabilities
        self.timeout = timeout
        self.era: Era = "modern"
        self.version = MODERN_VERSION
        self.session_id: str | None = None
        self.server_name: str | None = None
        self._ids = itertools.count(1)
        self.last_id: int | None = None  # the id of the request sent last
        # answers a server-initiated request met on a call's stream (2025 eras): its result, or None to leave it
        self.on_request: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None

    def connect(self, mode: Literal["auto", "legacy"]) -> None:
        """Settle the era: probe with `server/discover` (auto), or go straight to the `initialize` handshake.

        Raises:
            WireError, RpcFailure: The server could not be reached, or refused every version this client speaks.
        """
        if mode == "legacy":
            return self.initialize(LEGACY_VERSION)
        try:
            result = self.request("server/discover", {})
        except RpcFailure as exc:
            if exc.code == UNSUPPORTED_PROTOCOL_VERSION:
                return self._fall_back(exc.data.get("supported") if isinstance(exc.data, dict) else None, exc)
            if exc.code not in MODERN_ERROR_CODES:  # a modern error means a modern server: stay and let it say why
                self.initialize(LEGACY_VERSION)
            return None
        except WireError as exc:
            if exc.status is None:
                raise
            return self.initialize(LEGACY_VERSION)
        self.note_server(result)
        versions = result.get("supportedVersions")
        if isinstance(versions, list) and MODERN_VERSION not in versions:
            self._fall_back(versions, WireError(f"the server supports none of this client's versions: {versions}"))
        return None

    def _fall_back(self, supported: object, error: Exception) -> None:
        """Run the handshake with the newest legacy version `supported` lists, or raise `error`."""
        legacy = [v for v in LEGACY_VERSIONS if isinstance(supported, list) and v in supported]
        if not legacy:
            raise error
        self.initialize(legacy[0])

    def initialize(self, version: str) -> None:
        """Run the 2025-11-25-era handshake and keep the session it hands out."""
        self.era, self.version = "legacy", version
        params = {
            "protocolVersion": version,
            "capabilities": self._declared(self.flaws),
            "clientInfo": {"name": CLIENT_NAME, "version": CLIENT_VERSION},
        }
        result = self.request("initialize", params)
        agreed = result.get("protocolVersion")
        self.version = agreed if isinstance(agreed, str) and agreed in LEGACY_VERSIONS else version
        info = result.get("serverInfo")
        if isinstance(info, dict) and isinstance(info.get("name"), str):
            self.server_name = info["name"]
        self.notify("notifications/initialized")

    def note_server(self, result: dict[str, Any]) -> str | None:
        """Remember the server name a modern result reports in `_meta`; returns the name now on record."""
        meta = result.get("_meta")
        info = meta.get(META_SERVER_INFO) if isinstance(meta, dict) else None
        if isinstance(info, dict) and isinstance(info.get("name"), str):
            self.server_name = info["name"]
        return self.server_name

    def request(self, method: str, params: dict[str, Any], *, request_id: int | None = None) -> dict[str, Any]:
        """Send one request under a fresh id (or `request_id`, which only a flawed retry reuses) and return its result.

        Raises:
            RpcFailure: The server answered with a JSON-RPC error.
            WireError: Anything else went wrong; `.status` holds the HTTP status when there was one.
        """
        request_id = next(self._ids) if request_id is None else request_id
        self.last_id = request_id
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": self._params(method, params)}
        answer = self._post(message, request_id) or {}
        if "error" in answer:
            error = answer["error"]
            raise RpcFailure(error if isinstance(error, dict) else {"message": str(error)})
        result = answer.get("result")
        if not isinstance(result, dict):
            raise WireError(f"the result of {method} (id {request_id}) is not a JSON object")
        return result

    def notify(self, method: str) -> None:
        """Send a notification; whatever comes back is ignored."""
        self._post({"jsonrpc": "2.0", "method": method}, None)

    def respond_unasked(self) -> None:
        """The `unasked-response` flaw: POST a JSON-RPC response that answers no request of the server's."""
        result: dict[str, Any] = {"resultType": "complete"} if self.era == "modern" else {}
        self._post({"jsonrpc": "2.0", "id": UNASKED_ID, "result": result}, None)

    def _flaws_of(self, method: str | None) -> frozenset[str]:
        """The wire flaws a message of `method` carries: none on the server/discover probe."""
        return frozenset() if method == "server/discover" else self.flaws

    def _declared(self, flaws: frozenset[str]) -> dict[str, Any]:
        """The capabilities this client declares (`capability-not-object`: with `"roots": true` besides;
        `elicitation-not-object`, `sampling-not-object`: that capability as `true`)."""
        declared = dict(self.capabilities)
        for flaw, name in NOT_OBJECT_FLAWS.items():
            if flaw in flaws:
                declared[name] = True
        return declared

    def _params(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if self.era == "legacy":
            return params
        flaws = self._flaws_of(method)
        info = {"name": CLIENT_NAME, "version": CLIENT_VERSION}
        if "client-info-no-version" in flaws:  # Implementation needs both: invalid against the schema, named still
            del info["version"]
        meta: dict[str, Any] = {f"{META}protocolVersion": self.version}
        if "no-client-capabilities" not in flaws:
            meta[f"{META}clientCapabilities"] = self._declared(flaws)
        if "no-client-info" not in flaws:
            meta[f"{META}clientInfo"] = info
        return {**params, "_meta": meta}

    def _headers(self, message: dict[str, Any]) -> dict[str, str]:
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        method = message.get("method")  # None: a response (only the unasked-response flaw sends one)
        flaws = self._flaws_of(method)
        if self.era == "modern":
            if "no-version-header" not in flaws:
                mismatch = "version-header-mismatch" in flaws
                headers["MCP-Protocol-Version"] = LEGACY_VERSION if mismatch else self.version
            if method is not None:
                headers["Mcp-Method"] = wrong_method(method) if "wrong-method-header" in flaws else method
            name = message.get("params", {}).get("name")
            if method == "tools/call" and isinstance(name, str):
                headers["Mcp-Name"] = header_value(name)
        elif method != "initialize":
            if "legacy-no-version-header" not in flaws:
                headers["MCP-Protocol-Version"] = self.version
            if self.session_id is not None and "no-session-id" not in flaws:
                headers["Mcp-Session-Id"] = self.session_id
        return headers

    def _post(self, message: dict[str, Any], want: int | None) -> dict[str, Any] | None:
        # imported here: http.client (and the email parser under it) is half of the toy's start-up, and many of its
        # runs (help, version, discovery's probes) never post
        import http.client

        parts = urlsplit(self.url)
        factory = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        conn = factory(parts.hostname or "", parts.port, timeout=self.timeout)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        deadline = time.monotonic() + self.timeout
        try:
            conn.request("POST", path, body=json.dumps(message).encode(), headers=self._headers(message))
            response = conn.getresponse()
            if message.get("method") == "initialize" and response.getheader("Mcp-Session-Id"):
                self.session_id = response.getheader("Mcp-Session-Id")
            if want is None:
                response.read()
                return None
            kind = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
            if kind == "text/event-stream":
                answer = answer_in(self._answering(sse_events(_lines(response, deadline))), want)
            else:
                answer = answer_in(iter([response.read().decode("utf-8", errors="replace")]), want)
        except (OSError, http.client.HTTPException) as exc:
            raise WireError(f"cannot talk to {self.url}: {exc or type(exc).__name__}") from exc
        finally:
            conn.close()
        if answer is None:
            detail = f"HTTP {response.status} from {self.url} carried no JSON-RPC response to id {want}"
            raise WireError(detail, response.status)
        return answer

    def _answering(self, bodies: Iterator[str]) -> Iterator[str]:
        """The stream's events, answering each server-initiated request among them (POSTed on its own) on the way."""
        for body in bodies:
            try:
                message = json.loads(body)
            except ValueError:
                message = None
            if isinstance(message, dict) and "method" in message and "id" in message and self.on_request is not None:
                result = self.on_request(message)
                if result is not None:
                    self._post({"jsonrpc": "2.0", "id": message["id"], "result": result}, None)
                continue
            yield body


def wrong_method(method: str) -> str:
    """The `wrong-method-header` flaw's Mcp-Method: another real method than the body's."""
    return "tools/list" if method != "tools/list" else "ping"


def _lines(response: http.client.HTTPResponse, deadline: float) -> Iterator[bytes]:
    while line := response.readline():
        yield line
        if time.monotonic() > deadline:
            raise TimeoutError("no response within the request timeout")


def answer_in(bodies: Iterator[str], want: int) -> dict[str, Any] | None:
    """The first message in `bodies` answering request `want`, or an error the server could not pin to any id."""
    for body in bodies:
        try:
            message = json.loads(body)
        except ValueError:
            continue
        if isinstance(message, dict) and ("result" in message or "error" in message):
            got = message.get("id")
            if (type(got) is int and got == want) or (got is None and "error" in message):
                return message
    return None


def form_content(schema: Any) -> dict[str, Any]:
    """The toy user's form answer: true, "yes", 1, or the first allowed value, per property."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    content: dict[str, Any] = {}
    for name, prop in props.items() if isinstance(props, dict) else ():
        value = _form_value(prop)
        if value is not None:
            content[name] = value
    return content


def _form_value(prop: Any) -> Any:
    if not isinstance(prop, dict):
        return None
    options = prop.get("oneOf") or prop.get("anyOf")
    choices = [o["const"] for o in options if isinstance(o, dict) and "const" in o] if isinstance(options, list) else []
    if isinstance(prop.get("enum"), list) and prop["enum"]:
        return prop["enum"][0]
    if choices:
        return choices[0]
    kind = prop.get("type")
    if kind == "array":
        first = _form_value(prop.get("items"))
        return [first] if isinstance(first, str) else []  # ElicitResult arrays hold strings only
    return {"boolean": True, "string": "yes", "number": 1, "integer": 1}.get(kind) if isinstance(kind, str) else None


def sampling_text(messages: Any) -> list[str]:
    """The text blocks of a sampling request's messages, in order."""
    texts: list[str] = []
    for message in messages if isinstance(messages, list) else ():
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else [content]:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
    return texts
