"""The toy agent's URL-first builds: the same call (and the same flaws) behind shapes whose call surface the help
alone does not show, so discovery is proved on each class of real CLI that hides it.

- `url-tools`: a CLI generated from the server. `--url URL` comes first; its commands are the server's tools, named
  dashed, listed by `--url URL tools` and by `--url URL --help`, each read from the server's own `tools/list`.
- `url-list`: `--server-url URL --list` prints the server's tools; `--server-url URL TOOL [ARGS_JSON]` calls one.
- `url-help`: `-h`, `--help` and `help` all fail (exit 2) until the URL is given: `URL --help` connects and shows
  the commands (`URL tools-call NAME [ARGS_JSON]`, `URL tools-list`).
- `connect`: a session CLI. `connect SERVER_URL` opens a session (kept in the lab HOME), `call TOOL [ARGS_JSON]`
  calls over it; `call` before `connect` fails.
Called any other way they fail with a usage error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from backchannel.proxy.clients import toy_agent_wire as wire
from backchannel.proxy.clients.toy_agent_core import (
    DEFAULT_CAPABILITIES,
    HEADER,
    HELP_WORDS,
    PROG,
    URL_FIRST,
    Agent,
    Build,
    UsageError,
    call_tool,
    on_the_wire,
    run_call,
)

SESSION_FILE = Path(".backchannel-toy-agent") / "session.json"

URL_TOOLS_HELP = f"""usage: {PROG} [--variant NAME] --url URL COMMAND [OPTIONS]

A command-line client generated from a remote MCP server: its commands are the server's tools.

options:
  --url URL       The MCP server's Streamable HTTP URL (required before every server command)

commands:
  tools           List the server's tools as commands (needs --url)
  version         Print the version and this build's flaws
  help            Show this help (also -h, --help)
"""
URL_LIST_HELP = f"""usage: {PROG} [--variant NAME] --server-url URL [--list] [COMMAND [ARGS_JSON]]

Run one of a remote MCP server's tools as a command. COMMAND is the name of one of the server's tools (--list
shows them); ARGS_JSON is a JSON object of its arguments (default {{}}).

options:
  --server-url URL  The MCP server's Streamable HTTP URL (required)
  --list            List the server's tools and exit
  -h, --help        Show this help
"""
URL_HELP_REFUSAL = "the server URL comes first; try: {prog} <server-url> --help"
URL_HELP = f"""usage: {PROG} <server-url> COMMAND ...

Commands for the MCP server {{server}} at {{url}}:
  tools-list                List this server's tools
  tools-call NAME [ARGS_JSON]
                            Call the tool NAME of this server with ARGS_JSON (default {{{{}}}}) and print its result
  --help                    Show this help
"""
CONNECT_HELP = f"""usage: {PROG} [--variant NAME] COMMAND ...

A session client: connect once, then call tools on the connected server.

commands:
  connect SERVER_URL      Open a session with a remote MCP server (kept in ~/{SESSION_FILE})
  tools                   List the tools of the connected server
  call TOOL [ARGS_JSON]   Call a tool on the connected server and print its result
  disconnect              Forget the session
  help                    Show this help (also -h, --help)
"""


__all__ = ["URL_FIRST", "dispatch_url_first"]


def dispatch_url_first(build: Build, args: list[str]) -> int:
    """The command line of a URL-first build (after the global options)."""
    header = HEADER.format(version=wire.CLIENT_VERSION, variant=f"--variant {build.variant}", flaws=build.flaws())
    if build.variant == "url-tools":
        return _url_tools(build, args, header)
    if build.variant == "url-list":
        return _url_list(build, args, header)
    if build.variant == "url-help":
        return _url_help(build, args)
    return _connect(build, args, header)


def _connection(build: Build, url: str) -> wire.Connection:
    try:
        conn = wire.Connection(url, DEFAULT_CAPABILITIES)
    except ValueError as exc:
        raise UsageError(f"server URL: {exc}") from exc
    conn.connect("auto")
    return conn


def _tools(conn: wire.Connection) -> list[tuple[str, str]]:
    """The server's tools (name, first line of its description), from its own tools/list."""
    listed = conn.request("tools/list", {}).get("tools")
    out = []
    for tool in listed if isinstance(listed, list) else ():
        if isinstance(tool, dict) and isinstance(tool.get("name"), str):
            about = str(tool.get("description") or "").strip().splitlines()
            out.append((tool["name"], about[0] if about else ""))
    return out


def _table(rows: list[tuple[str, str]]) -> str:
    return "".join(f"  {name:<22}  {about}\n" for name, about in rows)


def _listed(conn: wire.Connection, title: str = "") -> int:
    """Print the server's tools under `title`; exit 0."""
    print(f"{title}{_table(_tools(conn))}", end="")
    return 0


