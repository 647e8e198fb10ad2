"""The scripted MCP endpoint: a raw ASGI app serving the tools it is handed, to modern (2026-07-28) and legacy
clients."""

from __future__ import annotations

import asyncio
import inspect
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from starlette.types import Receive, Scope, Send

from backchannel.proxy.endpoint.io import lifespan, read_body, send_bytes, send_json, send_sse, until_disconnected
from backchannel.proxy.endpoint.listen import Listeners
from backchannel.proxy.endpoint.server_requests import Answers, Channel, asks_for_input, is_response, meant_in
from backchannel.proxy.endpoint.tools import EndpointConfig, ToolCall, ToolReply, ToolSpec
from backchannel.proxy.endpoint.wire import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    LATEST_LEGACY_VERSION,
    LEGACY_VERSIONS,
    META_SERVER_INFO,
    METHOD_NOT_FOUND,
    MODERN_VERSION,
    SUPPORTED_MODERN_VERSIONS,
    RpcError,
    RpcRequest,
    check_request_headers,
    check_version,
    check_version_header,
    error_response,
    fail,
    foreign_origin,
    has_modern_meta,
    modern_meta,
    parse_body,
    parse_request,
    progress_token,
    readable_id,
    request_headers,
    result_response,
)

__all__ = ["EndpointConfig", "ScriptedEndpoint", "build_app"]

logger = logging.getLogger(__name__)

MODERN_METHODS = frozenset({"server/discover", "tools/list", "tools/call"})
# ttlMs 0 (immediately stale): a scripted endpoint wants every request to reach it rather than a client cache.
CACHE_HINTS = {"ttlMs": 0, "cacheScope": "public"}
MAX_LEGACY_SESSIONS = 1024
# What a 2025-11-25-era SDK server answers a non-initialize request without a session: 400 and a non-modern error.
NO_SESSION_MESSAGE = "Bad Request: No valid session ID provided"


@dataclass(frozen=True)
class _LegacySession:
    protocol_version: str
    client_capabilities: dict[str, Any]


