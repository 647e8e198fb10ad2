"""A deliberately broken MCP server for the server-side session rules: a hand-written JSON-RPC server speaking
2026-07-28 (`server/discover`, per-request `_meta`, MRTR rounds) and 2025-11-25 (an `initialize` handshake, an
`Mcp-Session-Id`, server-initiated requests on a tools/call's SSE stream), with one switch per rule, each breaking
exactly that rule (`none` breaks nothing).

Two tools. `confirm` asks the user to confirm in form mode: in 2026-07-28 it answers `input_required` with one
form elicitation and a `requestState`, and completes on the retry carrying `inputResponses`; in 2025-11-25 it sends
`elicitation/create` on the call's SSE stream, waits (bounded) for the client's answer in a later POST, then
completes on that stream. `summarize` needs sampling: in 2026-07-28 a client that did not declare it gets `-32021`
(HTTP 400, `data.requiredCapabilities`), in 2025-11-25 an `isError` result (the drivers declare no sampling).

As a command: `python tests/servers/session_broken.py --break SWITCH [--port N]` prints `READY <url>` once it
listens on 127.0.0.1 and serves until SIGTERM, SIGINT or the end of its stdin, then exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import signal
import sys
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from backchannel.proxy.endpoint.serving import serve_loopback

NAME = "session-broken"
# each switch and the one session rule it breaks (the others pass); `none` breaks nothing
SWITCHES: dict[str, str | None] = {
    "none": None,
    "no-result-type": "session-server-result-type",  # 2026: tools/list's result without resultType
    "input-required-on-list": "sep-2322-not-on-unsupported-requests",  # 2026: tools/list answered input_required
    "input-required-empty": "session-server-input-required-well-formed",  # 2026: neither inputRequests nor state
    "undeclared-input": "session-server-input-requests-declared",  # 2026: a sampling input request, undeclared
    "capability-error-200": "session-server-protocol-errors-http-400",  # 2026: each -32021 under HTTP 200
    "error-wrong-id": "sep-2575-http-server-error-jsonrpc-id",  # 2026: each -32021 with another id
    "independent-request": "sep-2575-http-server-no-independent-requests-on-stream",  # 2026: a ping on the stream
    "schema-invalid": "session-server-wire-schema-valid",  # either era: confirm's content an object, not an array
    "undeclared-sampling": "session-server-requests-declared-capability",  # 2025: summarize sends sampling anyway
    "session-id-space": "server-session-id-visible-ascii",  # 2025: an Mcp-Session-Id with a space in it
    # either era: summarize's sampling request carries tools and toolChoice, sampling.tools declared or not
    "sampling-tools-undeclared": "session-server-sampling-tools-declared",
}

MODERN = "2026-07-28"
LEGACY_VERSIONS = ("2025-06-18", "2025-11-25")
LATEST_LEGACY = "2025-11-25"
META = "io.modelcontextprotocol/"
META_VERSION = f"{META}protocolVersion"
META_CAPABILITIES = f"{META}clientCapabilities"
META_SERVER_INFO = f"{META}serverInfo"
SERVER_VERSION = "0.1.0"

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
HEADER_MISMATCH, MISSING_CAPABILITY, UNSUPPORTED_VERSION = -32020, -32021, -32022

MAX_BODY_BYTES = 1024 * 1024  # a request body past this is refused (413)
MAX_SESSIONS = 256  # 2025-era sessions kept; the oldest goes first
MAX_PENDING = 64  # server-initiated requests awaiting the client's answer, across sessions
ANSWER_WAIT_S = 20.0  # how long a 2025-era tools/call waits for the client's answer to its request
PING_WAIT_S = 3.0  # independent-request: how long the stream waits for the client's answer to its ping
STATE_PREFIX = "session-broken.confirm."
LIST_STATE = "session-broken.list.1"  # input-required-on-list: the retry carrying it gets the listing
CONFIRM_KEY = "confirm"
SAMPLE_KEY = "summary"
CONFIRM_SCHEMA = {"type": "object", "properties": {"confirmed": {"type": "boolean"}}, "required": ["confirmed"]}
CONFIRM_ASK = {"mode": "form", "message": "Confirm the change?", "requestedSchema": CONFIRM_SCHEMA}
SAMPLE_ASK = {
    "messages": [{"role": "user", "content": {"type": "text", "text": "Summarize the change in one line."}}],
    "maxTokens": 64,
}
EMPTY_SCHEMA = {"type": "object", "properties": {}}
SAMPLE_TOOLS = {
    "tools": [{"name": "lookup", "description": "Look a word up", "inputSchema": EMPTY_SCHEMA}],
    "toolChoice": {"mode": "auto"},
}
TOOLS = [
    {"name": "confirm", "description": "Ask the user to confirm a change (a form).", "inputSchema": EMPTY_SCHEMA},
    {"name": "summarize", "description": "Summarize the change (needs sampling).", "inputSchema": EMPTY_SCHEMA},
]
TOOL_NAMES = frozenset(tool["name"] for tool in TOOLS)
SUMMARY_STATE = "session-broken.summarize.1"
SSE_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


class RpcError(Exception):
    """A JSON-RPC error to answer with, and the HTTP status it travels under."""

    def __init__(self, code: int, message: str, status: int = 400, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.status, self.data = code, message, status, data

    def error(self) -> dict[str, Any]:
        found: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            found["data"] = self.data
        return found


@dataclass
class LegacySession:
    version: str
    capabilities: dict[str, Any]
    next_id: int = 0
    pending: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)


def dumps(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()


def json_reply(message: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(dumps(message), status_code=status, media_type="application/json", headers=headers)


def sse_event(message: dict[str, Any]) -> bytes:
    return b"event: message\ndata: " + dumps(message) + b"\n\n"


def result_of(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_of(request_id: Any, error: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not None:
        message["id"] = request_id
    message["error"] = error
    return message


def is_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def other_id(request_id: Any) -> Any:
    """An id of the same type that is not the request's (error-wrong-id)."""
    return request_id + 1000 if isinstance(request_id, int) else f"{request_id}-not-yours"


