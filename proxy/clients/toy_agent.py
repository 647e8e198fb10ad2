"""backchannel-toy-agent: an obviously synthetic MCP client with deliberate, switchable flaws, shipped as a test target.

Flaw 1, provenance: text a server puts in an MRTR input request is printed bare, as the agent's own words, and the
directive follower, which rereads what the agent said each time it answers a round of input requests, acts on
`WRITE-MARKER <path> <token>` in it (inside $HOME or the cwd only). Fixed, that text is fenced with the server's name
and origin, and quarantined from the follower. Flaw 2, the resultType default: a result without `resultType` is
retried as unfinished three times, then the call fails. Fixed, absent means "complete".

The shape builds (`--variant method-verb`, `method-flags`, `tool-subcommands`, `tool-option`, `server-flag`,
`long-help`, `short-help`) keep the flaws but offer the call under another command-line shape, each with a help text
of its own, so discovery is proved on every shape it recognises; called any other way they fail with a usage error.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from backchannel.proxy.clients import toy_agent_wire as wire

# builds whose call surface has another shape (the last section): discovery must recognise each from its help alone
SHAPES = ("method-verb", "method-flags", "tool-subcommands", "tool-option", "server-flag", "long-help", "short-help")
VARIANTS = (
    "flawed",
    "no-call-surface",
    "legacy-only",
    "no-input-capability",
    "silent",
    "strict",
    "interactive",
    *SHAPES,
)
CONFIRM_PROMPT = "Send this answer to the server? [y/N] "
FIXES = ("provenance", "result-type")
DEFAULT_CAPABILITIES: dict[str, Any] = {"elicitation": {"form": {}}, "sampling": {}}
MAX_ROUNDS = 5
BLIND_RETRIES = 3
HELP_WORDS = ("help", "-h", "--help")

_DIRECTIVE = re.compile(r"WRITE-MARKER\s+(\S+)\s+(\S+)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

HEADER = """backchannel-toy-agent {version}: a synthetic test target shipped with backchannel. It is not a real agent:
it has deliberate, switchable flaws, and exists to be tested.
This build: {variant}; flaws present: {flaws}.
"""
USAGE = "usage: backchannel-toy-agent [--fix provenance] [--fix result-type] [--variant NAME] COMMAND ..."
MCP_CALL = """  mcp call SERVER_URL TOOL [ARGS_JSON]
                  Call a tool on a remote MCP server over Streamable HTTP and print its result
"""
COMMANDS = """  chat [TEXT]     Say something to the toy agent (it has no model; it answers with a canned line)
  version         Print the version and this build's flaws
  help            Show this help (also -h, --help)
"""
_VARIANT_LIST = "\n                      ".join(
    textwrap.wrap(f"One of: {', '.join(VARIANTS)} (default flawed)", width=92, break_on_hyphens=False)
)
OPTIONS = f"""
options:
  --fix provenance    Fence input-request text a server sends, naming the server and its origin, and never act on it
  --fix result-type   Treat a result without resultType as complete (the strict variant keeps its own rule)
  --variant NAME      {_VARIANT_LIST}

Point it only at servers you run yourself.
"""
MCP_HELP = """usage: backchannel-toy-agent mcp COMMAND ...

mcp commands:
  call SERVER_URL TOOL [ARGS_JSON]
        Call a tool on a remote MCP server over Streamable HTTP and print its result.
        ARGS_JSON is a JSON object of tool arguments (default {}). Exit 0 on a result, 1 on an error.
  help  Show this help (also -h, --help)
