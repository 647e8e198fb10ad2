"""A 2025 session's GET stream, driven through the ASGI app in process: one per session, carrying what the
scenario's listen hook sends when it opens and on the client's notifications, the answers POSTed back paired like
those on a call's stream, and ended by DELETE, by the client leaving, or by its bound."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import pytest

from backchannel.proxy.endpoint.app import build_app
from backchannel.proxy.endpoint.listen import Listener
from backchannel.proxy.endpoint.tools import EndpointConfig, ListenEvent

ROOTS = {"method": "roots/list", "params": {}}
SSE = "application/json, text/event-stream"
SEEN: list[ListenEvent] = []


def hook(event: ListenEvent) -> Sequence[Mapping[str, Any]]:
    SEEN.append(event)
    return [ROOTS] if event.trigger in ("opened", "notifications/roots/list_changed") else []


class Exchange:
    """One request to the app: what it sent back, and a way to leave before it is done."""

    def __init__(self) -> None:
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.chunks: list[bytes] = []
        self.done = False
        self.changed = asyncio.Event()
        self.leave = asyncio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = {k.decode(): v.decode() for k, v in message.get("headers", [])}
        else:
            self.chunks.append(message.get("body", b""))
            self.done = not message.get("more_body", False)
        self.changed.set()

    async def wait(self, ready: Callable[[], bool]) -> None:
        async def until() -> None:
            while not ready():
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(until(), 5)

    def events(self) -> list[dict[str, Any]]:
        text = b"".join(self.chunks).decode()
        return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def start(app: Any, method: str, headers: dict[str, str], body: Any = None) -> tuple[Exchange, asyncio.Task[None]]:
    exchange = Exchange()
    raw = json.dumps(body).encode() if body is not None else b""
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}
        await exchange.leave.wait()
        return {"type": "http.disconnect"}

    scope = {
        "type": "http",
        "method": method,
        "path": "/mcp",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }
    return exchange, asyncio.create_task(app(scope, receive, exchange.send))


async def request(app: Any, method: str, headers: dict[str, str], body: Any = None) -> Exchange:
    exchange, task = start(app, method, headers, body)
    await asyncio.wait_for(task, 5)
    return exchange


def rpc(method: str, params: dict[str, Any], request_id: object = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


async def session(app: Any, version: str = "2025-11-25", capabilities: dict[str, Any] | None = None) -> dict[str, str]:
    params = {"protocolVersion": version, "capabilities": capabilities or {"roots": {"listChanged": True}}}
    headers = {"content-type": "application/json", "accept": SSE}
    answered = await request(app, "POST", headers, rpc("initialize", params))
    return {"mcp-session-id": answered.headers["mcp-session-id"], "accept": SSE, "content-type": "application/json"}


def run(test: Callable[[], Awaitable[None]]) -> None:
    SEEN.clear()
    asyncio.run(test())


def test_a_get_without_a_session_or_in_the_2026_era_is_refused_with_405() -> None:
    async def test() -> None:
        app = build_app(EndpointConfig(tools=(), listen=hook))
        assert (await request(app, "GET", {"accept": SSE})).status == 405
        assert (await request(app, "GET", {"accept": SSE, "mcp-session-id": "no-such-session"})).status == 405
        modern = build_app(EndpointConfig(tools=(), era="2026-07-28", listen=hook))
        assert (await request(modern, "GET", {"accept": SSE})).status == 405
        assert SEEN == []

    run(test)


def test_a_get_that_does_not_accept_sse_is_refused_with_406() -> None:
    async def test() -> None:
        app = build_app(EndpointConfig(tools=(), listen=hook))
        headers = {**(await session(app)), "accept": "application/json"}
        assert (await request(app, "GET", headers)).status == 406

    run(test)


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18"])
def test_the_stream_carries_the_hooks_request_when_it_opens_and_its_answer_pairs(version: str) -> None:
    async def test() -> None:
        app = build_app(EndpointConfig(tools=(), listen=hook))
        headers = await session(app, version)
        stream, task = start(app, "GET", headers)
        await stream.wait(lambda: bool(stream.events()))
        assert (stream.status, stream.headers["content-type"]) == (200, "text/event-stream")
        [asked] = stream.events()
        assert (asked["method"], asked["params"]) == ("roots/list", {})
        assert [(e.trigger, e.protocol_version, dict(e.client_capabilities)) for e in SEEN] == [
            ("opened", version, {"roots": {"listChanged": True}})
        ]
        answer = {"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": []}}
        assert (await request(app, "POST", headers, answer)).status == 202
        assert (await request(app, "POST", headers, answer)).status == 400  # answered once only
        stream.leave.set()
        await asyncio.wait_for(task, 5)

    run(test)


def test_a_notification_the_client_posts_sends_what_the_hook_asks_on_the_open_stream() -> None:
    async def test() -> None:
        app = build_app(EndpointConfig(tools=(), listen=hook))
        headers = await session(app)
        stream, task = start(app, "GET", headers)
        await stream.wait(lambda: len(stream.events()) == 1)
        note = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
        assert (await request(app, "POST", headers, note)).status == 202
        await stream.wait(lambda: len(stream.events()) == 2)
        first, second = stream.events()
        assert second["method"] == "roots/list" and second["id"] != first["id"]
        assert [e.trigger for e in SEEN] == ["opened", "notifications/roots/list_changed"]
        stream.leave.set()
        await asyncio.wait_for(task, 5)

    run(test)


def test_one_stream_per_session_a_second_get_is_refused_with_409_until_the_first_ends() -> None:
    async def test() -> None:
        app = build_app(EndpointConfig(tools=(), listen=hook))
        headers = await session(app)
        stream, task = start(app, "GET", headers)
        await stream.wait(lambda: stream.status is not None)
        assert (await request(app, "GET", headers)).status == 409
        other = await session(app)  # another session has a stream of its own
        second, second_task = start(app, "GET", other)
        await second.wait(lambda: second.status == 200)
        stream.leave.set()
        await asyncio.wait_for(task, 5)
        again, again_task = start(app, "GET", headers)
        await again.wait(lambda: again.status == 200)
        for left in (second, again):
            left.leave.set()
        await asyncio.wait_for(asyncio.gather(second_task, again_task), 5)

    run(test)


def test_ending_the_session_with_delete_ends_its_stream() -> None:
    async def test() -> None:
        app = build_app(EndpointConfig(tools=(), listen=hook))
        headers = await session(app)
        stream, task = start(app, "GET", headers)
        await stream.wait(lambda: stream.status == 200)
        assert (await request(app, "DELETE", headers)).status == 200
        await asyncio.wait_for(task, 5)
        assert stream.done
        assert (await request(app, "GET", headers)).status == 405  # the session is gone

    run(test)


def test_without_a_hook_the_stream_carries_no_requests() -> None:
    async def test() -> None:
        app = build_app(EndpointConfig(tools=()))
        headers = await session(app)
        stream, task = start(app, "GET", headers)
        await stream.wait(lambda: stream.status == 200)
        note = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
        assert (await request(app, "POST", headers, note)).status == 202
        assert (await request(app, "DELETE", headers)).status == 200
        await asyncio.wait_for(task, 5)
        assert stream.events() == []

    run(test)


def test_an_idle_stream_sends_keepalives_and_ends_at_its_bound() -> None:
    async def test() -> None:
        stream = Exchange()
        await asyncio.wait_for(Listener("s", "2025-11-25").serve(stream.send, keepalive_s=0.01, max_open_s=0.05), 5)
        body = b"".join(stream.chunks)
        assert stream.done and body.count(b": keepalive") >= 1 and b"data:" not in body

    run(test)


def test_a_hook_that_raises_sends_nothing_and_the_notification_is_still_accepted(caplog) -> None:
    def broken(event: ListenEvent) -> Sequence[Mapping[str, Any]]:
        raise RuntimeError("scenario bug")

    async def test() -> None:
        app = build_app(EndpointConfig(tools=(), listen=broken))
        headers = await session(app)
        stream, task = start(app, "GET", headers)
        await stream.wait(lambda: stream.status == 200)
        note = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
        assert (await request(app, "POST", headers, note)).status == 202
        assert (await request(app, "DELETE", headers)).status == 200
        await asyncio.wait_for(task, 5)
        assert stream.events() == []

    run(test)
    assert "the listen hook failed" in caplog.text


def test_stopping_the_endpoint_ends_an_open_stream_whole_not_cut(caplog) -> None:
    import http.client
    import time

    import httpx

    from backchannel.proxy.endpoint.server import STOP_TIMEOUT_S, start_endpoint

    running = start_endpoint(EndpointConfig(tools=(), listen=hook))
    stream = http.client.HTTPConnection("127.0.0.1", running.port, timeout=10)
    try:
        params = {"protocolVersion": "2025-11-25", "capabilities": {"roots": {}}}
        with httpx.Client() as client:
            answered = client.post(running.url, json=rpc("initialize", params), headers={"accept": SSE})
        stream.request("GET", "/mcp", headers={"accept": SSE, "mcp-session-id": answered.headers["mcp-session-id"]})
        response = stream.getresponse()
        assert response.status == 200
        assert response.readline().startswith(b"event: message")  # the hook's roots/list
        began = time.monotonic()
        running.stop()
        assert time.monotonic() - began < STOP_TIMEOUT_S
        rest = response.read()  # the chunked body ends properly: http.client raises on a cut one
        assert rest.count(b"data:") == 1 and b"roots/list" in rest  # the rest of that event, nothing after
        response.close()
    finally:
        stream.close()
        running.stop()
    assert "Exception in ASGI application" not in caplog.text and "Cancel" not in caplog.text
