"""A real MCP server built only with the official Python SDK (`mcp`), for the URL-elicitation server scenario.

Two tools, each asking the client for input the 2026-07-28 way (by returning an `InputRequiredResult`):

- `test_url_elicitation` needs URL-mode elicitation. The SDK's resolver markers (`Elicit`) render form mode only,
  so the tool body builds the `InputRequiredResult` itself, the way the SDK's multi-round-trip docs show for a
  tool whose question does not fit a dependency, and reads the retry off `ctx.input_responses`. The SDK gates
  nothing a tool body returns, so the tool checks `ctx.client_capabilities` itself and raises the SDK's
  `MCPError(MISSING_REQUIRED_CLIENT_CAPABILITY, ...)`, which the SDK's HTTP layer answers with 400.
- `test_input_required_result_elicitation` asks a form-mode yes/no through a resolver (`Resolve` + `Elicit`):
  the SDK renders the form request, gates it on the client's declared form mode (-32021, HTTP 400), seals the
  request state, and hands the tool the whole outcome (`ElicitationResult`) so it answers accept, decline and
  cancel.

`python -m backchannel.proxy.servers.py_sdk [--port N]` serves it on 127.0.0.1 (port 0: a free one), prints
`READY http://127.0.0.1:PORT/mcp` as its first stdout line, and serves until SIGTERM/SIGINT or until its stdin
reaches EOF, then exits 0. Where the SDK falls short of the spec is written down in docs/real-servers.md.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import stat
import sys
import threading
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Annotated, Any

import uvicorn
from mcp import MCPError
from mcp.server.mcpserver import (
    AcceptedElicitation,
    CancelledElicitation,
    Context,
    DeclinedElicitation,
    Elicit,
    ElicitationResult,
    MCPServer,
    Resolve,
)
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    CallToolResult,
    ClientCapabilities,
    ElicitationCapability,
    ElicitRequest,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequiredResult,
    MissingRequiredClientCapabilityErrorData,
    TextContent,
    UrlElicitationCapability,
)
from pydantic import BaseModel, Field
from starlette.applications import Starlette

SERVER_NAME = "backchannel-py-sdk"
HOST = "127.0.0.1"
PATH = "/mcp"
# bounds uvicorn's wait for open keep-alive connections when it is told to stop
GRACEFUL_SHUTDOWN_S = 2

URL_TOOL = "test_url_elicitation"
FORM_TOOL = "test_input_required_result_elicitation"
# the key of the one URL-mode request in `inputRequests`, and the plaintext state the SDK seals around it
URL_REQUEST_KEY = "authorize"
URL_REQUEST_STATE = "awaiting-url-elicitation"
# `.invalid` never resolves (RFC 2606): a client that fetches it reaches nothing
ELICITATION_URL = "https://backchannel.invalid/authorize"
URL_MESSAGE = "Open the link to authorize backchannel's test connection."
FORM_MESSAGE = "Please confirm to continue the test."

# The SDK turns DNS-rebinding protection on for a loopback host; spelled out because a proxy forwards with
# `Host: 127.0.0.1:<port>`, which these patterns admit.
SECURITY = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*"],
)


class Confirmation(BaseModel):
    """The form the SEP-2322 tool asks for: one boolean."""

    confirmed: bool = Field(description="Confirm to continue")


def ask_confirmation() -> Elicit[Confirmation]:
    """Resolver: always ask; the SDK renders the form request and gates it on the client's form mode."""
    return Elicit(FORM_MESSAGE, Confirmation)


def _text(text: str, *, is_error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=text)], is_error=is_error)


def _declares_url_mode(capabilities: ClientCapabilities | None) -> bool:
    """Whether this request's envelope declared `elicitation.url` (a bare `elicitation: {}` is form mode only)."""
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and elicitation.url is not None


def _missing_url_mode() -> MCPError:
    """The SDK's -32021 error naming `elicitation.url`; its HTTP layer maps the code to 400."""
    required = ClientCapabilities(elicitation=ElicitationCapability(url=UrlElicitationCapability()))
    data = MissingRequiredClientCapabilityErrorData(required_capabilities=required)
    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=f"{URL_TOOL} needs URL-mode elicitation, which the client did not declare",
        data=data.model_dump(by_alias=True, mode="json", exclude_none=True),
    )


def _url_request() -> InputRequiredResult:
    ask = ElicitRequest(params=ElicitRequestURLParams(message=URL_MESSAGE, url=ELICITATION_URL))
    return InputRequiredResult(input_requests={URL_REQUEST_KEY: ask}, request_state=URL_REQUEST_STATE)


