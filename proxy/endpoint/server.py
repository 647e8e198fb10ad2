"""Runs the scripted endpoint under uvicorn in a background thread with its own event loop, on loopback only."""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Mapping
from types import TracebackType

import uvicorn

from backchannel.proxy.endpoint.app import build_app
from backchannel.proxy.endpoint.tools import EndpointConfig, ToolSet

__all__ = ["RunningEndpoint", "start_endpoint"]

STARTUP_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 5.0


class _Server(uvicorn.Server):
    """A uvicorn server that signals a thread event once it accepts connections."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        self.ready.set()


class RunningEndpoint:
    """A scripted endpoint serving in the background; stop it with `stop()` or by leaving the `with` block."""

    def __init__(self, server: _Server, thread: threading.Thread, host: str, port: int) -> None:
        self._server = server
        self._thread = thread
        self.port = port
        self.url = f"http://{host}:{port}/mcp"

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """Shut the server down, waiting at most about `timeout` seconds; calling it again is harmless.

        Raises:
            TimeoutError: The server thread was still running after a forced exit.
        """
        self._server.should_exit = True
        self._thread.join(timeout / 2)
        if self._thread.is_alive():
            # Open streams (held SSE replies) would otherwise keep a graceful shutdown waiting.
            self._server.force_exit = True
            self._thread.join(timeout / 2)
        if self._thread.is_alive():
            raise TimeoutError(f"endpoint on port {self.port} did not stop within {timeout} s")

    def __enter__(self) -> RunningEndpoint:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"RunningEndpoint(url={self.url!r})"


def start_endpoint(
    config: EndpointConfig,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    tool_sets: Mapping[str, ToolSet] | None = None,
) -> RunningEndpoint:
    """Serve `build_app(config)` on `host:port` (port 0 picks a free one) and return once it accepts connections.

    Raises:
        ValueError: `host` is not an IPv4 loopback address, or the scenario is unknown.
        TimeoutError: The server did not start within STARTUP_TIMEOUT_S.
        RuntimeError: The server thread ended during startup.
    """
    try:
        loopback = ipaddress.IPv4Address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValueError(f"the endpoint binds IPv4 loopback only (e.g. 127.0.0.1), not {host!r}")
    app = build_app(config, tool_sets=tool_sets)
    # proto must be IPPROTO_TCP, not 0: asyncio only sets TCP_NODELAY on accepted sockets whose proto says TCP, and
    # without it uvicorn's separate header and body writes meet delayed ACKs (about 40 ms per response).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    bound_port: int = sock.getsockname()[1]
    uv_config = uvicorn.Config(
        app,
        loop="asyncio",
        http="h11",
        lifespan="off",
        log_config=None,
        log_level="warning",
        access_log=False,
        server_header=False,
        timeout_graceful_shutdown=1,
    )
    server = _Server(uv_config)
    thread = threading.Thread(
        target=_serve, args=(server, sock), name=f"backchannel-endpoint-{bound_port}", daemon=True
    )
    thread.start()
    if not server.ready.wait(STARTUP_TIMEOUT_S):
        server.should_exit = True
        raise TimeoutError(f"endpoint on port {bound_port} did not start within {STARTUP_TIMEOUT_S} s")
    if not server.started:
        raise RuntimeError(f"endpoint on port {bound_port} failed to start; see the uvicorn log")
    return RunningEndpoint(server, thread, host, bound_port)


def _serve(server: _Server, sock: socket.socket) -> None:
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        # Wakes start_endpoint even when startup failed, so it never waits out the full timeout.
        server.ready.set()
