"""Serving an ASGI app on loopback in a background thread: what the endpoint and the replay stand on."""

from __future__ import annotations

import socket
import threading
import urllib.request

import pytest

from backchannel.proxy.endpoint.serving import require_loopback, serve_loopback


async def _hello(scope, receive, send):
    assert scope["type"] == "http"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"hello"})


def _threads(what: str) -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith(f"backchannel-{what}-")]


def test_an_app_is_served_on_a_free_loopback_port_and_stopped_by_its_own_thread():
    server = serve_loopback(_hello, "127.0.0.1", 0, what="probe")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/", timeout=5) as response:
            assert response.read() == b"hello"
            assert "date" in {k.lower() for k in response.headers}
        assert f"backchannel-probe-{server.port}" in _threads("probe")
    finally:
        server.stop()
    assert f"backchannel-probe-{server.port}" not in _threads("probe")
    server.stop()  # a second stop is harmless


def test_the_date_header_can_be_left_out_for_a_replay_of_recorded_headers():
    server = serve_loopback(_hello, "127.0.0.1", 0, what="probe", date_header=False)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/", timeout=5) as response:
            assert "date" not in {k.lower() for k in response.headers}
    finally:
        server.stop()


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.1", "::1", "localhost", ""])
def test_anything_but_an_ipv4_loopback_address_is_refused_naming_the_server(host):
    with pytest.raises(ValueError, match=r"the replay binds IPv4 loopback only"):
        require_loopback(host, "replay")
    with pytest.raises(ValueError, match=r"the endpoint binds IPv4 loopback only"):
        serve_loopback(_hello, host, 0, what="endpoint")


def test_a_port_already_taken_is_an_os_error_and_leaves_no_thread():
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        before = _threads("probe")
        with pytest.raises(OSError):
            serve_loopback(_hello, "127.0.0.1", taken.getsockname()[1], what="probe")
        assert _threads("probe") == before
    finally:
        taken.close()