"""


class UsageError(Exception):
    """The command line asked for something the toy agent does not offer; exit 2."""


class InvalidResult(Exception):
    """A tools/call result the toy agent refuses to read."""


@dataclass(frozen=True)
class Build:
    """Which flaws this run of the toy agent has; `absent_result_type` is what a result without one means."""

    variant: str
    provenance_fixed: bool
    absent_result_type: Literal["retry", "complete", "strict"]
    ui_flaws: frozenset[str] = frozenset()  # the `ui` command's flaws (`--ui-flaw`); none by default

    @classmethod
    def of(
        cls, variant: str = "flawed", fixes: frozenset[str] = frozenset(), ui_flaws: frozenset[str] = frozenset()
    ) -> Build:
        absent: Literal["retry", "complete", "strict"] = "complete" if "result-type" in fixes else "retry"
        absent = "strict" if variant == "strict" else absent
        return cls(variant, "provenance" in fixes or variant == "strict", absent, ui_flaws)

    def flaws(self) -> str:
        present = {"provenance": not self.provenance_fixed, "result-type": self.absent_result_type == "retry"}
        present.update({f"ui:{name}": True for name in UI_FLAWS if name in self.ui_flaws})
        return ", ".join(name for name, flawed in present.items() if flawed) or "none"


class Agent:
    """The toy agent's voice, its context and transcript, and the directive follower that reads that context."""

    def __init__(self, build: Build) -> None:
        self.build = build
        self.quiet = build.variant == "silent"
        self.context: list[str] = []
        self._followed = 0
        self.home = Path(os.environ.get("HOME") or Path.home())
        self.transcript = self.home / ".toy-agent" / "transcript.log"

    def say(self, line: str, *, quarantined: bool = False) -> None:
        """Print a line, log it to the transcript, and (unless quarantined) make it part of the agent's context."""
        if not quarantined:
            self.context.append(line)
        if self.quiet:
            return
        print(line, flush=True)
        try:
            self.transcript.parent.mkdir(parents=True, exist_ok=True)
            with self.transcript.open("a", encoding="utf-8") as log:
                log.write(line + "\n")
        except OSError as exc:
            self.complain(f"cannot write the transcript {self.transcript}: {exc}", prefix="warning")

    def complain(self, message: str, prefix: str = "error") -> None:
        """One line on stderr, unless silent."""
        if not self.quiet:
            print(f"{prefix}: {message}", file=sys.stderr, flush=True)

    def show_server_text(self, method: str, text: str, server: str | None, origin: str) -> None:
        """Render text a server chose: bare (flawed) or fenced and quarantined (fixed)."""
        lines = text.splitlines()
        if not self.build.provenance_fixed:
            for line in lines:
                self.say(line)
            return
        name = json.dumps(server or "unnamed", ensure_ascii=False)
        self.say(
            f"[input request ({method}) from MCP server {name} at {origin} — untrusted server-supplied text follows]",
            quarantined=True,
        )
        for line in lines:
            self.say("  │ " + _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", line), quarantined=True)
        self.say("[end of server text]", quarantined=True)

    def follow_directives(self) -> None:
        """Act on WRITE-MARKER directives in context lines not yet read, inside $HOME or the working directory only."""
        fresh, self._followed = self.context[self._followed :], len(self.context)
        roots = [self.home.resolve(), Path.cwd().resolve()]
        for line in fresh:
            for raw, token in _DIRECTIVE.findall(line):
                target = (Path.cwd() / Path(raw).expanduser()).resolve()
                if not any(target.is_relative_to(root) for root in roots):
                    self.say(f"refused: {target} is outside $HOME and the working directory; not writing it")
                    continue
                try:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(token, encoding="utf-8")
                except OSError as exc:
                    self.say(f"failed: could not write {target}: {exc.strerror or exc}")
                else:
                    self.say(f"done: wrote the marker to {target}")

    def answers_sent(self) -> None:
        """A tools/call carrying this agent's answers (if any) has gone out and been answered; nothing to do here."""

    def confirmed(self) -> bool:
        """The interactive build asks its user at the terminal (or whatever stdin is): only `y` sends the answer."""
        print(CONFIRM_PROMPT, end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            print("(end of input: declined)", flush=True)
        return line.strip().lower() in ("y", "yes")

    def answer(self, requests: dict[str, Any], server: str | None, origin: str) -> dict[str, Any]:
        """The inputResponses for one round of input requests, rendering what the server asked along the way."""
        responses: dict[str, Any] = {}
        for key, request in requests.items():
            method, params = (request.get("method"), request.get("params")) if isinstance(request, dict) else (0, 0)
            params = params if isinstance(params, dict) else {}
            if method == "elicitation/create":
                url = f"\n{params.get('url', '')}" if params.get("mode") == "url" else None
                self.show_server_text(method, str(params.get("message", "")) + (url or ""), server, origin)
                content = {"content": wire.form_content(params.get("requestedSchema"))} if url is None else {}
                if self.build.variant == "interactive" and not self.confirmed():
                    responses[key] = {"action": "decline"}
                    continue
                responses[key] = {"action": "accept", **content}
            elif method == "sampling/createMessage":
                self.show_server_text(method, "\n".join(wire.sampling_text(params.get("messages"))), server, origin)
                responses[key] = dict(wire.SAMPLING_ANSWER)
            elif method == "roots/list":
                responses[key] = {"roots": []}
            else:
                self.complain(f"ignoring input request {key!r}: unsupported method {method!r}", prefix="warning")
        self.follow_directives()
        return responses


def classify(result: dict[str, Any], era: str, build: Build) -> Literal["complete", "input_required", "unfinished"]:
    """What a tools/call result means to this build; raises InvalidResult for one it refuses to read."""
    if "resultType" not in result:
        if build.absent_result_type == "retry":
            return "unfinished"
        if build.absent_result_type == "strict" and era == "modern":
            raise InvalidResult("resultType missing (2026-07-28 servers must send it)")
        return "complete"
    kind = result["resultType"]
    if kind == "complete":
        return "complete"
    if kind == "input_required" and era == "modern" and build.variant != "legacy-only":
        if not isinstance(result.get("inputRequests", {}), dict):
            raise InvalidResult("inputRequests is not an object")
        return "input_required"
    raise InvalidResult(f"unknown resultType {json.dumps(kind)} on a {era} connection")


def call_tool(
    conn: wire.Connection,
    agent: Agent,
    tool: str,
    arguments: dict[str, Any],
    show: Callable[[Agent, dict[str, Any]], int] | None = None,
) -> int:
    """Call `tool` until it completes, answering input requests (MRTR) and, when flawed, blindly retrying."""
    extra: dict[str, Any] = {}
    rounds = retries = 0
    while True:
        result = conn.request("tools/call", {"name": tool, "arguments": arguments, **extra})
        agent.answers_sent()
        server = conn.note_server(result)
        try:
            kind = classify(result, conn.era, agent.build)
        except InvalidResult as exc:
            agent.complain(f"invalid result: {exc}")
            return 1
        if kind == "unfinished":
            if retries == BLIND_RETRIES:
                agent.complain("the server never finished the call")
                return 1
            retries, extra = retries + 1, {}
        elif kind == "input_required":
            if rounds == MAX_ROUNDS:
                agent.complain(f"the server still wanted input after {MAX_ROUNDS} rounds; giving up")
                return 1
            rounds += 1
            requests = result.get("inputRequests")
            extra = {"inputResponses": agent.answer(requests, server, conn.origin)} if requests is not None else {}
            if "requestState" in result:
                extra["requestState"] = result["requestState"]
        else:
            return (show or show_result)(agent, result)


def show_result(agent: Agent, result: dict[str, Any]) -> int:
    """Print a complete result's content; the exit code says whether the tool reported an error."""
    content = result.get("content")
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "text":
            agent.say(f"result: {block.get('text', '')}")
        else:
            agent.say(f"result: [{block.get('type') if isinstance(block, dict) else 'unreadable'} content]")
    return 1 if result.get("isError") is True else 0


def run_call(build: Build, url: str, tool: str, raw_args: str | None) -> int:
    """The `mcp call` command."""
    try:
        arguments = json.loads(raw_args or "{}")
    except ValueError:
        arguments = None
    if not isinstance(arguments, dict):
        raise UsageError(f'ARGS_JSON must be a JSON object such as \'{{"repo": "demo"}}\', not {raw_args!r}')
    try:
        conn = wire.Connection(url, {} if build.variant == "no-input-capability" else DEFAULT_CAPABILITIES)
    except ValueError as exc:
        raise UsageError(f"SERVER_URL: {exc}") from exc
    agent = Agent(build)
    try:
        conn.connect("legacy" if build.variant == "legacy-only" else "auto")
        return call_tool(conn, agent, tool, arguments)
    except wire.RpcFailure as exc:
        agent.complain(f"{exc.code} {exc.message}")
    except wire.WireError as exc:
        agent.complain(str(exc))
    return 1


def help_text(build: Build) -> str:
    """The top-level help, which for no-call-surface mentions no way to reach a server at all."""
    if build.variant == "no-call-surface":  # not even the variant's own name may hint at a call command
        header = HEADER.format(version=wire.CLIENT_VERSION, variant="chat and version only", flaws=build.flaws())
        return f"{header}\n{USAGE}\n\ncommands:\n{COMMANDS}"
    header = HEADER.format(version=wire.CLIENT_VERSION, variant=f"--variant {build.variant}", flaws=build.flaws())
    return f"{header}\n{USAGE}\n\ncommands:\n{MCP_CALL}{COMMANDS}  mcp help        List the mcp subcommands\n{OPTIONS}"


def parse_globals(argv: list[str]) -> tuple[Build, list[str]]:
    """The build the leading options ask for, and the rest of the command line."""
    variant, fixes, ui_flaws, args = "flawed", set(), set(), list(argv)
    while args and args[0].split("=")[0] in ("--fix", "--variant", "--ui-flaw"):
        option, _, value = args.pop(0).partition("=")
        value = value or (args.pop(0) if args else "")
        allowed = {"--fix": FIXES, "--variant": VARIANTS, "--ui-flaw": UI_FLAWS}[option]
        if value not in allowed:
            raise UsageError(f"{option} {value!r} is not one of: {', '.join(allowed)}")
        if option == "--fix":
            fixes.add(value)
        elif option == "--ui-flaw":
            ui_flaws.add(value)
        else:
            variant = value
    return Build.of(variant, frozenset(fixes), frozenset(ui_flaws)), args


def dispatch(build: Build, args: list[str]) -> int:
    """Run one command line (after the global options)."""
    if build.variant == "method-flags":  # no commands at all: SERVER_URL and options
        return run_method_flags(build, args)
    if not args:
        raise UsageError("no command given")
    command, rest = args[0], args[1:]
    refused = REFUSED_HELP.get(build.variant)
    if refused is not None and refused in args:
        raise UsageError(f"unknown option {refused!r} (this build's help flag is {HELP_FLAG[build.variant]})")
    if command in HELP_WORDS and build.variant in SHAPES:
        print(shape_help(build), end="")
        return 0
    if command in HELP_WORDS:
        print(help_text(build), end="")
        return 0
    if command in ("version", "chat"):
        version = (
            f"{wire.CLIENT_NAME} {wire.CLIENT_VERSION} (synthetic test target; {build.variant}; flaws: {build.flaws()})"
        )
        print(version if command == "version" else "toy-agent: I have no model; I am a synthetic test target.")
        return 0
    if command == "ui" and build.variant not in (*SHAPES, "no-call-surface"):
        return run_ui(build, rest)
    if build.variant in SHAPES:
        return dispatch_shape(build, command, rest)
    if command != "mcp" or build.variant == "no-call-surface":
        raise UsageError(f"unknown command {command!r}")
    if not rest:
        raise UsageError("mcp needs a subcommand; try 'mcp help'")
    if rest[0] in HELP_WORDS or (rest[0] == "call" and any(a in HELP_WORDS for a in rest[1:])):
        print(MCP_HELP, end="")
        return 0
    if rest[0] != "call":
        raise UsageError(f"unknown mcp subcommand {rest[0]!r}; try 'mcp help'")
    if not 2 <= len(rest) - 1 <= 3:
        raise UsageError("usage: backchannel-toy-agent mcp call SERVER_URL TOOL [ARGS_JSON]")
    return run_call(build, rest[1], rest[2], rest[3] if len(rest) > 3 else None)


# --- the other call-surface shapes, one build each ----------------------------------------------------------------

REFUSED_HELP = {"long-help": "-h", "short-help": "--help"}  # the help flag each of these builds does not take
HELP_FLAG = {"long-help": "--help", "short-help": "-h"}
PROG = wire.CLIENT_NAME
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


# --- UI mode: a careful terminal client for the elicitation-ui scenario, and one flawed build per check ----------

UI_FLAWS = (
    "hide-url",
    "hide-host",  # neither the URL nor its host (the host is inside the URL: it cannot be hidden alone)
    "show-url-after-consent",
    "open-at-once",
    "open-declined",
    "no-punycode-warning",
    "auto-accept",
    "no-decline-option",
    "osc8-links",
    "raw-escapes",
    "no-server-name",  # the fence says a server asks, not which one
)
UI_CAPABILITIES: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}}
OPEN_PROMPT = "Open this URL in your browser? [y]es / [n]o (decline) / [c]ancel: "
OPEN_PROMPT_NO_DECLINE = "Open this URL in your browser? [y]: "
SEND_PROMPT = "Send? [y]es / [e]dit / [n]o (decline) / [c]ancel: "
SEND_PROMPT_NO_DECLINE = "Send? [y]: "
FIELD_PROMPT = "{name} ({hint}) [enter to review]: "
PUNYCODE_WARNING = "WARNING: the host is Punycode (xn--): it may imitate another name"
MAX_TOOL_PAGES = 10
LATE_URL_DELAY_S = 1.0  # show-url-after-consent waits this long after the answer left, so no harness can misorder it
UI_HELP = f"""usage: {PROG} [--ui-flaw NAME]... ui SERVER_URL

List the tools of the MCP server at SERVER_URL (Streamable HTTP) and call each once, as a careful terminal client:
every elicitation names the server and its origin and shows its message fenced, with control characters escaped.
A URL-mode request shows the full URL and its host (with a warning for a Punycode host) and asks before opening
it with xdg-open; a form-mode request asks for each field, then shows a review and asks before sending.
Exit 0 when every tool returned a result that is not an error, 1 otherwise.

options:
  --ui-flaw NAME  Build in one flaw (repeatable). One of: {", ".join(UI_FLAWS[:3])},
                  {", ".join(UI_FLAWS[3:6])},
                  {", ".join(UI_FLAWS[6:])} (default: none)
  -h, --help      Show this help

Point it only at servers you run yourself.
"""

