"""The placeholders a client command line may hold, expanded for each run.

- `{url}`: the run's URL on the proxy (HTTP clients);
- `{stdio-cmd}`: the command line of `backchannel bridge <run URL>`, one shell-quoted string (a stdio client spawns
  it as its server: everything still goes through the proxy);
- `{stdio-argv}`: the same command line as a JSON array;
- `{mcp-config}`: the path of a JSON MCP configuration written into the lab's HOME with one server entry pointing
  at the run (HTTP `url`, or `command`/`args` of the bridge with `--transport stdio`), in the shape
  `--mcp-config-format` names. `--mcp-config-file REL` also writes it at REL inside the lab's HOME, for a host that
  reads its configuration from a fixed file. Files in HOME are recorded with the run, so the recording shows what
  the host was given.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

PLACEHOLDERS = ("{url}", "{stdio-cmd}", "{stdio-argv}", "{mcp-config}")
# mcpServers: Claude Desktop, Cursor, Windsurf and most CLI hosts; mcpServers-typed: the same with "type" (Claude
# Code's .mcp.json); servers: VS Code's mcp.json ("servers", each with "type")
MCP_CONFIG_FORMATS = ("mcpServers", "mcpServers-typed", "servers")
TRANSPORTS = ("http", "stdio")
CONFIG_IN_HOME = ".backchannel/mcp.json"


class PlaceholderError(ValueError):
    """A configuration option that cannot be honoured (the message says which and why)."""


@dataclass(frozen=True)
class McpConfigOptions:
    """How `{mcp-config}` (and `--mcp-config-file`) describe the run's server to a host."""

    format: str = "mcpServers"
    transport: str = "http"
    home_file: str | None = None  # also written here, relative to the lab's HOME

    def __post_init__(self) -> None:
        if self.format not in MCP_CONFIG_FORMATS:
            raise PlaceholderError(
                f"unknown --mcp-config-format {self.format!r}; valid: {', '.join(MCP_CONFIG_FORMATS)}"
            )
        if self.transport not in TRANSPORTS:
            raise PlaceholderError(f"unknown --transport {self.transport!r}; valid: {', '.join(TRANSPORTS)}")
        if self.home_file is not None:
            relative = PurePosixPath(self.home_file)
            if relative.is_absolute() or ".." in relative.parts or not relative.parts or self.home_file.endswith("/"):
                raise PlaceholderError(
                    f"--mcp-config-file {self.home_file!r} must be a file path inside the lab's HOME (relative, no ..)"
                )


def bridge_argv(url: str) -> list[str]:
    """`backchannel bridge URL` on this interpreter, run as its own module: the stdio server a stdio client spawns
    for the run (the same command as the CLI's, without loading the whole CLI: about 2.5 s less per spawn). Imported
    here: only a stdio run needs the bridge, and every check imports this module."""
    from backchannel.proxy.bridge.command import standalone_argv

    return standalone_argv(url)


def server_entry(url: str, options: McpConfigOptions) -> dict[str, Any]:
    """One server's entry: where the host reaches the run, in the chosen shape."""
    typed = options.format != "mcpServers"
    if options.transport == "stdio":
        command, *args = bridge_argv(url)
        entry: dict[str, Any] = {"command": command, "args": args}
        return {"type": "stdio", **entry} if typed else entry
    return {"type": "http", "url": url} if typed else {"url": url}


def config_document(name: str, url: str, options: McpConfigOptions) -> dict[str, Any]:
    key = "servers" if options.format == "servers" else "mcpServers"
    return {key: {name: server_entry(url, options)}}


def write_config(home: Path, name: str, url: str, options: McpConfigOptions) -> Path:
    """Write the configuration into HOME (and at `home_file`); returns the path `{mcp-config}` stands for."""
    text = json.dumps(config_document(name, url, options), indent=2) + "\n"
    paths = [home / CONFIG_IN_HOME]
    if options.home_file is not None:
        paths.append(home / options.home_file)
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.write_text(text, encoding="utf-8")
    return paths[0]


def names_the_server(argv: Sequence[str], options: McpConfigOptions | None = None) -> bool:
    """Whether the client is told where the server is: a placeholder in its command line, or a configuration file
    written where the host reads it (`--mcp-config-file`)."""
    if options is not None and options.home_file is not None:
        return True
    return any(placeholder in part for part in argv for placeholder in PLACEHOLDERS)


def expand(
    argv: Sequence[str], *, url: str, home: Path, server_name: str, options: McpConfigOptions | None = None
) -> list[str]:
    """The command line with every placeholder replaced for one run; the configuration file is written when
    `{mcp-config}` is used or `home_file` asks for it."""
    options = options or McpConfigOptions()
    config: Path | None = None
    if options.home_file is not None:
        config = write_config(home, server_name, url, options)
    out = []
    for part in argv:
        if "{mcp-config}" in part and config is None:
            config = write_config(home, server_name, url, options)
        part = part.replace("{stdio-cmd}", shlex.join(bridge_argv(url)))
        part = part.replace("{stdio-argv}", json.dumps(bridge_argv(url)))
        part = part.replace("{mcp-config}", str(config)) if config is not None else part
        out.append(part.replace("{url}", url))
    return out
