"""The Python SDK (`mcp` 2.x `Client`) behind the drivers' contract (see `backchannel.proxy.clients.drivers`).

Usage: python -m backchannel.proxy.clients.drivers.py_sdk (URL | --stdio-argv JSON | --mcp-config PATH) [--tool NAME]
       [--mode auto|legacy|2026-07-28] [--sampling-reply TEXT] [--root PATH]... [--add-root PATH]

`--stdio-argv '["cmd", "arg", ...]'` instead of URL: the SDK's own stdio transport spawns that command as the
server (e.g. `backchannel bridge RUN-URL`); the origin shown for its requests is then `stdio`.

`--sampling-reply TEXT`: a host whose model is a fixed stand-in. The driver then declares `sampling` (set by the
SDK when a sampling callback is given; no `tools`, no `context`), shows each sampling request fenced and attributed
like an elicitation, and answers it with TEXT. Without it the driver declares no sampling: it has no model.

Roots (opt-in; without `--root` the driver declares none, as an app that sets no callback): each `--root PATH` is
a folder exposed as a root (a file:// URI of its absolute path; `.` is the working folder); giving one sets the SDK's
`list_roots_callback`, which is what makes the SDK declare `roots` (with listChanged). `--add-root PATH` adds a folder
after the calls, as a user would: in a 2025 session the SDK announces it (`notifications/roots/list_changed`) and the
driver waits (bounded) for the server to ask again; then every tool is called once more.

With `MCP_CONFORMANCE_SCENARIO` set, the driver speaks the official conformance suite's client contract instead
(`backchannel.proxy.clients.drivers.py_sdk_conformance`): the scenario chooses the calls, the URL is the last argument.

The protocol logic (era negotiation, MRTR rounds, requestState echo, result validation) is the SDK's; this script
only chooses the answers and renders what the server asked, so a verdict on its run speaks about the SDK.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitRequestURLParams,
    ElicitResult,
    Implementation,
    ListRootsResult,
    Root,
    TextContent,
)

from backchannel.proxy.clients.drivers.py_sdk_text import (
    DRIVER_NAME,
    DRIVER_VERSION,
    MODES,
    STDIO_ORIGIN,
    answer_for,
    error_line,
    leaf,
    origin_of,
    printable,
    render_request,
    required_elicitations,
    say,
)


def stdio_server(argv_json: str) -> StdioServerParameters:
    """The server command `--stdio-argv` names: a JSON array of strings, the program first.

    Raises:
        ValueError: Not a non-empty JSON array of strings.
    """
    try:
        argv = json.loads(argv_json)
    except ValueError as exc:
        raise ValueError(f"--stdio-argv is not JSON: {exc}") from exc
    if not (isinstance(argv, list) and argv and all(isinstance(part, str) for part in argv)):
        raise ValueError("--stdio-argv must be a non-empty JSON array of strings")
    return StdioServerParameters(command=argv[0], args=argv[1:])


def configured_server(path: str, name: str | None = None) -> str | StdioServerParameters:
    """The server an MCP host configuration names, as a host reads it: `mcpServers` or `servers`, the entry called
    `name` (default: the only, or first, entry), by `url` (HTTP) or `command`/`args` (stdio). `~` is this HOME.

    Raises:
        ValueError: The file cannot be read, is not such a configuration, or has no usable entry.
    """
    file = Path(path).expanduser()
    try:
        document = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"--mcp-config {file}: {exc}") from exc
    servers = document.get("mcpServers", document.get("servers")) if isinstance(document, dict) else None
    if not isinstance(servers, dict) or not servers:
        raise ValueError(f"--mcp-config {file}: no mcpServers or servers object")
    entry = servers.get(name) if name else next(iter(servers.values()))
    if not isinstance(entry, dict):
        raise ValueError(f"--mcp-config {file}: no server entry {name or ''}".rstrip())
    if isinstance(entry.get("url"), str):
        return str(entry["url"])
    args = entry.get("args", [])
    if isinstance(entry.get("command"), str) and isinstance(args, list) and all(isinstance(a, str) for a in args):
        return StdioServerParameters(command=entry["command"], args=list(args))
    raise ValueError(f"--mcp-config {file}: the entry has neither a url nor a command with args")


# --sampling-reply: the stand-in model (kept apart from the elicitation answers above)
SAMPLING_MODEL = "backchannel-stand-in-model"


def sampling_text(params: CreateMessageRequestParams) -> str:
    """The text blocks of a sampling request's messages, one per line ([kind block] for the rest)."""
    lines: list[str] = []
    for message in params.messages:
        blocks = message.content if isinstance(message.content, list) else [message.content]
        for block in blocks:
            text = getattr(block, "text", None)
            lines.append(
                f"{message.role}: {text}" if isinstance(text, str) else f"{message.role}: [{block.type} block]"
            )
    return "\n".join(lines)


