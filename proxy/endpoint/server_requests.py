"""The 2025 eras' channel: a tool's input requests sent as server-initiated JSON-RPC requests on its call's stream.

A scenario's tool speaks MRTR in every era: it answers `input_required` with `inputRequests` and a `requestState`.
A 2026-07-28 client gets that result as it is. A 2025-06-18 or 2025-11-25 client cannot read it, so for a call in
a 2025 session the endpoint does what a 2025 server does instead: it answers the `tools/call` with an SSE stream,
sends each input request on it as a request of its own (`elicitation/create`, `sampling/createMessage`,
`roots/list`), waits for the client to POST each answer, and calls the tool again with the answers as its
`inputResponses` and its own `requestState`, exactly as the client's retry would have, until the tool completes.
The tool's texts (nonces, markers, the decoy directive) are therefore the same in both eras.

Every wait is bounded: an unanswered request ends the call with a tool error that says which request went
unanswered, and a tool that keeps asking stops after MAX_ROUNDS.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from starlette.types import Send

from backchannel.proxy.endpoint.io import SSE_HEADERS
from backchannel.proxy.endpoint.tools import ToolCall, ToolReply
from backchannel.proxy.endpoint.wire import sse_event

MAX_ROUNDS = 8
MAX_WAITING = 1024  # requests awaiting an answer across all sessions: a client that never answers cannot grow this
URL_MODE_VERSION = "2025-11-25"  # the first era with URL-mode elicitation (and its elicitationId)
ID_PREFIX = "bckch-ask-"


def asks_for_input(reply: ToolReply) -> bool:
    """The tool answered `input_required` with at least one input request."""
    result = reply.result if reply.error is None else None
    requests = result.get("inputRequests") if isinstance(result, dict) else None
    return isinstance(result, dict) and result.get("resultType") == "input_required" and bool(requests)


def server_request(request_id: str, request: dict[str, Any], version: str) -> dict[str, Any]:
    """One input request as the 2025 server-initiated request a client of `version` reads.

    A URL-mode elicitation gains the `elicitationId` 2025-11-25 requires (the 2026-07-28 form has none)."""
    params = request.get("params")
    params = dict(params) if isinstance(params, dict) else {}
    if request.get("method") == "elicitation/create" and params.get("mode") == "url" and version >= URL_MODE_VERSION:
        params.setdefault("elicitationId", f"bckch-elicitation-{secrets.token_hex(6)}")
    return {"jsonrpc": "2.0", "id": request_id, "method": request.get("method"), "params": params}


def meant_in(version: str, capabilities: dict[str, Any]) -> dict[str, Any]:
    """What a 2025 session's declared capabilities mean in the version it agreed: before 2025-11-25 elicitation has
    no modes, so any elicitation declaration (a newer client's `form`/`url` included) means form only, and a tool
    never sends a URL-mode request into a session whose version has none."""
    elicitation = capabilities.get("elicitation")
    if version >= URL_MODE_VERSION or not isinstance(elicitation, dict) or not elicitation:
        return capabilities
    return {**capabilities, "elicitation": {}}


@dataclass
class Answers:
    """The server-initiated requests awaiting the client's answer, by session and JSON-RPC id (as JSON text).

    Lives in the endpoint's one event loop, so it needs no lock."""

    waiting: dict[tuple[str, str], asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    minted: int = 0  # ids are unique across the endpoint, so concurrent calls of one session never share one

    def new_id(self) -> str:
        self.minted += 1
        return f"{ID_PREFIX}{self.minted}"

    def expect(self, session: str, request_id: str) -> asyncio.Future[dict[str, Any]]:
        if len(self.waiting) >= MAX_WAITING:
            oldest = next(iter(self.waiting))
            self.waiting.pop(oldest).cancel()
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[(session, json.dumps(request_id))] = future
        return future

    def deliver(self, session: str, message: dict[str, Any]) -> bool:
        """Hand a client's response to the request waiting for it; False when none is (a stray or late answer)."""
        future = self.waiting.pop((session, json.dumps(message.get("id"))), None)
        if future is None or future.done():
            return False
        future.set_result(message)
        return True

    def forget(self, session: str, request_id: str) -> None:
        future = self.waiting.pop((session, json.dumps(request_id)), None)
        if future is not None:
            future.cancel()


def is_response(message: Any) -> bool:
    """A JSON-RPC response or error object (what a client POSTs to answer a server-initiated request)."""
    return (
        isinstance(message, dict)
        and "method" not in message
        and "id" in message
        and ("result" in message or "error" in message)
    )


def answer_of(response: dict[str, Any]) -> dict[str, Any]:
    """The client's answer as a tool's `inputResponses` entry: the result, or `{"error": ...}` for an error."""
    result = response.get("result")
    if isinstance(result, dict):
        return result
    error = response.get("error")
    return {"error": error if isinstance(error, dict) else {"message": "not a JSON-RPC error object"}}


RunTool = Callable[[ToolCall], Awaitable[ToolReply]]
Finish = Callable[[ToolCall, ToolReply], dict[str, Any]]


@dataclass
class Channel:
    """One call's stream in a 2025 session: the requests go out on it, then the call's final answer."""

    send: Send
    answers: Answers
    session: str
    timeout_s: float

    async def run(self, call: ToolCall, reply: ToolReply, run_tool: RunTool, finish: Finish) -> None:
        await self.send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
        rounds = 0
        while asks_for_input(reply) and rounds < MAX_ROUNDS:
            rounds += 1
            asked = reply.result or {}
            answers = await self._ask_round(asked["inputRequests"], call.protocol_version)
            if isinstance(answers, str):
                reply = ToolReply(result={"content": [{"type": "text", "text": answers}], "isError": True})
                break
            state = asked.get("requestState")
            call = replace(call, input_responses=answers, request_state=state if isinstance(state, str) else None)
            reply = await run_tool(call)
            for note in reply.notifications:  # e.g. notifications/elicitation/complete, before the next round
                event = sse_event({"jsonrpc": "2.0", "method": note.get("method"), "params": note.get("params", {})})
                await self.send({"type": "http.response.body", "body": event, "more_body": True})
        if asks_for_input(reply):
            text = f"the tool still asked for input after {MAX_ROUNDS} rounds; the endpoint stopped asking"
            reply = ToolReply(result={"content": [{"type": "text", "text": text}], "isError": True})
        await self.send({"type": "http.response.body", "body": sse_event(finish(call, reply)), "more_body": False})

    async def _ask_round(self, requests: Any, version: str) -> dict[str, Any] | str:
        """Send every request of the round, then wait for all of them; the answers by key, or why there are none."""
        pending: dict[str, tuple[str, str, asyncio.Future[dict[str, Any]]]] = {}
        for key, request in requests.items() if isinstance(requests, dict) else ():
            if not isinstance(request, dict) or not isinstance(request.get("method"), str):
                continue
            request_id = self.answers.new_id()
            future = self.answers.expect(self.session, request_id)
            pending[str(key)] = (request_id, str(request["method"]), future)
            body = sse_event(server_request(request_id, request, version))
            await self.send({"type": "http.response.body", "body": body, "more_body": True})
        try:
            done, _ = await asyncio.wait([f for _, _, f in pending.values()], timeout=self.timeout_s)
        finally:
            for request_id, _, future in pending.values():
                if not future.done():
                    self.answers.forget(self.session, request_id)
        missing = [f"{method} {request_id}" for request_id, method, future in pending.values() if future not in done]
        if missing:
            return f"the client did not answer {', '.join(missing)} within {self.timeout_s:g} s"
        return {key: answer_of(future.result()) for key, (_, _, future) in pending.items()}
