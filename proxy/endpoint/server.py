"""Runs the scripted endpoint under uvicorn in a background thread with its own event loop, on loopback only."""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType

from backchannel.proxy.endpoint.app import ScriptedEndpoint, build_app
from backchannel.proxy.endpoint.serving import (
    STARTUP_TIMEOUT_S,
    STOP_TIMEOUT_S,
    LoopbackServer,
    require_loopback,
    serve_loopback,
)
from backchannel.proxy.endpoint.tools import EndpointConfig

__all__ = ["STARTUP_TIMEOUT_S", "STOP_TIMEOUT_S", "RunningEndpoint", "start_endpoint"]


class RunningEndpoint:
    """A scripted endpoint serving in the background; stop it with `stop()` or by leaving the `with` block."""

    def __init__(self, server: LoopbackServer, host: str, app: ScriptedEndpoint | None = None) -> None:
        self._server = server
        self._app = app
        self.config: EndpointConfig | None = app.config if app is not None else None  # what it serves
        self.port = server.port
        self.url = f"http://{host}:{server.port}/mcp"

    def on_listed(self, watcher: Callable[[], None]) -> None:
        """Call `watcher` (from the serving thread) after each tools/list this endpoint answers."""
        if self._app is not None:
            self._app.listing_watchers.append(watcher)

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """Shut the server down, waiting at most about `timeout` seconds; calling it again is harmless.

        Raises:
            TimeoutError: The server thread was still running after a forced exit.
        """
        if self._app is not None:
            self._app.close_streams()  # open GET streams end now, so the graceful shutdown has nothing to cut
        self._server.stop(timeout)

    def __enter__(self) -> RunningEndpoint:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"RunningEndpoint(url={self.url!r})"


def start_endpoint(config: EndpointConfig, host: str = "127.0.0.1", port: int = 0) -> RunningEndpoint:
    """Serve `build_app(config)` on `host:port` (port 0 picks a free one) and return once it accepts connections.

    Raises:
        ValueError: `host` is not an IPv4 loopback address.
        TimeoutError: The server did not start within STARTUP_TIMEOUT_S.
        RuntimeError: The server thread ended during startup.
    """
    require_loopback(host, "endpoint")  # before the app is built: the host is the first thing wrong
    app = build_app(config)
    return RunningEndpoint(serve_loopback(app, host, port, what="endpoint"), host, app)