def sampling_callback(reply: str, origin: str) -> Any:
    """The sampling callback of a host whose model answers `reply` to everything, after showing the request."""

    async def on_sample(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
        info = context.session.server_info
        say(render_request(info.name if info else None, origin, "sampling", sampling_text(params), None))
        say(f"[answered: the stand-in model's reply, {len(reply)} characters]")
        content = TextContent(type="text", text=reply)
        return CreateMessageResult(role="assistant", content=content, model=SAMPLING_MODEL, stop_reason="endTurn")

    return on_sample


class Roots:
    """The roots `--root` exposes (opt-in) and `--add-root` adds mid-session; `asked` is set on each roots/list."""

    WAIT_S = 10.0  # how long, after announcing a change, the driver waits for the server to ask again

    def __init__(self, folders: Sequence[str]) -> None:
        self.folders = [Path(folder).resolve() for folder in folders]
        self.asked = asyncio.Event()

    async def on_list(self, context: ClientRequestContext) -> ListRootsResult:
        roots = [Root.model_validate({"uri": folder.as_uri(), "name": folder.name or "/"}) for folder in self.folders]
        say(f"[roots given: {', '.join(str(root.uri) for root in roots)}]")
        self.asked.set()
        return ListRootsResult(roots=roots)

    async def add(self, client: Client, folder: str) -> None:
        """Add `folder`; in a 2025 session announce it and wait (bounded) for the server to ask again."""
        self.folders.append(Path(folder).resolve())
        say(f"[root added: {self.folders[-1].as_uri()}]")
        if client.session.protocol_version not in (None, "2026-07-28"):  # 2026-07-28 has no list_changed
            self.asked.clear()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the SDK marks roots deprecated as of 2026-07-28
                await client.send_roots_list_changed()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.asked.wait(), self.WAIT_S)


