"""The lab's refusing proxy: every CONNECT and absolute-form request gets 403 and the wanted host is reported."""

from __future__ import annotations

import queue
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import pytest

from backchannel.proxy.run.refusing_proxy import HEAD_LIMIT, Refused, RefusingProxy, proxy_env, target_of


def _send(url: str, data: bytes) -> bytes:
    parts = urlsplit(url)
    assert parts.hostname == "127.0.0.1" and parts.port
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as conn:
        conn.sendall(data)
        received = b""
        while chunk := conn.recv(4096):
            received += chunk
        return received


@pytest.fixture
def refused() -> queue.Queue[Refused]:
    return queue.Queue()


@pytest.fixture
def proxy(refused: queue.Queue[Refused]):  # type: ignore[no-untyped-def]
    with RefusingProxy(refused.put) as running:
        yield running


def test_a_connect_is_refused_and_its_host_reported(proxy: RefusingProxy, refused: queue.Queue[Refused]) -> None:
    reply = _send(proxy.url, b"CONNECT api.anthropic.com:443 HTTP/1.1\r\nHost: api.anthropic.com:443\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 403 Forbidden\r\n")
    assert refused.get(timeout=5) == Refused("api.anthropic.com:443", "CONNECT")


def test_an_absolute_form_request_is_refused_with_its_default_port(
    proxy: RefusingProxy, refused: queue.Queue[Refused]
) -> None:
    reply = _send(proxy.url, b"GET http://example.test/path HTTP/1.1\r\nHost: example.test\r\n\r\n")
    assert b" 403 " in reply.split(b"\r\n")[0]
    assert refused.get(timeout=5) == Refused("example.test:80", "GET")


def test_a_real_client_going_through_it_is_refused(proxy: RefusingProxy, refused: queue.Queue[Refused]) -> None:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": proxy.url}))
    with pytest.raises(urllib.error.HTTPError) as raised:
        opener.open("http://telemetry.example.test:8080/v1/events", timeout=5)
    raised.value.close()
    assert raised.value.code == 403
    assert refused.get(timeout=5).target == "telemetry.example.test:8080"


def test_a_child_process_with_the_lab_env_is_refused_for_https(
    proxy: RefusingProxy, refused: queue.Queue[Refused]
) -> None:
    # urllib reads https_proxy from the environment and tunnels with CONNECT, as the agents' HTTP stacks do
    script = (
        "import urllib.request as u\n"
        "try:\n u.urlopen('https://update.example.test/x', timeout=5)\n"
        "except Exception as e:\n print(type(e).__name__)"
    )
    env = {"PATH": "/usr/bin:/bin", **proxy_env(proxy.url)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, timeout=30, check=False)
    assert done.stdout.strip() in (b"URLError", b"OSError")
    assert refused.get(timeout=5) == Refused("update.example.test:443", "CONNECT")


def test_loopback_is_exempt_in_both_cases() -> None:
    env = proxy_env("http://127.0.0.1:9")
    for name in ("HTTP_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        assert env[name] == "http://127.0.0.1:9"
    assert env["NO_PROXY"] == env["no_proxy"] == "127.0.0.1,localhost,::1"


def test_garbage_is_refused_and_reported_as_what_it_was(proxy: RefusingProxy, refused: queue.Queue[Refused]) -> None:
    reply = _send(proxy.url, b"\x16\x03\x01 hello\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 403")
    assert refused.get(timeout=5).target.startswith("unknown (not an HTTP request line")


def test_an_endless_head_is_cut_at_the_limit(proxy: RefusingProxy, refused: queue.Queue[Refused]) -> None:
    reply = _send(proxy.url, b"CONNECT big.example.test:443 HTTP/1.1\r\nX: " + b"a" * (HEAD_LIMIT * 2))
    assert reply.startswith(b"HTTP/1.1 403")
    assert refused.get(timeout=5).target == "big.example.test:443"


@pytest.mark.parametrize(
    ("head", "target"),
    [
        (b"CONNECT [2001:db8::1]:8443 HTTP/1.1\r\n\r\n", "[2001:db8::1]:8443"),
        (b"CONNECT host.test HTTP/1.1\r\n\r\n", "host.test:443"),
        (b"GET https://user@host.test/x HTTP/1.1\r\n\r\n", "host.test:443"),
        (b"GET /x HTTP/1.1\r\nHost: plain.test:81\r\n\r\n", "plain.test:81"),
        (b"GET /x HTTP/1.1\r\n\r\n", "unknown (origin-form '/x' with no Host)"),
    ],
)
def test_the_wanted_target_is_read_from_each_form(head: bytes, target: str) -> None:
    assert target_of(head).target == target


def test_stopping_closes_its_port(refused: queue.Queue[Refused]) -> None:
    running = RefusingProxy(refused.put)
    url = running.start()
    running.stop()
    parts = urlsplit(url)
    with pytest.raises(OSError):
        socket.create_connection((parts.hostname, parts.port), timeout=2).close()