_BIDI = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# a URL standing alone between spaces: one glued to (escaped) control characters is never linked
_LINK = re.compile(r"(?<!\S)https?://[^\s<>\"'`\\]+(?=\s|$)")
Choice = Literal["accept", "decline", "cancel", "edit"]


def neutralise(text: str) -> str:
    """`text` with every control character (C0 but tab, DEL, C1) and bidi control spelled out as `\\xNN`/`\\uNNNN`."""
    text = re.sub(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]", lambda m: f"\\x{ord(m.group()):02x}", text)
    return _BIDI.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def osc8(text: str) -> str:
    """The URLs in `text` as OSC 8 hyperlinks (what the osc8-links build does, and a careful client must not)."""

    def link(match: re.Match[str]) -> str:
        url = match.group().rstrip(".,;:)")
        return f"\x1b]8;;{url}\x1b\\{url}\x1b]8;;\x1b\\{match.group()[len(url) :]}"

    return _LINK.sub(link, text)


def host_of(url: str) -> str:
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def is_punycode(host: str) -> bool:
    return any(label.startswith("xn--") for label in host.lower().split("."))


def field_hint(prop: dict[str, Any]) -> str:
    """How a field's prompt says what it takes: its choices, `true/false`, or its type."""
    options = _choices(prop)
    if options:
        return "/".join(str(o) for o in options)
    kind = prop.get("type")
    names = {"boolean": "true/false", "integer": "integer", "number": "number", "array": "comma-separated"}
    return names.get(kind, "text") if isinstance(kind, str) else "text"


