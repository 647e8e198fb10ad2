"""A real MCP server built with the official Python SDK (`mcp` 2.x), for driving the proxy end to end.

`build_app()` is the SDK's own streamable-HTTP ASGI app (path /mcp) for one tool, `get_repo_status`.
`serve_in_thread()` runs it under uvicorn on a loopback port in a background thread, for tests;
`python tests/servers/py_sdk_server.py PORT` serves it in the foreground and prints `READY <url>`.
"""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.types import ASGIApp

SERVER_NAME = "sdk-repo-status"
HOST = "127.0.0.1"
PATH = "/mcp"
START_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 10.0
# bounds uvicorn's wait for open keep-alive connections (e.g. the proxy's) when it is told to stop
GRACEFUL_SHUTDOWN_S = 2

# The SDK turns DNS-rebinding protection on for a loopback host by default; spelled out here because the proxy
# forwards with `Host: 127.0.0.1:<port>` (mitmdump runs with keep_host_header=false), which these patterns admit.
SECURITY = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*"],
)


def repo_status_text(repo: str) -> str:
    return f"repo {repo}: branch main, clean, 0 ahead / 0 behind"


def build_server() -> MCPServer:
    mcp = MCPServer(SERVER_NAME)

    @mcp.tool()
    def get_repo_status(repo: str = "demo") -> str:
        """Report a repository's branch and whether it is clean."""
        return repo_status_text(repo)

    return mcp


def build_app() -> Starlette:
    """The SDK's streamable-HTTP app with its defaults (SSE-capable, stateful legacy sessions), served at /mcp."""
    return build_server().streamable_http_app(streamable_http_path=PATH, host=HOST, transport_security=SECURITY)


class _NotifyingServer(uvicorn.Server):
    """A uvicorn server that reports once it is listening (or has given up), so callers never poll."""

    def __init__(self, config: uvicorn.Config, on_started: Callable[[_NotifyingServer], None]) -> None:
        super().__init__(config)
        self._on_started = on_started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self._on_started(self)


def _config(port: int, app: ASGIApp) -> uvicorn.Config:
    return uvicorn.Config(
        app, host=HOST, port=port, lifespan="on", log_level="warning",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )  # fmt: skip


def bound_port(server: uvicorn.Server) -> int:
    return int(server.servers[0].sockets[0].getsockname()[1])


@dataclass(frozen=True)
class RunningServer:
    server: uvicorn.Server
    port: int

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}{PATH}"


@contextmanager
def serve_in_thread(port: int = 0, *, wrap: Callable[[ASGIApp], ASGIApp] | None = None) -> Iterator[RunningServer]:
    """Run the app under uvicorn in a background thread with its own event loop; stop it, bounded, on exit.

    `wrap` puts ASGI middleware around the SDK app (e.g. to witness what the server received).
    """
    ready = threading.Event()
    failure: list[BaseException] = []
    app: ASGIApp = build_app() if wrap is None else wrap(build_app())
    server = _NotifyingServer(_config(port, app), lambda _: ready.set())

    def run() -> None:
        try:
            asyncio.run(server.serve())
        except BaseException as exc:  # SystemExit from a failed lifespan startup included
            failure.append(exc)
        finally:
            ready.set()  # wake the waiter even if the server never started

    thread = threading.Thread(target=run, name="py-sdk-server", daemon=True)
    thread.start()
    try:
        if not ready.wait(START_TIMEOUT_S):
            raise RuntimeError(f"the SDK server did not start listening within {START_TIMEOUT_S} s")
        if not server.started:
            raise RuntimeError(f"the SDK server failed to start: {failure[0] if failure else 'no reason given'!r}")
        yield RunningServer(server, bound_port(server))
    finally:
        server.should_exit = True
        thread.join(STOP_TIMEOUT_S)
        if thread.is_alive():
            server.force_exit = True
            thread.join(STOP_TIMEOUT_S)
        if thread.is_alive():
            raise RuntimeError(f"the SDK server thread did not stop within {2 * STOP_TIMEOUT_S} s")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not args[0].isdigit():
        print("usage: python tests/servers/py_sdk_server.py PORT", file=sys.stderr)
        return 2

    def announce(server: _NotifyingServer) -> None:
        print(f"READY http://{HOST}:{bound_port(server)}{PATH}", flush=True)

    server = _NotifyingServer(_config(int(args[0]), build_app()), announce)
    server.run()
    return 0 if server.started else 1


if __name__ == "__main__":
    sys.exit(main())
