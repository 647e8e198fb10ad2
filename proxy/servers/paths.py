"""Where the real servers are: the argv that starts the TypeScript SDK server scripts/install-clients installs.

It lives beside the installed clients (`.cache/clients/node-server/`, or under `$BACKCHANNEL_CLIENTS`), found by the
same `clients_dir()` the client drivers use. Nothing here installs anything: a server that is not there is None,
and the caller decides what that means. The server runs from its installed copy (beside its node_modules), so
re-run scripts/install-clients after editing proxy/servers/node/ts_sdk_server.mjs.
"""

from __future__ import annotations

import shutil

from backchannel.proxy.clients.drivers.paths import clients_dir

NODE_SERVER_DIR = "node-server"
NODE_SERVER_SCRIPT = "ts_sdk_server.mjs"


def node_server() -> list[str] | None:
    """`["node", ".../node-server/ts_sdk_server.mjs"]` when the TypeScript SDK server and its packages are installed."""
    base = clients_dir()
    if base is None or shutil.which("node") is None:
        return None
    folder = base / NODE_SERVER_DIR
    script = folder / NODE_SERVER_SCRIPT
    sdk = folder / "node_modules" / "@modelcontextprotocol" / "server" / "package.json"
    return ["node", str(script)] if script.is_file() and sdk.is_file() else None
