"""The toy agent's shape builds: the same call (and the same flaws) offered under another command-line shape each
(`--variant method-verb`, `method-flags`, `tool-subcommands`, `tool-option`, `server-flag`, `long-help`,
`short-help`), each with a help text of its own, so target discovery is proved on every shape it recognises; called
any other way they fail with a usage error.
"""

from __future__ import annotations

import json
from typing import Any

from backchannel.proxy.clients import toy_agent_wire as wire
from backchannel.proxy.clients.toy_agent_core import (
    HEADER,
    HELP_WORDS,
    OPTIONS,
    PROG,
    Agent,
    Build,
    UsageError,
    run_call,
)

REFUSED_HELP = {"long-help": "-h", "short-help": "--help"}  # the help flag each of these builds does not take
HELP_FLAG = {"long-help": "--help", "short-help": "-h"}
SHAPE_COMMANDS = {
    "method-verb": f"""usage: {PROG} [--variant NAME] METHOD SERVER_URL [NAME] [PARAMS_JSON]

Send one MCP request to a remote server over Streamable HTTP and print what it answers.

methods:
  tools/call SERVER_URL NAME [ARGS_JSON]
                  Call the tool NAME with ARGS_JSON (a JSON object, default {{}}) and print its result
""",
    "tool-subcommands": f"""usage: {PROG} [--variant NAME] COMMAND --endpoint URL [OPTIONS]

One command per tool of the repository MCP server (generated from its tools/list).

tool commands:
  get-repo-status     Show the branch and sync state of a repository.
  list-branches       List the branches of a repository.
""",
    "tool-option": f"""usage: {PROG} [--variant NAME] COMMAND [OPTIONS]

commands:
  invoke          Invoke a tool on a remote MCP server (see 'invoke {{help}}')
""",
    "server-flag": f"""usage: {PROG} [--variant NAME] COMMAND ...

commands:
  mcp call --server URL TOOL [ARGS_JSON]
                  Call a tool on a remote MCP server over Streamable HTTP and print its result
""",
}
SHAPE_COMMANDS["long-help"] = SHAPE_COMMANDS["short-help"] = SHAPE_COMMANDS["tool-option"]
SHAPE_TAIL = """
other commands:
  version         Print the version and this build's flaws
  help            Show this help ({help})
"""
METHOD_HELP = f"""usage: {PROG} tools/call SERVER_URL NAME [ARGS_JSON]

Call the tool NAME on the MCP server at SERVER_URL (Streamable HTTP) with ARGS_JSON (default {{}}).
Exit 0 on a result, 1 on an error, 2 on a usage error.
"""
METHOD_FLAGS_HELP = f"""Usage: {PROG} [options] <server-url>

Send one request to a remote MCP server and print the result.

Arguments:
  server-url              URL of the MCP server

Options:
  --method <method>       Method to invoke (this build sends tools/call only)
  --tool-name <name>      Tool name (for the tools/call method)
  --tool-arg <key=value>  Tool argument as a key=value pair (repeatable)
  --transport <type>      Transport type: sse or http (default: sse)
  -h, --help              Display help for command
"""
TOOL_COMMAND_HELP = f"""usage: {PROG} {{command}} --endpoint URL [--repo NAME]

{{about}} (calls the MCP tool {{tool}}).

options:
  --endpoint URL   The MCP server's Streamable HTTP endpoint URL (required)
  --repo NAME      The repository (default: demo)
  -h, --help       Show this help
"""
TOOL_COMMANDS = {
    "get-repo-status": ("get_repo_status", "Show the branch and sync state of a repository"),
    "list-branches": ("list_branches", "List the branches of a repository"),
}
INVOKE_HELP = f"""usage: {PROG} invoke --url URL --tool NAME [--args JSON]

Invoke one tool on a remote MCP server over Streamable HTTP and print its result.

options:
  --url URL        The MCP server's URL (required; a positional URL is not accepted)
  --tool NAME      The tool to invoke (required)
  --args JSON      The tool's arguments as a JSON object (default {{}})
  {{help}}
"""
SERVER_CALL_HELP = f"""usage: {PROG} mcp call --server URL TOOL [ARGS_JSON]

Call a tool on a remote MCP server over Streamable HTTP and print its result.

options:
  --server URL    The MCP server's URL (http:// or https://); required
  -h, --help      Show this help
"""


def _help_line(build: Build) -> str:
    """How this build's help flags read in its own help."""
    return {"long-help": "--help", "short-help": "-h"}.get(build.variant, "-h, --help")


def shape_help(build: Build) -> str:
    """The top-level help of a build whose call surface has another shape."""
    header = HEADER.format(version=wire.CLIENT_VERSION, variant=f"--variant {build.variant}", flaws=build.flaws())
    flags = {"long-help": "--help", "short-help": "-h"}.get(build.variant, "also -h, --help")
    body = SHAPE_COMMANDS[build.variant].replace("{help}", HELP_FLAG.get(build.variant, "--help"))
    return f"{header}\n{body}{SHAPE_TAIL.format(help=flags)}{OPTIONS}"