class ScriptedEndpoint:
    """The ASGI app `build_app` returns; legacy sessions live on the instance."""

    def __init__(self, config: EndpointConfig) -> None:
        self.config = config
        self._tools: dict[str, ToolSpec] = {tool.name: tool for tool in config.tools}
        self._sessions: dict[str, _LegacySession] = {}
        self._answers = Answers()  # the 2025 server-initiated requests awaiting the client's answer
        # the 2025 sessions' GET streams (proxy/endpoint/listen.py), one per session
        self._listeners = Listeners(self._answers, config.listen, config.answer_timeout_s, config.params)
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop serving it (close_streams is called off it)
        # told after each tools/list answer (from the serving thread): an interactive agent's task waits for it
        self.listing_watchers: list[Callable[[], None]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        self._loop = asyncio.get_running_loop()
        headers = request_headers(scope["headers"])
        if scope["path"] != "/mcp":
            await send_bytes(send, 404, b"Not Found", [(b"content-type", b"text/plain; charset=utf-8")])
        elif (origin := foreign_origin(headers)) is not None:
            error = {"code": INVALID_REQUEST, "message": f"Forbidden: Origin {origin!r} is not allowed"}
            await send_json(send, 403, error_response(None, error))
        elif scope["method"] == "POST":
            await self._post(headers, receive, send)
        elif scope["method"] == "GET" and (session := self._sessions.get(headers.get("mcp-session-id", ""))):
            await self._listeners.get(headers, session.protocol_version, session.client_capabilities, receive, send)
        elif scope["method"] == "DELETE" and self._sessions.pop(headers.get("mcp-session-id", ""), None):
            self._listeners.end(headers.get("mcp-session-id", ""))
            await send_bytes(send, 200, b"")
        else:
            await send_bytes(send, 405, b"", [(b"allow", b"POST")])

    def close_streams(self) -> None:
        """End every open GET stream (from any thread): a stopping endpoint lets its streams finish, not be cut."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._listeners.close_all)

    async def _post(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
        message: Any = None
        try:
            body = await read_body(receive, headers)
            if body is None:
                return
            message = parse_body(body)
            if is_response(message):
                await self._client_answer(headers, message, send)
                return
            request = parse_request(message, headers)
        except RpcError as exc:
            await send_json(send, exc.status, error_response(readable_id(message), exc.error_object()))
            return
        if request is None:
            await send_bytes(send, 202, b"")
            self._notified(headers, message)
            return
        try:
            await self._dispatch(request, receive, send)
        except RpcError as exc:
            await send_json(send, exc.status, error_response(request.id, exc.error_object()))

    async def _client_answer(self, headers: dict[str, str], message: dict[str, Any], send: Send) -> None:
        """A client's answer to a request the endpoint sent (2025 eras): 202 when a request was waiting for it."""
        if self._answers.deliver(headers.get("mcp-session-id", ""), message):
            await send_bytes(send, 202, b"")
            return
        error = {"code": INVALID_REQUEST, "message": "Invalid Request: no request of this id awaits an answer"}
        await send_json(send, 400, error_response(None, error))

    def _notified(self, headers: dict[str, str], message: Any) -> None:
        """A notification a 2025 session's client sent: what the scenario sends for it on the session's GET stream."""
        session = self._sessions.get(headers.get("mcp-session-id", ""))
        method = message.get("method") if isinstance(message, dict) else None
        if session is not None and isinstance(method, str):
            self._listeners.notify(headers.get("mcp-session-id", ""), method, session.client_capabilities)

    async def _dispatch(self, request: RpcRequest, receive: Receive, send: Send) -> None:
        session_id = request.headers.get("mcp-session-id")
        session = self._sessions.get(session_id) if session_id is not None else None
        if self.config.era == MODERN_VERSION and request.method == "initialize":
            fail(INVALID_REQUEST, f"Unsupported: this endpoint speaks only {MODERN_VERSION} (--era)", status=400)
        if self.config.legacy_only or self.config.era in LEGACY_VERSIONS:
            if request.method == "initialize":
                await self._initialize(request, send)
            elif session is None:
                fail(INVALID_REQUEST, NO_SESSION_MESSAGE)
            else:
                await self._legacy(request, session, receive, send)
        elif has_modern_meta(request.params):
            await self._modern(request, receive, send)
        elif request.method == "initialize":
            await self._initialize(request, send)
        elif session is not None:
            await self._legacy(request, session, receive, send)
        elif session_id is not None:
            # 2025-11-25: a session the server no longer knows answers 404, which tells the client to re-initialize.
            fail(INVALID_REQUEST, "Session not found", status=404)
        else:
            await self._modern(request, receive, send)

    async def _modern(self, request: RpcRequest, receive: Receive, send: Send) -> None:
        version, _, capabilities = modern_meta(request.params)
        check_version_header(request.headers, version)
        version = check_version(version)
        assert isinstance(request.params, dict)
        check_request_headers(request.headers, request.method, request.params)
        if request.method not in MODERN_METHODS:
            fail(METHOD_NOT_FOUND, f"Method not found: {request.method}", status=404)
        if request.method == "tools/call":
            await self._tool_call(request, request.params, "modern", version, capabilities, receive, send)
            return
        result: dict[str, Any]
        if request.method == "server/discover":
            result = {"supportedVersions": list(SUPPORTED_MODERN_VERSIONS), "capabilities": {"tools": {}}}
            if self.config.instructions is not None:
                result["instructions"] = self.config.instructions
        else:
            result = {"tools": self._listing()}
        await send_json(send, 200, result_response(request.id, self._modern_result({**result, **CACHE_HINTS})))
        if request.method == "tools/list":
            self._listed()

    async def _initialize(self, request: RpcRequest, send: Send) -> None:
        params = request.params if isinstance(request.params, dict) else {}
        requested = params.get("protocolVersion")
        version = requested if isinstance(requested, str) and requested in LEGACY_VERSIONS else LATEST_LEGACY_VERSION
        if self.config.era in LEGACY_VERSIONS:
            version = self.config.era  # a forced era: the client must speak it or end the session
        capabilities = params.get("capabilities")
        session_id = uuid.uuid4().hex
        if len(self._sessions) >= MAX_LEGACY_SESSIONS:
            oldest = next(iter(self._sessions))
            del self._sessions[oldest]
            self._listeners.end(oldest)
        self._sessions[session_id] = _LegacySession(version, capabilities if isinstance(capabilities, dict) else {})
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": self._server_info(),
        }
        if self.config.instructions is not None:
            result["instructions"] = self.config.instructions
        await send_json(send, 200, result_response(request.id, result), [(b"mcp-session-id", session_id.encode())])

    async def _legacy(self, request: RpcRequest, session: _LegacySession, receive: Receive, send: Send) -> None:
        params = {} if request.params is None else request.params
        if not isinstance(params, dict):
            fail(INVALID_PARAMS, "Invalid params: params must be an object", status=200)
        if request.method == "tools/call":
            capabilities = meant_in(session.protocol_version, session.client_capabilities)
            await self._tool_call(request, params, "legacy", session.protocol_version, capabilities, receive, send)
            return
        result: dict[str, Any]
        if request.method == "ping":
            result = {}
        elif request.method == "tools/list":
            result = {"tools": self._listing()}
        else:
            fail(METHOD_NOT_FOUND, f"Method not found: {request.method}", status=200)
        await send_json(send, 200, result_response(request.id, result))
        if request.method == "tools/list":
            self._listed()

    def _listed(self) -> None:
        for watcher in list(self.listing_watchers):
            watcher()

    async def _tool_call(
        self,
        request: RpcRequest,
        params: dict[str, Any],
        era: Literal["modern", "legacy"],
        version: str,
        capabilities: dict[str, Any],
        receive: Receive,
        send: Send,
    ) -> None:
        # Legacy servers answered JSON-RPC errors under 200; only transport-level failures used 4xx.
        malformed = 400 if era == "modern" else 200
        name = params.get("name")
        arguments = params.get("arguments")
        input_responses = params.get("inputResponses")
        request_state = params.get("requestState")
        if not isinstance(name, str):
            fail(INVALID_PARAMS, "Invalid params: params.name must be a string", status=malformed)
        if arguments is not None and not isinstance(arguments, dict):
            fail(INVALID_PARAMS, "Invalid params: params.arguments must be an object", status=malformed)
        if input_responses is not None and not isinstance(input_responses, dict):
            fail(INVALID_PARAMS, "Invalid params: params.inputResponses must be an object", status=malformed)
        if request_state is not None and not isinstance(request_state, str):
            fail(INVALID_PARAMS, "Invalid params: params.requestState must be a string", status=malformed)
        tool = self._tools.get(name)
        if tool is None:
            # The spec asks only for -32602; HTTP 200 keeps a dual-era client from reading a 400 as "legacy server".
            fail(INVALID_PARAMS, f"Unknown tool: {name}", status=200)
        call = ToolCall(
            name=name,
            arguments=arguments or {},
            input_responses=input_responses,
            request_state=request_state,
            protocol_version=version,
            era=era,
            client_capabilities=capabilities,
            progress_token=progress_token(params),
            request_id=request.id,
            headers=request.headers,
            nonce=self.config.nonce,
            params=self.config.params,
        )
        await until_disconnected(receive, self._answer_tool(tool, call, send))

    async def _answer_tool(self, tool: ToolSpec, call: ToolCall, send: Send) -> None:
        reply = await _run_handler(tool, call)
        if call.era == "legacy" and asks_for_input(reply):
            # a 2025 client cannot read input_required: the input requests go out as requests on the call's stream
            channel = Channel(send, self._answers, call.headers.get("mcp-session-id", ""), self.config.answer_timeout_s)
            await channel.run(call, reply, lambda retry: _run_handler(tool, retry), self._final)
            return
        message = self._final(call, reply)
        if reply.transport == "sse":
            token = call.progress_token if reply.progress else None
            await send_sse(
                send,
                status=reply.http_status,
                hold_ms=reply.hold_ms,
                keepalive_ms=reply.keepalive_ms,
                progress_token=token,
                final=message,
            )
        else:
            await asyncio.sleep(max(reply.hold_ms, 0) / 1000)
            await send_json(send, reply.http_status, message)

    def _final(self, call: ToolCall, reply: ToolReply) -> dict[str, Any]:
        """The call's JSON-RPC answer: the reply's error, or its result dressed for the call's era."""
        if reply.error is not None:
            return error_response(call.request_id, dict(reply.error))
        result = dict(reply.result) if reply.result is not None else {"content": []}
        return result_response(
            call.request_id, self._modern_result(result) if call.era == "modern" else self._legacy_result(result)
        )

    def _modern_result(self, result: dict[str, Any]) -> dict[str, Any]:
        result.setdefault("resultType", "complete")
        extra = result.get("_meta")
        result["_meta"] = {META_SERVER_INFO: self._server_info(), **(extra if isinstance(extra, dict) else {})}
        return result

    def _legacy_result(self, result: dict[str, Any]) -> dict[str, Any]:
        # A tool that returns _meta gets the same serverInfo in both eras, so the two results differ only by resultType.
        extra = result.get("_meta")
        if isinstance(extra, dict):
            result["_meta"] = {META_SERVER_INFO: self._server_info(), **extra}
        return result

    def _server_info(self) -> dict[str, str]:
        return {"name": self.config.server_name, "version": self.config.server_version}

    def _listing(self) -> list[dict[str, Any]]:
        return [tool.listing() for tool in self.config.tools]


def build_app(config: EndpointConfig) -> ScriptedEndpoint:
    """The scripted endpoint for `config`, serving `/mcp` with `config.tools`."""
    return ScriptedEndpoint(config)


async def _run_handler(tool: ToolSpec, call: ToolCall) -> ToolReply:
    """The handler's reply; a handler that raises or returns the wrong type becomes a -32603 error reply."""
    try:
        reply = tool.handler(call)
        if inspect.isawaitable(reply):
            reply = await reply
        if not isinstance(reply, ToolReply):
            raise TypeError(f"handler returned {type(reply).__name__}, not ToolReply")
        return reply
    except Exception as exc:
        logger.warning("tool %r handler failed", tool.name, exc_info=True)
        return ToolReply(error={"code": INTERNAL_ERROR, "message": f"Internal error: tool handler raised {exc!r}"})
