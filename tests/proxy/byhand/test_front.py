"""The stable front of a by-hand lab, over real sockets: `/mcp` goes to whichever run is current when the request
arrives, anything else is refused before it reaches the proxy, and a port that is taken is said plainly."""

from __future__ import annotations

import gc
import http.server
import socket
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest

from backchannel.proxy.byhand.front import MAX_BODY, STABLE_PATH, Front, FrontError

WAIT_S = 5.0  # every socket wait in these tests is bounded by this


@dataclass
class Upstream:
    """A stand-in for the proxy: answers every POST with 200 and keeps what it was sent."""

    port: int
    seen: list[tuple[str, str, bytes]] = field(default_factory=list)  # (path, Connection header, body)


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    kept = Upstream(0)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            kept.seen.append((self.path, self.headers.get("Connection", ""), body))
            reply = b'{"jsonrpc":"2.0","id":1,"result":{}}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    kept.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield kept
    finally:
        server.shutdown()
        server.server_close()
        thread.join(WAIT_S)


@dataclass
class Current:
    """Which run the lab says is current; a test moves it the way `ByHandLab.advance` does."""

    path: str = "/r/first/mcp"

    def __call__(self) -> str:
        return self.path


@pytest.fixture
def current() -> Current:
    return Current()


@pytest.fixture
def front(upstream: Upstream, current: Current) -> Iterator[Front]:
    running = Front("127.0.0.1", upstream.port, current)
    running.start()
    try:
        yield running
    finally:
        running.stop()


def _raw(port: int, head: bytes) -> bytes:
    """Send a request head and read the whole reply (the front closes after each one)."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as sock:
        sock.sendall(head)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    return reply


def test_the_front_listens_on_loopback_and_its_url_is_the_stable_mcp_path(front: Front) -> None:
    assert front.port != 0
    assert front.url == f"http://127.0.0.1:{front.port}{STABLE_PATH}"


def test_a_request_to_mcp_reaches_the_current_run_with_its_query_and_body_and_the_reply_comes_back(
    front: Front, upstream: Upstream
) -> None:
    reply = httpx.post(front.url + "?session=a", content=b'{"jsonrpc":"2.0"}', timeout=WAIT_S)
    assert reply.status_code == 200 and reply.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert upstream.seen == [("/r/first/mcp?session=a", "close", b'{"jsonrpc":"2.0"}')]
    assert front.requests == 1


def test_after_the_current_run_moves_the_same_url_reaches_the_new_run(
    front: Front, upstream: Upstream, current: Current
) -> None:
    httpx.post(front.url, content=b"one", timeout=WAIT_S)
    current.path = "/r/second/mcp"
    httpx.post(front.url, content=b"two", timeout=WAIT_S)
    assert [(path, body) for path, _, body in upstream.seen] == [("/r/first/mcp", b"one"), ("/r/second/mcp", b"two")]


def test_a_request_for_another_path_is_404_and_never_reaches_the_proxy(front: Front, upstream: Upstream) -> None:
    reply = httpx.post(f"http://127.0.0.1:{front.port}/r/first/mcp", content=b"x", timeout=WAIT_S)
    assert reply.status_code == 404 and STABLE_PATH in reply.text
    assert upstream.seen == [] and front.requests == 0


def test_a_body_past_the_cap_is_413_before_any_of_it_is_read(front: Front, upstream: Upstream) -> None:
    head = f"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: {MAX_BODY + 1}\r\n\r\n".encode()
    reply = _raw(front.port, head)
    assert reply.startswith(b"HTTP/1.1 413 ")
    assert upstream.seen == []


def test_a_chunked_body_is_411_the_client_is_asked_for_a_length(front: Front, upstream: Upstream) -> None:
    head = b"POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
    reply = _raw(front.port, head)
    assert reply.startswith(b"HTTP/1.1 411 ") and b"Content-Length" in reply
    assert upstream.seen == []


def test_a_malformed_request_line_is_400(front: Front) -> None:
    assert _raw(front.port, b"NONSENSE\r\n\r\n").startswith(b"HTTP/1.1 400 ")


def test_a_port_already_in_use_is_a_clear_error_naming_the_port(upstream: Upstream, current: Current) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        second = Front("127.0.0.1", upstream.port, current, port=port)
        with pytest.raises(FrontError, match=f"cannot listen on 127.0.0.1:{port}"):
            second.start()
    assert not second._thread.is_alive()  # the failed start stopped its own thread: nothing outlives it


def test_after_stop_the_port_no_longer_answers(upstream: Upstream, current: Current) -> None:
    running = Front("127.0.0.1", upstream.port, current)
    running.start()
    port = running.port
    running.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=WAIT_S).close()


def test_stopping_with_a_stream_still_open_closes_both_of_its_sockets_before_the_loop_is_gone(
    current: Current,
) -> None:
    """A host may hold an SSE stream open when the lab ends: the front cancels it and waits for both sides of the
    connection to close, so nothing is left for the garbage collector to warn about (a warning that would fail
    whichever test ran next)."""
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    accepted: list[socket.socket] = []
    arrived = threading.Event()

    def hold_open() -> None:  # an upstream that answers with a stream head and then sends nothing
        conn, _ = held.accept()
        accepted.append(conn)
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
        arrived.set()

    thread = threading.Thread(target=hold_open, daemon=True)
    thread.start()
    running = Front("127.0.0.1", held.getsockname()[1], current)
    running.start()
    host = socket.create_connection(("127.0.0.1", running.port), timeout=WAIT_S)
    try:
        host.sendall(b"GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        assert arrived.wait(WAIT_S)
        assert host.recv(65536).startswith(b"HTTP/1.1 200 OK")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            running.stop()
            gc.collect()
        assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []
        assert host.recv(65536) == b""  # the front closed the host's side too
    finally:
        host.close()
        for conn in accepted:
            conn.close()
        held.close()
        thread.join(WAIT_S)
