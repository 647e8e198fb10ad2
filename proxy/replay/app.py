"""The replay server: an ASGI app answering each request with the recorded reply it matches, served by uvicorn
on 127.0.0.1 in a background thread (as the scripted endpoint is).

`/r/<run id>/...` serves that run; every other path serves the default run. Nothing is added that the recording
does not hold: uvicorn's own `date` and `server` headers are off, and only the framing (content length or
chunking) is recomputed, because the id swap may change a body's length.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from backchannel.proxy.endpoint.serving import STOP_TIMEOUT_S, LoopbackServer, serve_loopback
from backchannel.proxy.replay.live_id import sse_with_live_id, with_live_id
from backchannel.proxy.replay.matchers import RequestView
from backchannel.proxy.replay.script import BODILESS, Ledger, Miss, Served

MAX_REQUEST_BYTES = 16 * 1024 * 1024
# one reply's recorded waits (its head, then each SSE item), after --speed, at most: each wait is already capped
# (script.MAX_WAIT_S), but a stream of many items would still hold a client for as long as they add up
MAX_REPLY_WAIT_S = 60.0
NO_MATCH = -32600  # invalid request: the replay has nothing recorded for it
AnomalySink = Callable[[str, str, str], None]  # (run id, kind, detail)

Scope = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[dict[str, Any]], Any]


@dataclass
class ReplayApp:
    ledgers: Mapping[str, Ledger]
    default_run: str
    speed: float = 1.0
    on_anomaly: AnomalySink | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        run_id = self._run_of(str(scope.get("path", "")))
        body = await _read_body(receive)
        live = RequestView.parse(str(scope.get("method", "POST")), body)
        outcome = self.ledgers[run_id].take(live)
        if isinstance(outcome, Miss):
            await self._no_match(run_id, live, outcome, send)
            return
        self._report(run_id, live, outcome)
        if outcome.entry.reply.status is None:
            why = outcome.entry.reply.error or "no servable status"
            self._anomaly(
                run_id, "replay-no-response", f"recorded exchange #{outcome.entry.seq} had no response: {why}"
            )
        await self._serve(run_id, live, outcome, send)

    def _run_of(self, path: str) -> str:
        parts = path.split("/")
        if len(parts) > 2 and parts[1] == "r" and parts[2] in self.ledgers:
            return parts[2]
        return self.default_run

    def _anomaly(self, run_id: str, kind: str, detail: str) -> None:
        if self.on_anomaly is not None:
            self.on_anomaly(run_id, kind, detail)

    def _report(self, run_id: str, live: RequestView, served: Served) -> None:
        if served.reported:
            fields = ", ".join(served.reported)
            answered = f"{live.describe()} answered with recorded exchange #{served.entry.seq}"
            detail = f"{answered}; inputResponses differ: {fields}"
            self._anomaly(run_id, "replay-input-responses-differ", detail)

    async def _no_match(self, run_id: str, live: RequestView, miss: Miss, send: Send) -> None:
        message = miss.message(live)
        self._anomaly(run_id, "replay-no-match", message)
        ids = live.rpc_ids
        rpc_id = ids[0] if len(ids) == 1 else None
        data = {"closestExchange": miss.closest.seq if miss.closest else None, "differingFields": list(miss.differing)}
        error = {"jsonrpc": "2.0", "id": rpc_id, "error": {"code": NO_MATCH, "message": message, "data": data}}
        payload = json.dumps(error).encode()
        status = 200 if rpc_id is not None else 400  # a notification cannot carry an answer; say so in HTTP
        await _head(send, status, (("content-type", "application/json"),), len(payload))
        await send({"type": "http.response.body", "body": payload})

    async def _serve(self, run_id: str, live: RequestView, served: Served, send: Send) -> None:
        reply = served.entry.reply
        recorded_ids, live_ids = served.entry.request.rpc_ids, live.rpc_ids
        recorded_id = recorded_ids[0] if len(recorded_ids) == 1 else None
        live_id = live_ids[0] if len(live_ids) == 1 else None
        budget = _WaitBudget(MAX_REPLY_WAIT_S)
        await self._wait(reply.head_delay, budget)
        if reply.status is None:  # no response was recorded: 502 and no body is the nearest HTTP can say
            await _head(send, 502, (), 0)
            await send({"type": "http.response.body", "body": b""})
            return
        if reply.items is None:
            body = b"" if reply.status in BODILESS else with_live_id(reply.body, recorded_id, live_id)
            await _head(send, reply.status, reply.headers, None if reply.status in BODILESS else len(body))
            await send({"type": "http.response.body", "body": body})
            return
        await _head(send, reply.status, reply.headers, None)
        for item in reply.items:
            await self._wait(item.delay, budget)
            chunk = sse_with_live_id(item.raw, recorded_id, live_id)
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
        if budget.cut:
            detail = (
                f"recorded exchange #{served.entry.seq}: its waits add up to {budget.asked:.1f} s at speed"
                f" {self.speed:g}; replayed within {budget.limit:g} s, the rest of its items at once"
            )
            self._anomaly(run_id, "replay-waits-cut", detail)

    async def _wait(self, seconds: float, budget: _WaitBudget) -> None:
        if self.speed > 0 and seconds > 0:
            await asyncio.sleep(budget.take(seconds / self.speed))


@dataclass
class _WaitBudget:
    """What is left of one reply's waiting time; a wait past it is cut short (and the cut is reported once)."""

    limit: float
    asked: float = 0.0
    cut: bool = False

    def take(self, seconds: float) -> float:
        granted = max(0.0, min(seconds, self.limit - self.asked))
        self.asked += seconds
        self.cut = self.cut or granted < seconds
        return granted


async def _read_body(receive: Receive) -> bytes:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size <= MAX_REQUEST_BYTES:  # past it the request is matched on what fits, and so differs
            chunks.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks)


async def _head(send: Send, status: int, headers: tuple[tuple[str, str], ...], length: int | None) -> None:
    raw = [(k.lower().encode("latin-1", "replace"), v.encode("latin-1", "replace")) for k, v in headers]
    if length is not None:
        raw.append((b"content-length", str(length).encode()))
    await send({"type": "http.response.start", "status": status, "headers": raw})


class RunningReplay:
    """A replay serving in the background; stop it with `stop()` or by leaving the `with` block."""

    def __init__(self, app: ReplayApp, server: LoopbackServer) -> None:
        self.app = app
        self._server = server
        self.port = server.port
        self.base_url = f"http://127.0.0.1:{server.port}"
        self.url = f"{self.base_url}/mcp"

    def run_url(self, run_id: str) -> str:
        return f"{self.base_url}/r/{run_id}/mcp"

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        self._server.stop(timeout)

    def __enter__(self) -> RunningReplay:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def start_replay(app: ReplayApp, host: str = "127.0.0.1", port: int = 0) -> RunningReplay:
    """Serve `app` on loopback (port 0 picks a free one) and return once it accepts connections.

    Raises:
        ValueError: `host` is not an IPv4 loopback address.
        OSError: the port is taken.
        TimeoutError: it did not start within STARTUP_TIMEOUT_S.
        RuntimeError: its thread ended during startup.
    """
    # no Date header: a replayed answer carries the recording's headers, not today's
    return RunningReplay(app, serve_loopback(app, host, port, what="replay", date_header=False))
