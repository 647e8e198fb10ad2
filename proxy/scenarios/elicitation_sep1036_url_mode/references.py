"""The server scenario's committed references: its bundled conformant server, the real SDK servers
(proxy/servers/), and the broken server of the tests (tests/servers/url_elicitation_broken.py), once per switch."""

from __future__ import annotations

import sys
from pathlib import Path

from backchannel.proxy.scenarios.references import Invocation, Reference
from backchannel.proxy.servers.launch import py_server
from backchannel.proxy.servers.paths import node_server

BROKEN_SERVER = Path("tests") / "servers" / "url_elicitation_broken.py"
# every switch of the broken server (tests/servers/url_elicitation_broken.py's SWITCHES): one check each
BROKEN_SWITCHES = (
    "url-request-params",
    "url-valid",
    "decline-cancel",
    "unsupported-mode",
    "rejects-undeclared",
    "http-200",
    "bare-elicitation",
    "url-elicitation-required-error",
    "no-tool",
)


def broken(switch: str) -> Invocation:
    return lambda root: [sys.executable, str(root / BROKEN_SERVER), "--break", switch]


REFERENCES = (
    Reference("bundled", lambda _root: [], False, "the bundled conformant server (no --server)", server=True),
    Reference(
        "py-sdk", lambda _root: py_server(), False, "the Python SDK server (proxy/servers/py_sdk.py)", server=True
    ),
    Reference("ts-sdk", lambda _root: node_server(), False, "the TypeScript SDK v2 server", server=True),
    *(
        Reference(f"broken-{switch}", broken(switch), False, f"the broken server, --break {switch}", server=True)
        for switch in BROKEN_SWITCHES
    ),
)