async def run(
    server: str | StdioServerParameters,
    tool: str | None,
    mode: str,
    reply: str | None = None,
    roots: Sequence[str] = (),
    add_root: str | None = None,
) -> int:
    """Connect, list, call, print; 0 when every call gave a result, 1 when any failed."""
    origin = origin_of(server) if isinstance(server, str) else STDIO_ORIGIN
    exposed = Roots(roots) if roots else None

    async def on_elicit(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        # The SDK's typed view decides the mode, as it would in any app built on it: a request the SDK parses
        # as URL params is a URL request here (docs/real-clients.md: a mode-less request with a stray `url`).
        kind, link = ("url", params.url) if isinstance(params, ElicitRequestURLParams) else ("form", None)
        info = context.session.server_info
        say(render_request(info.name if info else None, origin, kind, params.message, link))
        answer = answer_for(kind, params.message)
        say(f"[answered: {answer['action']}{', content {confirmed: true}' if 'content' in answer else ''}]")
        return ElicitResult.model_validate(answer)

    failed = False
    async with Client(
        server,
        mode=mode,
        # setting the callback is what makes the SDK declare elicitation {form: {}, url: {}}
        elicitation_callback=on_elicit,
        # setting it is what makes the SDK declare sampling (only with --sampling-reply)
        sampling_callback=sampling_callback(reply, origin) if reply is not None else None,
        # set only with --root: setting it is what makes the SDK declare roots {listChanged: true}
        list_roots_callback=exposed.on_list if exposed is not None else None,
        client_info=Implementation(name=DRIVER_NAME, version=DRIVER_VERSION),
    ) as client:
        listed = [t.name for t in (await client.list_tools()).tools]

        async def attempt(name: str) -> Any:
            """One call; after a -32042 the URLs it names are shown (never opened) and the call is retried once."""
            try:
                return await client.call_tool(name, {})
            except MCPError as exc:
                required = required_elicitations(exc)
                if required is None:
                    raise
            server_name = client.server_info.name if client.server_info else None
            for each in required:
                say(render_request(server_name, origin, "url", str(each.get("message", "")), str(each.get("url"))))
            say(f"[-32042 for {printable(name)}: {len(required)} URL(s) shown, none opened; retrying the call once]")
            return await client.call_tool(name, {})

        async def call(name: str) -> bool:
            try:
                result = await attempt(name)
            except Exception as exc:  # one tool failing must not hide what the others do
                say(f"{error_line(leaf(exc))} [tool {printable(name)}]", err=True)
                return False
            for block in result.content:
                text = getattr(block, "text", None)
                say(f"result {name}: {printable(text) if isinstance(text, str) else f'[{block.type} block]'}")
            return True

        # every tool at once, as the contract allows, so servers that hold a retry open do not add up
        outcomes = await asyncio.gather(*(call(name) for name in ([tool] if tool else listed)))
        if exposed is not None and add_root is not None:
            await exposed.add(client, add_root)
            outcomes += await asyncio.gather(*(call(name) for name in ([tool] if tool else listed)))
        failed = not all(outcomes)
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    if os.environ.get("MCP_CONFORMANCE_SCENARIO"):
        # the official suite's client contract (and backchannel's `conformance` scenario): the scenario scripts the
        # calls, the URL is the last argument. Imported here because that module builds on this one.
        from backchannel.proxy.clients.drivers import py_sdk_conformance

        return py_sdk_conformance.main(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="python -m backchannel.proxy.clients.drivers.py_sdk",
        description="The Python MCP SDK as a contract driver.",
    )
    parser.add_argument("url", nargs="?", help="the MCP server's Streamable HTTP URL")
    parser.add_argument(
        "--stdio-argv", metavar="JSON", help="instead of URL: spawn this command (a JSON array) over the SDK's stdio"
    )
    parser.add_argument(
        "--mcp-config", metavar="PATH", help="instead of URL: the server an MCP host configuration file names (~: HOME)"
    )
    parser.add_argument("--server-name", help="with --mcp-config: which entry (default: the first)")
    parser.add_argument("--tool", help="call only this tool (default: every listed tool once, in order)")
    parser.add_argument("--mode", choices=MODES, default="auto", help="the SDK's era negotiation (default auto)")
    parser.add_argument(
        "--sampling-reply",
        metavar="TEXT",
        help="declare sampling and answer every request with TEXT (a stand-in model)",
    )
    parser.add_argument(
        "--root", action="append", default=[], metavar="PATH", help="expose this folder as a root (repeatable; opt-in)"
    )
    parser.add_argument("--add-root", metavar="PATH", help="with --root: add this folder after the calls, then again")
    args = parser.parse_args(argv)
    if sum(given is not None for given in (args.url, args.stdio_argv, args.mcp_config)) != 1:
        parser.error("give exactly one of URL, --stdio-argv JSON or --mcp-config PATH")
    try:
        if args.mcp_config is not None:
            server = configured_server(args.mcp_config, args.server_name)
        else:
            server = args.url if args.stdio_argv is None else stdio_server(args.stdio_argv)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        return asyncio.run(run(server, args.tool, args.mode, args.sampling_reply, args.root, args.add_root))
    except Exception as exc:  # connect or list failed: one line, like an MCP error
        say(error_line(leaf(exc)), err=True)
        return 1
    except BaseExceptionGroup as group:  # anyio may wrap a failure in a group of BaseExceptions
        say(error_line(leaf(group)), err=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
