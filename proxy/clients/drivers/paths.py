"""Where the real clients are: the drivers' argv prefixes and the fastmcp CLI that scripts/install-clients installs.

Installed clients live in `.cache/clients/` at the repository root (the folder holding pyproject.toml above this
file), or under `$BACKCHANNEL_CLIENTS` when it is set. Nothing here installs anything: a client that is not there
is None, and the caller decides whether that is a skip or a failure. The node driver runs from its installed copy
(beside its node_modules), so re-run scripts/install-clients after editing proxy/clients/drivers/node/ts_sdk.mjs.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

PY_DRIVER_MODULE = "backchannel.proxy.clients.drivers.py_sdk"


def repo_root() -> Path | None:
    """The checkout this module runs from (editable installs link back into it), or None for a wheel install."""
    for folder in Path(__file__).resolve().parents:
        if (folder / "pyproject.toml").is_file():
            return folder
    return None


def clients_dir() -> Path | None:
    """`$BACKCHANNEL_CLIENTS`, else `<repository>/.cache/clients`."""
    override = os.environ.get("BACKCHANNEL_CLIENTS")
    if override:
        return Path(override)
    root = repo_root()
    return root / ".cache" / "clients" if root else None


def node_driver() -> list[str] | None:
    """`["node", ".../node/ts_sdk.mjs"]` when the TypeScript SDK driver and its packages are installed."""
    base = clients_dir()
    if base is None or shutil.which("node") is None:
        return None
    script = base / "node" / "ts_sdk.mjs"
    sdk = base / "node" / "node_modules" / "@modelcontextprotocol" / "client" / "package.json"
    return ["node", str(script)] if script.is_file() and sdk.is_file() else None


def fastmcp() -> str | None:
    """The `fastmcp` CLI in its own venv, when installed."""
    base = clients_dir()
    if base is None:
        return None
    cli = base / "fastmcp" / "bin" / "fastmcp"
    return str(cli) if cli.is_file() and os.access(cli, os.X_OK) else None


def py_driver() -> list[str]:
    """The Python SDK driver runs on this interpreter, whose `mcp` is the project's own dependency."""
    return [sys.executable, "-m", PY_DRIVER_MODULE]