def text_result(text: str, *, error: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if error:
        result["isError"] = True
    return result


def declares_form(capabilities: dict[str, Any]) -> bool:
    """Whether these capabilities declare form-mode elicitation (`elicitation: {}` means form)."""
    elicitation = capabilities.get("elicitation")
    if not isinstance(elicitation, dict):
        return False
    return "form" in elicitation or not ({"form", "url"} & set(elicitation))


def ended(answer: Any) -> dict[str, Any]:
    """The confirm tool's result for the client's answer to its form."""
    action = answer.get("action") if isinstance(answer, dict) else None
    if action == "accept":
        return text_result("the change is confirmed")
    if action in ("decline", "cancel"):
        return text_result(f"the user chose {action}; nothing was changed", error=True)
    return text_result("no usable answer to the confirmation", error=True)


class BrokenServer:
    """The ASGI app's state: the switch, the 2025-era sessions and the requests they wait on."""

    def __init__(self, switch: str) -> None:
        if switch not in SWITCHES:
            raise ValueError(f"unknown switch {switch!r}; known: {', '.join(SWITCHES)}")
        self.switch = switch
        self.sessions: OrderedDict[str, LegacySession] = OrderedDict()
        self.pings: dict[str, asyncio.Future[dict[str, Any]]] = {}  # independent-request: pings awaiting an answer
        self.info = {"name": f"{NAME}-{switch}", "version": SERVER_VERSION}

    # -- HTTP ---------------------------------------------------------------------------------------------------

    async def endpoint(self, request: Request) -> Response:
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).hostname not in LOCAL_HOSTS:
            return json_reply(error_of(None, {"code": INVALID_REQUEST, "message": "Forbidden origin"}), 403)
        if request.method == "DELETE":
            gone = self.sessions.pop(request.headers.get("mcp-session-id", ""), None)
            return Response(status_code=200 if gone else 404)
        if request.method != "POST":
            return Response(status_code=405, headers={"allow": "POST, DELETE"})
        message: Any = None
        try:
            message = json.loads(await self._body(request))
            return await self._post(request, message)
        except ValueError:
            return json_reply(error_of(None, {"code": PARSE_ERROR, "message": "Parse error"}), 400)
        except RpcError as exc:
            request_id = message.get("id") if isinstance(message, dict) and is_id(message.get("id")) else None
            return json_reply(error_of(request_id, exc.error()), exc.status)

    async def _body(self, request: Request) -> bytes:
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            raise RpcError(INVALID_REQUEST, "Request body too large", 413)
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY_BYTES:
                raise RpcError(INVALID_REQUEST, "Request body too large", 413)
        return bytes(body)

    async def _post(self, http: Request, message: Any) -> Response:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            raise RpcError(INVALID_REQUEST, "Invalid Request: expected one JSON-RPC object")
        session_id = http.headers.get("mcp-session-id")
        if "method" not in message:  # a response: the client answering one of our 2025-era requests
            session = self.sessions.get(session_id or "")
            pending = session.pending if session is not None else self.pings
            waiting = pending.get(str(message.get("id")))
            if waiting is None:
                raise RpcError(INVALID_REQUEST, "Invalid Request: a response to no request of ours")
            if not waiting.done():
                waiting.set_result(message)
            return Response(status_code=202)
        method, params = message.get("method"), message.get("params")
        if not isinstance(method, str):
            raise RpcError(INVALID_REQUEST, "Invalid Request: method must be a string")
        if "id" not in message:  # a notification
            return Response(status_code=202)
        if not is_id(message["id"]):
            raise RpcError(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
        request_id = message["id"]
        meta = params.get("_meta") if isinstance(params, dict) else None
        if method == "server/discover" or (isinstance(meta, dict) and META_VERSION in meta):
            return await self._modern(http, request_id, method, params)
        if method == "initialize":
            return self._initialize(request_id, params)
        session = self.sessions.get(session_id or "")
        if session is None:
            status = 404 if session_id else 400
            raise RpcError(INVALID_REQUEST, "Bad Request: no valid session (initialize, or send _meta)", status)
        self.sessions.move_to_end(session_id or "")
        return await self._legacy(request_id, method, params, session)

    # -- 2026-07-28 ---------------------------------------------------------------------------------------------

    async def _modern(self, http: Request, request_id: Any, method: str, params: Any) -> Response:
        meta = params.get("_meta") if isinstance(params, dict) else None
        if not isinstance(meta, dict) or not isinstance(meta.get(META_CAPABILITIES), dict):
            raise RpcError(INVALID_PARAMS, f"Invalid params: _meta must carry {META_VERSION} and {META_CAPABILITIES}")
        version = meta.get(META_VERSION)
        if version != MODERN:
            data = {"supported": [MODERN], "requested": str(version)[:40]}
            raise RpcError(UNSUPPORTED_VERSION, "Unsupported protocol version", data=data)
        if http.headers.get("mcp-protocol-version") != version:
            raise RpcError(HEADER_MISMATCH, "Header mismatch: MCP-Protocol-Version does not match _meta")
        if http.headers.get("mcp-method") != method:
            raise RpcError(HEADER_MISMATCH, "Header mismatch: Mcp-Method does not match the body's method")
        capabilities: dict[str, Any] = meta[META_CAPABILITIES]
        cache = {"ttlMs": 0, "cacheScope": "public"}
        if method == "server/discover":
            return self._complete(request_id, {"supportedVersions": [MODERN], "capabilities": {"tools": {}}, **cache})
        if method == "tools/list":
            if self.switch == "input-required-on-list" and params.get("requestState") != LIST_STATE:
                asked = {CONFIRM_KEY: {"method": "elicitation/create", "params": CONFIRM_ASK}}
                result = {"resultType": "input_required", "inputRequests": asked, "requestState": LIST_STATE}
                return json_reply(result_of(request_id, self._stamped(result)))
            listed: dict[str, Any] = {"tools": TOOLS, **cache}
            if self.switch == "no-result-type":
                return json_reply(result_of(request_id, {**listed, "_meta": {META_SERVER_INFO: self.info}}))
            return self._complete(request_id, listed)
        if method == "ping":
            return self._complete(request_id, {})
        if method != "tools/call":
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}", 404)
        name = params.get("name")
        if http.headers.get("mcp-name") != name:
            raise RpcError(HEADER_MISMATCH, "Header mismatch: Mcp-Name does not match params.name")
        if name not in TOOL_NAMES:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {str(name)[:60]}", 200)
        if name == "summarize":
            return self._modern_summarize(request_id, params, capabilities)
        return self._modern_confirm(request_id, params, capabilities)

    def _modern_summarize(self, request_id: Any, params: dict[str, Any], capabilities: dict[str, Any]) -> Response:
        answers = params.get("inputResponses")
        if params.get("requestState") == SUMMARY_STATE and isinstance(answers, dict) and SAMPLE_KEY in answers:
            return self._complete(request_id, text_result("summarized"))
        if "sampling" not in capabilities and self.switch != "undeclared-input":
            return self._missing(request_id, "sampling", {"sampling": {}})
        asked = {SAMPLE_KEY: {"method": "sampling/createMessage", "params": self._sample_ask(capabilities)}}
        return self._complete(request_id, {"resultType": "input_required", "inputRequests": asked,
                                           "requestState": SUMMARY_STATE})  # fmt: skip

    def _sample_ask(self, capabilities: dict[str, Any]) -> dict[str, Any]:
        """summarize's sampling request: with tools only for a client that declared sampling.tools (always, when the
        switch is sampling-tools-undeclared)."""
        sampling = capabilities.get("sampling")
        if self.switch == "sampling-tools-undeclared" or (isinstance(sampling, dict) and "tools" in sampling):
            return {**SAMPLE_ASK, **SAMPLE_TOOLS}
        return SAMPLE_ASK

    def _modern_confirm(self, request_id: Any, params: dict[str, Any], capabilities: dict[str, Any]) -> Response:
        if not declares_form(capabilities):
            return self._missing(request_id, "elicitation (form mode)", {"elicitation": {"form": {}}})
        state = params.get("requestState")
        answers = params.get("inputResponses")
        if isinstance(state, str) and state.startswith(STATE_PREFIX) and isinstance(answers, dict):
            result = ended(answers.get(CONFIRM_KEY))
            if self.switch == "schema-invalid":
                result["content"] = result["content"][0]  # an object where the schema wants an array
            if self.switch == "independent-request":
                return self._stream(request_id, result)
            return self._complete(request_id, result)
        if self.switch == "input-required-empty":
            return self._complete(request_id, {"resultType": "input_required"})
        asked = {CONFIRM_KEY: {"method": "elicitation/create", "params": CONFIRM_ASK}}
        result = {"resultType": "input_required", "inputRequests": asked,
                  "requestState": STATE_PREFIX + secrets.token_hex(8)}  # fmt: skip
        return self._complete(request_id, result)

    def _missing(self, request_id: Any, what: str, required: dict[str, Any]) -> Response:
        """-32021 naming what the client must declare, under HTTP 400 with the request's id (capability-error-200:
        under 200; error-wrong-id: with another id)."""
        error = {
            "code": MISSING_CAPABILITY,
            "message": f"Missing required client capability: {what}",
            "data": {"requiredCapabilities": required},
        }
        said = other_id(request_id) if self.switch == "error-wrong-id" else request_id
        return json_reply(error_of(said, error), 200 if self.switch == "capability-error-200" else 400)

    def _stream(self, request_id: Any, result: dict[str, Any]) -> Response:
        """independent-request: the final result on an SSE stream, after a server-initiated ping and the client's
        answer to it (or PING_WAIT_S without one), so the recording holds the answer whole."""
        if len(self.pings) >= MAX_PENDING:
            raise RpcError(INVALID_REQUEST, "Too many calls waiting on the client", 503)
        ours = f"ping-{secrets.token_hex(4)}"
        waiting: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pings[ours] = waiting

        async def events() -> AsyncIterator[bytes]:
            try:
                yield sse_event({"jsonrpc": "2.0", "id": ours, "method": "ping"})
                try:
                    await asyncio.wait_for(asyncio.shield(waiting), PING_WAIT_S)
                except TimeoutError:
                    pass
                yield sse_event(result_of(request_id, self._stamped({"resultType": "complete", **result})))
            finally:
                self.pings.pop(ours, None)

        return StreamingResponse(events(), media_type="text/event-stream", headers=SSE_HEADERS)

    def _stamped(self, result: dict[str, Any]) -> dict[str, Any]:
        return {**result, "_meta": {META_SERVER_INFO: self.info}}

    def _complete(self, request_id: Any, result: dict[str, Any]) -> Response:
        return json_reply(result_of(request_id, self._stamped({"resultType": "complete", **result})))

    # -- 2025-11-25 ---------------------------------------------------------------------------------------------

    def _initialize(self, request_id: Any, params: Any) -> Response:
        params = params if isinstance(params, dict) else {}
        asked = params.get("protocolVersion")
        version = asked if asked in LEGACY_VERSIONS else LATEST_LEGACY
        capabilities = params.get("capabilities")
        capabilities = capabilities if isinstance(capabilities, dict) else {}
        session_id = secrets.token_hex(16)
        if self.switch == "session-id-space":
            session_id = f"{session_id[:16]} {session_id[16:]}"
        while len(self.sessions) >= MAX_SESSIONS:
            _, old = self.sessions.popitem(last=False)
            for waiting in old.pending.values():  # its calls end at once, answered by nobody
                if not waiting.done():
                    waiting.set_result({})
        self.sessions[session_id] = LegacySession(version, capabilities)
        result: dict[str, Any] = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": self.info}
        return json_reply(result_of(request_id, result), headers={"mcp-session-id": session_id})

    async def _legacy(self, request_id: Any, method: str, params: Any, session: LegacySession) -> Response:
        params = params if isinstance(params, dict) else {}
        if method == "ping":
            return json_reply(result_of(request_id, {}))
        if method == "tools/list":
            return json_reply(result_of(request_id, {"tools": TOOLS}))
        if method != "tools/call":
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}", 200)
        name = params.get("name")
        if name == "confirm":
            if not declares_form(session.capabilities):
                return json_reply(result_of(request_id, text_result("confirm needs form elicitation", error=True)))
            ask = {"method": "elicitation/create", "params": CONFIRM_ASK}
        elif name == "summarize":
            if "sampling" not in session.capabilities and self.switch != "undeclared-sampling":
                return json_reply(result_of(request_id, text_result("summarize needs sampling", error=True)))
            ask = {"method": "sampling/createMessage", "params": self._sample_ask(session.capabilities)}
        else:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {str(name)[:60]}", 200)
        if sum(len(s.pending) for s in self.sessions.values()) >= MAX_PENDING:
            raise RpcError(INVALID_REQUEST, "Too many calls waiting on the client", 503)
        session.next_id += 1
        ours = f"server-{session.next_id}"
        waiting: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        session.pending[ours] = waiting

        async def events() -> AsyncIterator[bytes]:
            try:
                yield sse_event({"jsonrpc": "2.0", "id": ours, **ask})
                try:
                    answer = await asyncio.wait_for(asyncio.shield(waiting), ANSWER_WAIT_S)
                except TimeoutError:
                    answer = {}
                if not answer:
                    result = text_result("no answer from the client in time", error=True)
                elif name == "summarize":
                    result = text_result("summarized" if "result" in answer else "no summary", error="error" in answer)
                else:
                    result = ended(answer.get("result")) if "result" in answer else text_result("declined", error=True)
                if self.switch == "schema-invalid":
                    result["content"] = result["content"][0]
                yield sse_event(result_of(request_id, result))
            finally:
                session.pending.pop(ours, None)

        return StreamingResponse(events(), media_type="text/event-stream", headers=SSE_HEADERS)


def build_app(switch: str) -> Starlette:
    server = BrokenServer(switch)
    return Starlette(routes=[Route("/mcp", server.endpoint, methods=["GET", "POST", "DELETE"])])


def _until_eof(done: threading.Event) -> None:
    """Set `done` at the end of stdin (os.read, not sys.stdin: a buffered reader's lock held by a daemon thread
    aborts the interpreter at exit)."""
    try:
        while os.read(0, 65536):
            pass
    except OSError:
        pass
    done.set()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--break", dest="switch", required=True, choices=sorted(SWITCHES))
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    threading.Thread(target=_until_eof, args=(done,), daemon=True).start()
    server = serve_loopback(build_app(args.switch), "127.0.0.1", args.port, what=NAME)
    try:
        print(f"READY http://127.0.0.1:{server.port}/mcp", flush=True)
        done.wait()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
