"""What a `conformance` recording shows, shared by its checks: each run's client requests (the session facts), the
tools the client was listed, the headers each request carried, and whether a stdio bridge made them."""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Mapping
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


class Listings:
    """The tools/list answers a run's client got, read once: which tools were listed at any point of the run."""

    def __init__(self, requests: list[Request]) -> None:
        self._seqs: list[int] = []
        self._tools: list[dict[str, Any]] = []
        lists = (r for r in requests if r.message.method == "tools/list")
        for request in sorted(lists, key=lambda r: r.message.seq):
            result = result_of(request)
            found = result.get("tools") if result is not None else None
            if isinstance(found, list):
                self._seqs.append(request.message.seq)
                self._tools.append(
                    {
                        t["name"]: t.get("inputSchema")
                        for t in found
                        if isinstance(t, dict) and isinstance(t.get("name"), str)
                    }
                )

    def before(self, seq: int) -> dict[str, Any]:
        """The tools (name -> inputSchema) of the last tools/list answer the client got before message `seq`."""
        index = bisect_left(self._seqs, seq)
        return self._tools[index - 1] if index else {}


def listed(requests: list[Request], before: int) -> dict[str, Any]:
    """The tools (name -> inputSchema) of the last tools/list answer the client got before message `before`."""
    return Listings(requests).before(before)


def tool_calls(requests: list[Request]) -> Iterator[tuple[Request, str, Any]]:
    """Each tools/call the client sent with the tool's name and the schema it was listed with (None: unlisted)."""
    listings = Listings(requests)  # once per run: a call per listing read would be quadratic in a long recording
    for request in requests:
        name = request.params.get("name")
        if request.message.method == "tools/call" and isinstance(name, str):
            yield request, name, listings.before(request.message.seq).get(name)


def alike_key(request: Request) -> tuple[str | None, str]:
    """What a retry shares with its request: the method and the tool name or resource URI (as JSON text: from a
    recording it may be any JSON)."""
    name = request.params.get("name", request.params.get("uri"))
    return request.message.method, json.dumps(name, sort_keys=True)


def by_alike(requests: list[Request], keep: Callable[[Request], bool] = lambda _r: True) -> dict[Any, list[int]]:
    """The indices (in order) of the requests `keep` takes, by `alike_key`: a later alike request is found by bisection,
    never by a scan of the rest of the run."""
    found: dict[Any, list[int]] = {}
    for index, request in enumerate(requests):
        if keep(request):
            found.setdefault(alike_key(request), []).append(index)
    return found


def next_alike(indices: dict[Any, list[int]], requests: list[Request], index: int) -> int | None:
    """The index of the first request after `index` in `indices` that is alike `requests[index]`; None: none."""
    candidates = indices.get(alike_key(requests[index]), [])
    at = bisect_right(candidates, index)
    return candidates[at] if at < len(candidates) else None


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
