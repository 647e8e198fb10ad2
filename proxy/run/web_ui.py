"""`backchannel record --ui web`: the live recording with mitmweb in place of mitmdump, its UI on 127.0.0.1.

mitmweb's UI lets whoever opens it replay and edit traffic, so it is never left open: a fresh random token per
session, handed to mitmweb only as an argon2 hash (its `web_password` option takes one), so the token itself is on
no command line; the printed URL carries it (`?token=`), and mitmweb then keeps the browser signed in by cookie.
"""

from __future__ import annotations

import secrets
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from rich.console import Console

from backchannel.addons.session import Limits
from backchannel.proxy.endpoint.tools import ToolSpec
from backchannel.proxy.run.record import record_live
from backchannel.recordings import redact

# the columns of mitmweb's flow list: the comment column shows how backchannel changed a flow
COLUMNS = ("index", "method", "path", "status", "size", "time", "comment")


def free_port() -> int:
    """A port on 127.0.0.1 nobody listens on now (mitmweb's UI cannot report one it picked itself)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class WebUi:
    port: int = field(default_factory=free_port)
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24), repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    def options(self) -> list[str]:
        """mitmweb's `--set` options: loopback only, no browser opened for us, the token's hash, our columns."""
        return [
            "--set=web_host=127.0.0.1",
            f"--set=web_port={self.port}",
            "--set=web_open_browser=false",
            f"--set=web_password={PasswordHasher().hash(self.token)}",
            *(f"--set=web_columns={column}" for column in COLUMNS),
        ]


def record_web(
    out: Path,
    *,
    upstream: str | None,
    plan: dict[str, Any],
    scenario: str,
    tools: tuple[ToolSpec, ...],
    console: Console,
    flow_state: bool = False,
    redaction: redact.Policy = redact.DEFAULT_POLICY,
    limits: Limits | None = None,
) -> None:
    """`record` without a command, watched in mitmweb: prints the web view's URL, then runs the live recording."""
    web = WebUi()
    console.print(f"Web view (mitmweb, changed flows marked): {web.url}", markup=False, soft_wrap=True)
    record_live(
        out,
        upstream=upstream,
        plan=plan,
        scenario=scenario,
        tools=tools,
        console=console,
        flow_state=flow_state,
        redaction=redaction,
        limits=limits,
        web_ui=web,
    )