def _url_tools(build: Build, args: list[str], header: str) -> int:
    if not args or args[0] in HELP_WORDS:
        print(f"{header}\n{URL_TOOLS_HELP}", end="")
        return 0
    if args[0] != "--url" or len(args) < 2:
        raise UsageError("--url URL comes first (every command is one of the server's tools)")
    url, rest = args[1], args[2:]

    def work() -> int:
        conn = _connection(build, url)
        tools = _tools(conn)
        commands = {name.replace("_", "-"): name for name, _ in tools}
        listing = [(name.replace("_", "-"), about) for name, about in tools]
        if not rest or rest[0] in HELP_WORDS or rest[0] == "tools":
            usage = "" if rest[:1] == ["tools"] else f"usage: {PROG} --url URL COMMAND [--repo NAME]\n\n"
            print(f"{usage}tool commands of this server:\n{_table(listing)}", end="")
            return 0
        tool = commands.get(rest[0])
        if tool is None:
            raise UsageError(f"{rest[0]!r} is not a tool of this server; '--url URL tools' lists them")
        repo = "demo"
        if rest[1:2] == ["--repo"] and len(rest) == 3:
            repo = rest[2]
        elif rest[1:]:
            raise UsageError(f"usage: {PROG} --url URL {rest[0]} [--repo NAME]")
        return call_tool(conn, Agent(build), tool, {"repo": repo})

    return on_the_wire(Agent(build), work)


def _url_list(build: Build, args: list[str], header: str) -> int:
    if not args or any(a in ("-h", "--help") for a in args):
        print(f"{header}\n{URL_LIST_HELP}", end="")
        return 0
    if args[0] != "--server-url" or len(args) < 2:
        raise UsageError("--server-url URL is required, first")
    url, rest = args[1], args[2:]
    if rest == ["--list"]:
        return on_the_wire(Agent(build), lambda: _listed(_connection(build, url), "tools:\n"))
    if not 1 <= len(rest) <= 2 or rest[0].startswith("-"):
        raise UsageError(f"usage: {PROG} --server-url URL (--list | COMMAND [ARGS_JSON])")
    return run_call(build, url, rest[0], rest[1] if len(rest) > 1 else None)


def _url_help(build: Build, args: list[str]) -> int:
    if not args or args[0].startswith("-") or "://" not in args[0]:
        raise UsageError(URL_HELP_REFUSAL.format(prog=PROG))
    url, rest = args[0], args[1:]
    if not rest or rest[0] in ("--help", "-h"):

        def show() -> int:
            conn = _connection(build, url)
            print(URL_HELP.format(server=json.dumps(conn.server_name or "unnamed"), url=url), end="")
            return 0

        return on_the_wire(Agent(build), show)
    if rest == ["tools-list"]:
        return on_the_wire(Agent(build), lambda: _listed(_connection(build, url)))
    if rest[0] == "tools-call" and 2 <= len(rest) <= 3:
        return run_call(build, url, rest[1], rest[2] if len(rest) > 2 else None)
    raise UsageError(f"usage: {PROG} <server-url> tools-call NAME [ARGS_JSON]")


def _session_path() -> Path:
    return Path(os.environ.get("HOME") or Path.home()) / SESSION_FILE


def _connect(build: Build, args: list[str], header: str) -> int:
    if not args or args[0] in HELP_WORDS:
        print(f"{header}\n{CONNECT_HELP}", end="")
        return 0
    command, rest = args[0], args[1:]
    if command == "connect":
        if len(rest) != 1:
            raise UsageError(f"usage: {PROG} connect SERVER_URL")

        def open_session() -> int:
            conn = _connection(build, rest[0])
            state = {"url": conn.url, "era": conn.era, "version": conn.version, "session_id": conn.session_id}
            path = _session_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({**state, "server": conn.server_name}), encoding="utf-8")
            print(f"connected to {conn.server_name or 'an unnamed server'} at {conn.url}")
            return 0

        return on_the_wire(Agent(build), open_session)
    if command == "disconnect":
        _session_path().unlink(missing_ok=True)
        return 0
    if command not in ("call", "tools"):
        raise UsageError(f"unknown command {command!r}")
    conn = _resumed(build)
    if conn is None:
        Agent(build).complain(f"not connected; run '{PROG} connect SERVER_URL' first")
        return 1
    if command == "tools":
        return on_the_wire(Agent(build), lambda: _listed(conn))
    if not 1 <= len(rest) <= 2:
        raise UsageError(f"usage: {PROG} call TOOL [ARGS_JSON]")
    try:
        arguments = json.loads(rest[1]) if len(rest) > 1 else {}
    except ValueError:
        arguments = None
    if not isinstance(arguments, dict):
        raise UsageError("ARGS_JSON must be a JSON object")
    return on_the_wire(Agent(build), lambda: call_tool(conn, Agent(build), rest[0], arguments))


def _resumed(build: Build) -> wire.Connection | None:
    """The connection the session file holds, without a new handshake; None when there is none."""
    try:
        state = json.loads(_session_path().read_text(encoding="utf-8"))
        conn = wire.Connection(str(state["url"]), DEFAULT_CAPABILITIES)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    conn.era = "legacy" if state.get("era") == "legacy" else "modern"
    conn.version = str(state.get("version") or conn.version)
    conn.session_id = state.get("session_id") if isinstance(state.get("session_id"), str) else None
    conn.server_name = state.get("server") if isinstance(state.get("server"), str) else None
    return conn