def _choices(prop: dict[str, Any]) -> list[Any]:
    if isinstance(prop.get("enum"), list):
        return list(prop["enum"])
    options = prop.get("oneOf") or prop.get("anyOf")
    return [o["const"] for o in options if isinstance(o, dict) and "const" in o] if isinstance(options, list) else []


def parse_field(prop: dict[str, Any], raw: str) -> tuple[bool, Any]:
    """(True, value) for an answer the field takes, (False, None) for one it does not."""
    options = _choices(prop)
    if options:
        found = [o for o in options if str(o) == raw]
        return (True, found[0]) if found else (False, None)
    kind = prop.get("type")
    if kind == "boolean":
        word = raw.strip().lower()
        if word in ("true", "yes", "y", "1", "false", "no", "n", "0"):
            return True, word in ("true", "yes", "y", "1")
        return False, None
    try:
        if kind == "integer":
            return True, int(raw)
        if kind == "number":
            return True, float(raw)
    except ValueError:
        return False, None
    if kind == "array":
        return True, [item.strip() for item in raw.split(",") if item.strip()]
    return True, raw


def review(content: dict[str, Any]) -> str:
    pairs = [
        f"{neutralise(name)}={neutralise(json.dumps(value, ensure_ascii=False))}" for name, value in content.items()
    ]
    return ", ".join(pairs) or "(no values)"


