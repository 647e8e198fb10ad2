"""A loopback HTTP proxy that refuses everything, so an agent's attempt to reach an outside host is seen, not made.

A lab that runs a coding agent points HTTP_PROXY/HTTPS_PROXY/ALL_PROXY (both cases) here and exempts loopback with
NO_PROXY. Every CONNECT and every absolute-form request (`GET http://host/...`) gets 403 and the connection is closed;
the host and port the agent wanted are handed to `on_refused` (the capture records them as an `agent-outside-host`
anomaly). The request is untrusted: its head is read bounded in size and time, and anything unparseable is refused
and reported as what it was.
"""

from __future__ import annotations

import socket
import socketserver
import threading
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

HEAD_LIMIT = 16 * 1024  # a request head longer than this is refused as it stands
READ_TIMEOUT_S = 5.0  # a client that sends nothing for this long is dropped
_BODY = b"backchannel lab: outside hosts are not reachable\n"
REFUSAL = (
    b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n"
    + f"Content-Length: {len(_BODY)}\r\n\r\n".encode()
    + _BODY
)


@dataclass(frozen=True)
class Refused:
    """One refused request: where it wanted to go (`host:port`, or why that is not known) and its method."""

    target: str
    method: str


def read_head(conn: socket.socket) -> bytes:
    """The bytes up to the end of the request head, at most HEAD_LIMIT; whatever came before a timeout or close."""
    data = b""
    conn.settimeout(READ_TIMEOUT_S)
    while b"\r\n\r\n" not in data and len(data) < HEAD_LIMIT:
        try:
            chunk = conn.recv(4096)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    return data[:HEAD_LIMIT]


def target_of(head: bytes) -> Refused:
    """Where a proxy request head wanted to go: CONNECT's authority, an absolute URL's host:port, else the Host."""
    first, _, rest = head.partition(b"\r\n")
    parts = first.decode("latin-1").split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        shown = first[:80].decode("latin-1").encode("unicode_escape").decode("ascii")
        return Refused(f"unknown (not an HTTP request line: {shown!r})", "?")
    method, where, _version = parts
    method = method[:20]
    if method.upper() == "CONNECT":
        return Refused(_authority(where, 443), method)
    if "://" in where:
        split = urlsplit(where)
        default = 443 if split.scheme == "https" else 80
        return Refused(_authority(split.netloc.rpartition("@")[2], default), method)
    for line in rest.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"host":
            return Refused(_authority(value.strip().decode("latin-1"), 80), method)
    return Refused(f"unknown (origin-form {where[:80]!r} with no Host)", method)


def _authority(text: str, default_port: int) -> str:
    """`host:port` from an authority, bounded; a port left out is the scheme's default."""
    text = text[:300]
    if text.startswith("["):  # [v6]:port
        host, _, tail = text.partition("]")
        port = tail[1:] if tail.startswith(":") else ""
        host += "]"
    else:
        host, _, port = text.rpartition(":") if text.count(":") == 1 else (text, "", "")
    return f"{host or '?'}:{port if port.isdigit() else default_port}"


class RefusingProxy:
    """Started with `start()` (returns its `http://127.0.0.1:PORT` URL), stopped with `stop()`; a context manager."""

    def __init__(self, on_refused: Callable[[Refused], None]) -> None:
        self.on_refused = on_refused
        self._server: socketserver.ThreadingTCPServer | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    def start(self) -> str:
        owner = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                conn: socket.socket = self.request
                head = read_head(conn)
                if not head:
                    return  # connected and said nothing: nothing was wanted
                refused = target_of(head)
                try:
                    conn.sendall(REFUSAL)
                except OSError:
                    pass
                owner.on_refused(refused)

        server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
        server.daemon_threads = True
        server.allow_reuse_address = True
        server.server_bind()
        server.server_activate()
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        return self.url

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def __enter__(self) -> RefusingProxy:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def proxy_env(url: str) -> dict[str, str]:
    """The environment that sends every non-loopback request of the agent (and its children) to the proxy at `url`."""
    env = {}
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = env[name.lower()] = url
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost,::1"
    return env