def build_server() -> MCPServer:
    mcp = MCPServer(SERVER_NAME)

    @mcp.tool(name=URL_TOOL)
    async def test_url_elicitation(ctx: Context) -> CallToolResult | InputRequiredResult:
        """Send the user to a URL (URL-mode elicitation), then report what they chose."""
        if not _declares_url_mode(ctx.client_capabilities):
            raise _missing_url_mode()
        answer = (ctx.input_responses or {}).get(URL_REQUEST_KEY)
        # the SDK has already verified the sealed echo; a retry without our state or answer is asked again
        if ctx.request_state != URL_REQUEST_STATE or not isinstance(answer, ElicitResult):
            return _url_request()
        if answer.action == "accept":
            return _text("The user opened the authorization link; the connection is authorized.")
        if answer.action == "decline":
            return _text("The user declined to open the authorization link.", is_error=True)
        return _text("The user cancelled the authorization request.", is_error=True)

    @mcp.tool(name=FORM_TOOL)
    async def test_input_required_result_elicitation(
        confirmation: Annotated[ElicitationResult[Confirmation], Resolve(ask_confirmation)],
    ) -> CallToolResult:
        """Ask the user to confirm (form-mode elicitation), then echo what they answered."""
        match confirmation:
            case AcceptedElicitation(data=Confirmation(confirmed=confirmed)):
                return _text(f"The user accepted with confirmed={str(confirmed).lower()}.")
            case DeclinedElicitation():
                return _text("The user declined the confirmation.", is_error=True)
            case CancelledElicitation():
                return _text("The user cancelled the confirmation.", is_error=True)
        return _text("The confirmation ended without an answer.", is_error=True)  # pragma: no cover

    return mcp


def build_app() -> Starlette:
    """The SDK's streamable-HTTP app (JSON or SSE responses as the SDK chooses), served at /mcp."""
    return build_server().streamable_http_app(streamable_http_path=PATH, host=HOST, transport_security=SECURITY)


class _AnnouncingServer(uvicorn.Server):
    """A uvicorn server that reports once it is listening, so whoever started it never polls."""

    def __init__(self, config: uvicorn.Config, on_started: Callable[[_AnnouncingServer], None]) -> None:
        super().__init__(config)
        self._on_started = on_started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self._on_started(self)


def bound_port(server: uvicorn.Server) -> int:
    return int(server.servers[0].sockets[0].getsockname()[1])


def _stop_at_stdin_eof(server: uvicorn.Server) -> None:
    """Stop serving once a piped stdin reaches EOF, so the server never outlives the process that started it."""

    try:
        fd = sys.stdin.fileno()
        piped = stat.S_ISFIFO(os.fstat(fd).st_mode) or stat.S_ISSOCK(os.fstat(fd).st_mode)
    except (OSError, ValueError):
        piped = False
    if not piped:  # a terminal (`cmd &` would stop on SIGTTIN) or /dev/null (a script's `&`): SIGTERM/SIGINT only
        return

    def watch() -> None:
        try:
            while os.read(fd, 4096):
                pass
        except (OSError, ValueError):
            pass  # stdin closed or unusable: the same as EOF
        server.should_exit = True

    threading.Thread(target=watch, name="stdin-eof", daemon=True).start()


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m backchannel.proxy.servers.py_sdk", description=__doc__)
    parser.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default 0: a free one)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)

    def announce(server: _AnnouncingServer) -> None:
        print(f"READY http://{HOST}:{bound_port(server)}{PATH}", flush=True)

    config = uvicorn.Config(
        build_app(), host=HOST, port=args.port, lifespan="on", log_level="warning",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )  # fmt: skip
    server = _AnnouncingServer(config, announce)

    # uvicorn captures SIGTERM/SIGINT while serving and re-raises them once stopped; these handlers receive that
    # re-raise, so a requested stop ends with exit status 0 rather than death by signal.
    def stopped(signum: int, frame: FrameType | None) -> Any:
        server.should_exit = True

    signal.signal(signal.SIGTERM, stopped)
    signal.signal(signal.SIGINT, stopped)
    _stop_at_stdin_eof(server)
    server.run()
    # already stopping: a SIGTERM that lands now (a launcher closes stdin, then signals) must not turn a clean exit
    # into death by signal while the interpreter shuts down
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return 0 if server.started else 1


if __name__ == "__main__":
    sys.exit(main())
