"""Serving an ASGI app with uvicorn in a background thread of its own, on IPv4 loopback only.

Both servers backchannel plays use it: the scripted endpoint (proxy/endpoint/server.py) and the replay of a
recording (proxy/replay/app.py). Start returns once the server accepts connections (or says why it cannot); stop
asks for a graceful shutdown, then forces one, each bounded.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading
from typing import Any

import uvicorn

STARTUP_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 5.0
TICKS_PER_SECOND = 10  # uvicorn's main loop ticks every 0.1 s and does its once-a-second work on every tenth


class _Server(uvicorn.Server):
    """A uvicorn server that signals a thread event once it accepts connections, and stops as soon as it is asked.

    uvicorn's own main loop looks at `should_exit` every 0.1 s, and its shutdown sleeps 0.1 s before it waits for
    open connections: every stop cost up to 0.2 s, and a check stops several endpoints. Here `wake` ends the wait
    at once, and a shutdown with no connection and no task left skips the sleep."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop, self._wake = asyncio.get_running_loop(), asyncio.Event()
        await super().startup(sockets=sockets)
        self.ready.set()

    async def main_loop(self) -> None:
        """uvicorn's loop, woken by `wake` instead of polled; its once-a-second work (the Date header) kept."""
        assert self._wake is not None
        ticks = 0
        should_exit = await self.on_tick(ticks)
        while not should_exit:
            ticks = (ticks + TICKS_PER_SECOND) % 864000  # uvicorn counts 0.1 s ticks: each pass here is a second
            try:
                await asyncio.wait_for(self._wake.wait(), 1.0)
            except TimeoutError:
                pass
            should_exit = await self.on_tick(ticks)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.server_state.connections or self.server_state.tasks:
            await super().shutdown(sockets=sockets)  # uvicorn's graceful shutdown, bounded by its timeout
            return
        for server in self.servers:  # nothing open to wait for (and lifespan is off): close and go
            server.close()
        for sock in sockets or []:
            sock.close()
        for server in self.servers:
            await server.wait_closed()

    def wake(self) -> None:
        """From another thread: make the main loop look at `should_exit` now."""
        loop, event = self._loop, self._wake
        if loop is not None and event is not None:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:
                pass  # the loop is closed: the server has stopped already


class LoopbackServer:
    """One app serving in the background; `what` names it in errors ("endpoint", "replay")."""

    def __init__(self, server: _Server, thread: threading.Thread, port: int, what: str) -> None:
        self._server = server
        self._thread = thread
        self.port = port
        self.what = what

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """Shut the server down, waiting at most about `timeout` seconds; calling it again is harmless.

        Raises:
            TimeoutError: The server thread was still running after a forced exit.
        """
        self._server.should_exit = True
        self._server.wake()
        self._thread.join(timeout / 2)
        if self._thread.is_alive():
            # open streams (held SSE replies, a replay mid-wait) would otherwise keep a graceful shutdown waiting
            self._server.force_exit = True
            self._server.wake()
            self._thread.join(timeout / 2)
        if self._thread.is_alive():
            raise TimeoutError(f"{self.what} on port {self.port} did not stop within {timeout} s")


def require_loopback(host: str, what: str) -> None:
    """ValueError unless `host` is an IPv4 loopback address: nothing backchannel serves listens anywhere else."""
    try:
        loopback = ipaddress.IPv4Address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValueError(f"the {what} binds IPv4 loopback only (e.g. 127.0.0.1), not {host!r}")


def serve_loopback(app: Any, host: str, port: int, *, what: str, date_header: bool = True) -> LoopbackServer:
    """Serve `app` on `host:port` (port 0 picks a free one) and return once it accepts connections.

    Raises:
        ValueError: `host` is not an IPv4 loopback address.
        OSError: the port cannot be bound.
        TimeoutError: The server did not start within STARTUP_TIMEOUT_S.
        RuntimeError: The server thread ended during startup.
    """
    require_loopback(host, what)
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
    bound: int = sock.getsockname()[1]
    config = uvicorn.Config(
        app,
        loop="asyncio",
        http="h11",
        lifespan="off",
        log_config=None,
        log_level="warning",
        access_log=False,
        server_header=False,
        date_header=date_header,
        timeout_graceful_shutdown=1,
    )
    server = _Server(config)
    thread = threading.Thread(target=_serve, args=(server, sock), name=f"backchannel-{what}-{bound}", daemon=True)
    thread.start()
    if not server.ready.wait(STARTUP_TIMEOUT_S):
        server.should_exit = True
        thread.join(STOP_TIMEOUT_S)
        raise TimeoutError(f"{what} on port {bound} did not start within {STARTUP_TIMEOUT_S} s")
    if not server.started:
        thread.join(STOP_TIMEOUT_S)
        raise RuntimeError(f"{what} on port {bound} failed to start; see the uvicorn log")
    return LoopbackServer(server, thread, bound, what)


def _serve(server: _Server, sock: socket.socket) -> None:
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        server.ready.set()  # wakes serve_loopback even when startup failed, so it never waits out the full timeout