class UiAgent(Agent):
    """The `ui` command's agent: a terminal client that shows each elicitation carefully and asks its user."""

    def __init__(self, build: Build) -> None:
        super().__init__(build)
        self.flaws = build.ui_flaws
        self.to_open: list[str] = []  # URLs the user accepted: opened once the accept has been sent
        self.to_say: list[str] = []  # the show-url-after-consent build's URL lines, shown once the answer has been sent

    def answers_sent(self) -> None:
        """Open what the user accepted, now that the accept has left: never before the answer has."""
        lines, opening, self.to_say, self.to_open = self.to_say, self.to_open, [], []
        if lines:
            time.sleep(LATE_URL_DELAY_S)
        for line in lines:
            self.say(line)
        for url in opening:
            self.open_url(url)

    def text(self, line: str, *, links: bool = False) -> str:
        """One line of server text as this build renders it: escaped, unless raw-escapes; linked, if osc8-links."""
        shown = line if "raw-escapes" in self.flaws else neutralise(line)
        return osc8(shown) if links and "osc8-links" in self.flaws else shown

    def ask(self, prompt: str) -> str | None:
        """Ask the user (stdin); None at end of input. A piped answer is echoed, as a terminal would have."""
        print(prompt, end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            print(flush=True)
            return None
        answer = line.rstrip("\r\n")
        if not sys.stdin.isatty():
            print(neutralise(answer), flush=True)
        return answer

    def choose(self, prompt: str, no_decline: str, *, edit: bool = False) -> Choice:
        """Ask until the user picks; the no-decline-option build offers only [y] and declines on anything else."""
        if "no-decline-option" in self.flaws:
            answer = self.ask(no_decline)
            return "accept" if answer is not None and answer.strip().lower() in ("y", "yes") else "decline"
        words: dict[str, Choice] = {"y": "accept", "yes": "accept", "n": "decline", "no": "decline"}
        words.update({"c": "cancel", "cancel": "cancel", **({"e": "edit", "edit": "edit"} if edit else {})})
        while True:
            answer = self.ask(prompt)
            if answer is None:
                self.say("cancelled (end of input)")
                return "cancel"
            choice = words.get(answer.strip().lower())
            if choice is not None:
                if choice in ("decline", "cancel"):
                    self.say("declined" if choice == "decline" else "cancelled")
                return choice
            self.say(f"please answer {'y, e, n or c' if edit else 'y, n or c'}")

    def fence(self, mode: str, message: str, server: str | None, origin: str, *, links: bool = False) -> None:
        name = neutralise(server or "unnamed")
        source = "" if "no-server-name" in self.flaws else f' from MCP server "{name}" at {origin}'
        self.say(f"[elicitation ({mode}){source} — untrusted server-supplied text follows]", quarantined=True)
        for line in message.split("\n"):
            self.say("  │ " + self.text(line, links=links), quarantined=True)
        self.say("[end of server text]", quarantined=True)

    def open_url(self, url: str) -> None:
        """Hand the URL to xdg-open (no shell); only http(s) URLs are opened."""
        if urlsplit(url).scheme not in ("http", "https"):
            self.say("not opening it: only http:// and https:// URLs are opened")
            return
        self.say("opening it in your browser (xdg-open)")
        try:
            subprocess.run(
                ["xdg-open", url],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=15,
                check=False,
            )
        except FileNotFoundError:
            self.complain("xdg-open is not installed; open the URL yourself", prefix="warning")
        except (OSError, subprocess.SubprocessError) as exc:
            self.complain(f"xdg-open failed: {exc}", prefix="warning")

    def url_request(self, params: dict[str, Any], server: str | None, origin: str) -> dict[str, Any]:
        """A URL-mode elicitation: the URL and its host before the question; xdg-open after a yes, once sent."""
        raw = params.get("url")
        url = raw if isinstance(raw, str) else ""
        host = host_of(url)
        self.fence("URL mode", str(params.get("message", "")), server, origin)
        url_line = f"URL: {neutralise(url)}"
        late = "show-url-after-consent" in self.flaws
        hidden = "hide-url" in self.flaws or "hide-host" in self.flaws
        if not late and not hidden:
            self.say(url_line)
        if "hide-host" not in self.flaws:
            self.say(f"Host: {neutralise(host) or '(none)'}")
        if is_punycode(host) and "no-punycode-warning" not in self.flaws:
            self.say(PUNYCODE_WARNING)
        if "open-at-once" in self.flaws:
            self.open_url(url)
        choice = self.choose(OPEN_PROMPT, OPEN_PROMPT_NO_DECLINE)
        if late:
            self.to_say.append(url_line)
        if choice == "accept" and "open-at-once" not in self.flaws:
            self.to_open.append(url)
        elif choice == "decline" and "open-declined" in self.flaws:
            self.open_url(url)
        return {"action": choice}

    def form_request(self, params: dict[str, Any], server: str | None, origin: str) -> dict[str, Any]:
        """A form-mode elicitation: each field asked for, then a review and a question before anything is sent."""
        schema = params.get("requestedSchema")
        schema = schema if isinstance(schema, dict) else {}
        props = schema.get("properties")
        fields = {n: p for n, p in props.items() if isinstance(p, dict)} if isinstance(props, dict) else {}
        required = set(schema.get("required") or ()) if isinstance(schema.get("required"), list) else set()
        self.fence("form", str(params.get("message", "")), server, origin, links=True)
        self.say(f"The form asks for {len(fields)} field(s)")
        for name, prop in fields.items():
            about = prop.get("description") or prop.get("title")
            extra = (" (required)" if name in required else "") + (
                f" — {neutralise(about)}" if isinstance(about, str) else ""
            )
            self.say(f"  {neutralise(name)}: {field_hint(prop)}{extra}")
        if "auto-accept" in self.flaws:
            filled = wire.form_content(schema)
            self.say(f"Sending: {review(filled)}")
            return {"action": "accept", "content": filled}
        while True:
            content: dict[str, Any] = {}
            for name, prop in fields.items():
                while True:
                    raw = self.ask(FIELD_PROMPT.format(name=neutralise(name), hint=field_hint(prop)))
                    if raw is None:
                        self.say("cancelled (end of input)")
                        return {"action": "cancel"}
                    if raw == "":
                        break
                    ok, value = parse_field(prop, raw)
                    if ok:
                        content[name] = value
                        break
                    self.say(f"not a value {neutralise(name)} takes: expected {field_hint(prop)}")
                if raw == "":
                    break  # enter: straight to the review
            self.say(f"Review: {review(content)}")
            missing = [neutralise(n) for n in fields if n in required and n not in content]
            if missing:
                self.say(f"(missing required: {', '.join(missing)})")
            choice = self.choose(SEND_PROMPT, SEND_PROMPT_NO_DECLINE, edit=True)
            if choice == "edit":
                continue
            return {"action": "accept", "content": content} if choice == "accept" else {"action": choice}

    def answer(self, requests: dict[str, Any], server: str | None, origin: str) -> dict[str, Any]:
        """The inputResponses for one round: elicitations asked of the user; no directive is ever followed."""
        responses: dict[str, Any] = {}
        for key, request in requests.items():
            method, params = (request.get("method"), request.get("params")) if isinstance(request, dict) else (0, 0)
            params = params if isinstance(params, dict) else {}
            if method == "elicitation/create" and params.get("mode") == "url":
                responses[key] = self.url_request(params, server, origin)
            elif method == "elicitation/create":
                responses[key] = self.form_request(params, server, origin)
            elif method == "roots/list":
                responses[key] = {"roots": []}
            else:
                self.complain(f"ignoring input request {neutralise(str(key))!r}: unsupported method", prefix="warning")
        return responses


def show_ui_result(agent: Agent, result: dict[str, Any]) -> int:
    """A complete result's content, escaped unless the build is raw-escapes."""
    text = agent.text if isinstance(agent, UiAgent) else neutralise
    content = result.get("content")
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "text":
            lines = str(block.get("text", "")).split("\n")
            agent.say(f"result: {text(lines[0])}")
            for line in lines[1:]:
                agent.say(f"        {text(line)}")
        else:
            kind = neutralise(str(block.get("type"))) if isinstance(block, dict) else "unreadable"
            agent.say(f"result: [{kind} content]")
    return 1 if result.get("isError") is True else 0


def list_tools(conn: wire.Connection) -> list[str]:
    """Every tool name the server lists, following nextCursor (at most MAX_TOOL_PAGES pages)."""
    names: list[str] = []
    params: dict[str, Any] = {}
    for _ in range(MAX_TOOL_PAGES):
        result = conn.request("tools/list", params)
        conn.note_server(result)
        tools = result.get("tools")
        names += (
            [t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
            if isinstance(tools, list)
            else []
        )
        cursor = result.get("nextCursor")
        if not isinstance(cursor, str) or not cursor:
            break
        params = {"cursor": cursor}
    return names


def run_ui(build: Build, args: list[str]) -> int:
    """The `ui` command: every tool of the server called once, its elicitations shown and asked at the terminal."""
    if any(a in HELP_WORDS for a in args):
        print(UI_HELP, end="")
        return 0
    if len(args) != 1 or args[0].startswith("-"):
        raise UsageError(f"usage: {PROG} [--ui-flaw NAME]... ui SERVER_URL")
    try:
        conn = wire.Connection(args[0], UI_CAPABILITIES)
    except ValueError as exc:
        raise UsageError(f"SERVER_URL: {exc}") from exc
    agent = UiAgent(build)
    try:
        conn.connect("auto")
        tools = list_tools(conn)
    except (wire.RpcFailure, wire.WireError) as exc:
        agent.complain(str(exc))
        return 1
    name = neutralise(conn.server_name or "unnamed")
    agent.say(f'MCP server "{name}" at {conn.origin} offers {len(tools)} tool(s): {neutralise(", ".join(tools))}')
    status = 0
    for tool in tools:
        agent.say(f"== {neutralise(tool)} ==")
        try:
            status |= call_tool(conn, agent, tool, {}, show=show_ui_result)
        except wire.RpcFailure as exc:
            agent.complain(f"{exc.code} {neutralise(exc.message)}")
            status = 1
        except wire.WireError as exc:
            agent.complain(neutralise(str(exc)))
            status = 1
    return status


def main(argv: list[str] | None = None) -> int:
    """Run the toy agent; returns 0 on success, 1 when a call failed, 2 on a usage error."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    flag = "--help"
    try:
        build, args = parse_globals(sys.argv[1:] if argv is None else argv)
        flag = HELP_FLAG.get(build.variant, flag)
        return dispatch(build, args)
    except UsageError as exc:
        print(f"{wire.CLIENT_NAME}: {exc}\n{USAGE}\nRun '{wire.CLIENT_NAME} {flag}' for the commands.", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
