"""What a `conformance` recording shows, shared by its checks: each run's client requests (the session facts), the
tools the client was listed, the headers each request carried, and whether a stdio bridge made them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from backchannel.oracle.bridge import bridged_by
from backchannel.oracle.session.facts import Request, session_of
from backchannel.recordings.json_form import member
from backchannel.recordings.model import Recording

from . import SCENARIO

SPEC = "https://modelcontextprotocol.io/specification/2026-07-28"
HTTP_SPEC = f"{SPEC}/basic/transports/streamable-http"
NOT_EXERCISED = "not-exercised"


def runs_requests(rec: Recording) -> Iterator[list[Request]]:
    """Each run of this scenario: the requests its client sent, in order, each with the answer it got."""
    for run in rec.runs:
        if run.scenario == SCENARIO:
            session = session_of(rec, run.id)
            if session is not None:
                yield session.client


def result_of(request: Request) -> Mapping[str, Any] | None:
    """The result the client got for `request` (None: an error, or no answer)."""
    result = member(request.got, "result")
    return result if isinstance(result, dict) else None


def listed(requests: list[Request], before: int) -> dict[str, Any]:
    """The tools (name -> inputSchema) of the last tools/list answer the client got before message `before`."""
    tools: dict[str, Any] = {}
    for request in requests:
        if request.message.method == "tools/list" and request.message.seq < before:
            result = result_of(request)
            found = result.get("tools") if result is not None else None
            if isinstance(found, list):
                tools = {t["name"]: t.get("inputSchema") for t in found if isinstance(t, dict) and "name" in t}
    return tools


def tool_calls(requests: list[Request]) -> Iterator[tuple[Request, str, Any]]:
    """Each tools/call the client sent with the tool's name and the schema it was listed with (None: unlisted)."""
    for request in requests:
        name = request.params.get("name")
        if request.message.method == "tools/call" and isinstance(name, str):
            yield request, name, listed(requests, request.message.seq).get(name)


def sent_headers(request: Request) -> dict[str, str]:
    """The request's HTTP headers as it sent them (lower-case names, first value of each)."""
    if request.exchange is None:
        return {}
    found: dict[str, str] = {}
    for key, value in request.exchange.request_headers:
        found.setdefault(key.lower(), value)
    return found


def over_bridge(request: Request) -> bool:
    """A stdio client's request, carried by backchannel's bridge: its headers are not the client's (and a stdio
    client MAY ignore x-mcp-header annotations entirely)."""
    return request.exchange is not None and bridged_by(request.exchange) is not None