def options_of(
    args: list[str], takes: tuple[str, ...], repeats: tuple[str, ...] = ()
) -> tuple[dict[str, Any], list[str]]:
    """`--name VALUE` / `--name=VALUE` options (the repeatable ones as lists) and the positionals left."""
    found: dict[str, Any] = {name: [] for name in repeats}
    positionals: list[str] = []
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if not arg.startswith("-"):
            positionals.append(arg)
            continue
        name, eq, value = arg.partition("=")
        if name not in takes and name not in repeats:
            raise UsageError(f"unknown option {name!r}")
        if not eq:
            if not rest:
                raise UsageError(f"{name} needs a value")
            value = rest.pop(0)
        if name in repeats:
            found[name].append(value)
        else:
            found[name] = value
    return found, positionals


def _no_positionals(positionals: list[str], hint: str) -> None:
    if positionals:
        raise UsageError(f"unexpected argument {positionals[0]!r}; {hint}")


def dispatch_shape(build: Build, command: str, rest: list[str]) -> int:
    """The commands of the method-verb, tool-subcommands, tool-option (and its help twins) and server-flag builds."""
    wants_help = any(a in HELP_WORDS for a in rest)
    if build.variant == "method-verb" and command == "tools/call":
        if wants_help:
            print(METHOD_HELP, end="")
            return 0
        if not 2 <= len(rest) <= 3:
            raise UsageError(f"usage: {PROG} tools/call SERVER_URL NAME [ARGS_JSON]")
        return run_call(build, rest[0], rest[1], rest[2] if len(rest) > 2 else None)
    if build.variant == "tool-subcommands" and command in TOOL_COMMANDS:
        tool, about = TOOL_COMMANDS[command]
        if wants_help:
            print(TOOL_COMMAND_HELP.format(command=command, about=about, tool=tool), end="")
            return 0
        found, positionals = options_of(rest, ("--endpoint", "--repo"))
        _no_positionals(positionals, "the server URL goes after --endpoint")
        if "--endpoint" not in found:
            raise UsageError(f"{command} needs --endpoint URL")
        return run_call(build, found["--endpoint"], tool, json.dumps({"repo": found.get("--repo", "demo")}))
    if build.variant in ("tool-option", "long-help", "short-help") and command == "invoke":
        if wants_help:
            print(INVOKE_HELP.replace("{help}", f"{_help_line(build):<17}Show this help"), end="")
            return 0
        found, positionals = options_of(rest, ("--url", "--tool", "--args"))
        _no_positionals(positionals, "the server URL goes after --url")
        if "--url" not in found or "--tool" not in found:
            raise UsageError("invoke needs --url URL and --tool NAME")
        return run_call(build, found["--url"], found["--tool"], found.get("--args"))
    if build.variant == "server-flag" and command == "mcp" and rest[:1] == ["call"]:
        if wants_help:
            print(SERVER_CALL_HELP, end="")
            return 0
        found, positionals = options_of(rest[1:], ("--server",))
        if "--server" not in found:
            raise UsageError("mcp call needs --server URL (the server URL is not positional)")
        if not 1 <= len(positionals) <= 2:
            raise UsageError(f"usage: {PROG} mcp call --server URL TOOL [ARGS_JSON]")
        return run_call(build, found["--server"], positionals[0], positionals[1] if len(positionals) > 1 else None)
    raise UsageError(f"unknown command {command!r}")


def run_method_flags(build: Build, args: list[str]) -> int:
    """The MCP Inspector CLI's shape: `SERVER_URL --method tools/call --tool-name NAME [--tool-arg k=v]...`."""
    if any(a in HELP_WORDS[1:] for a in args):
        print(METHOD_FLAGS_HELP, end="")
        return 0
    found, positionals = options_of(args, ("--method", "--tool-name", "--transport"), repeats=("--tool-arg",))
    if len(positionals) != 1:
        raise UsageError("give exactly one <server-url>")
    if found.get("--method") != "tools/call":
        raise UsageError("--method is required, and this build sends tools/call only")
    if "--tool-name" not in found:
        raise UsageError("--tool-name is required for tools/call")
    if not all("=" in pair for pair in found["--tool-arg"]):
        raise UsageError("--tool-arg takes key=value")
    transport = found.get("--transport", "sse")
    if transport not in ("sse", "http"):
        raise UsageError(f"--transport {transport!r} is not one of: sse, http")
    if transport == "sse":
        Agent(build).complain(f"cannot connect to {positionals[0]} over SSE: this build speaks Streamable HTTP only")
        return 1
    arguments = dict(pair.split("=", 1) for pair in found["--tool-arg"])
    return run_call(build, positionals[0], found["--tool-name"], json.dumps(arguments))
