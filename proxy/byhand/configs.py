"""Paste-ready configurations for a by-hand lab's stable URL, one file per form a host reads.

The JSON forms are the `{mcp-config}` documents (proxy/run/placeholders.py), so a host is told the same thing by
hand as a `check --client` run is told; the TOML form is what some CLIs read (`[mcp_servers.NAME]`); the stdio form
spawns `backchannel bridge URL` for hosts that only start processes (everything still goes through the proxy).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from backchannel.proxy.run.placeholders import McpConfigOptions, bridge_argv, config_document

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Config:
    file: str  # its file name in the folder
    label: str  # which hosts read it, said once
    text: str


def _toml_string(value: str) -> str:
    # a TOML basic string is JSON's string syntax for everything we can put in it
    return json.dumps(value, ensure_ascii=False)


def toml_document(name: str, url: str) -> str:
    key = name if _BARE_KEY.fullmatch(name) else _toml_string(name)
    return f"[mcp_servers.{key}]\nurl = {_toml_string(url)}\n"


def configs(name: str, url: str) -> tuple[Config, ...]:
    """Every form, for the server `name` at `url`."""

    def json_text(options: McpConfigOptions) -> str:
        return json.dumps(config_document(name, url, options), indent=2) + "\n"

    stdio_argv = bridge_argv(url)
    return (
        Config(
            "mcpServers.json",
            "Claude Desktop, Cursor, Windsurf and most desktop hosts (mcpServers)",
            json_text(McpConfigOptions()),
        ),
        Config("vscode-mcp.json", "VS Code (.vscode/mcp.json: servers)", json_text(McpConfigOptions(format="servers"))),
        Config("mcp_servers.toml", "hosts that read TOML (e.g. Codex: ~/.codex/config.toml)", toml_document(name, url)),
        Config(
            "stdio-mcpServers.json",
            "hosts that only spawn processes (stdio through backchannel bridge)",
            json_text(McpConfigOptions(transport="stdio")),
        ),
        Config("stdio-command.txt", "the stdio command line itself", shlex.join(stdio_argv) + "\n"),
    )


def write_configs(folder: Path, found: tuple[Config, ...]) -> list[Path]:
    """Write each form into `folder` (made owner-only if new); an existing file is replaced: it is this lab's."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    written = []
    for config in found:
        path = folder / config.file
        path.write_text(config.text, encoding="utf-8")
        written.append(path)
    return written
