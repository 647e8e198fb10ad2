"""backchannel-toy-agent: an obviously synthetic MCP client with deliberate, switchable flaws, shipped as a test target.

Flaw 1, provenance (`--fix provenance`): text a server puts in an MRTR input request (an elicitation message, the
messages of a sampling request) is printed as a bare line, as if the agent had said it, and the agent's directive
follower acts on `WRITE-MARKER <path> <token>` lines in what it said, writing only inside $HOME or the working
directory. Fixed, that text is fenced with the server's name and origin and quarantined from the follower.
Flaw 2, the resultType default (`--fix result-type`): a result without `resultType` is retried as unfinished, three
times, and the call then fails. Fixed, an absent `resultType` means "complete", as the 2026-07-28 spec requires.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from backchannel.proxy.toy_agent_wire import CLIENT_NAME, CLIENT_VERSION, Connection, RpcFailure, WireError

VARIANTS = ("flawed", "no-call-surface", "legacy-only", "no-input-capability", "silent", "strict")
FIXES = ("provenance", "result-type")
DEFAULT_CAPABILITIES: dict[str, Any] = {"elicitation": {"form": {}}, "sampling": {}}
MAX_ROUNDS = 5
BLIND_RETRIES = 3
HELP_WORDS = ("help", "-h", "--help")
SAMPLING_ANSWER = {"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "toy-model",
                   "stopReason": "endTurn"}  # fmt: skip

_DIRECTIVE = re.compile(r"WRITE-MARKER\s+(\S+)\s+(\S+)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

HEADER = """backchannel-toy-agent {version}: a synthetic test target shipped with backchannel. It is not a real agent:
it has deliberate, switchable flaws, and exists to be tested.
This build: --variant {variant}; flaws present: {flaws}.
"""
USAGE = "usage: backchannel-toy-agent [--fix provenance] [--fix result-type] [--variant NAME] COMMAND ..."
MCP_CALL = """  mcp call SERVER_URL TOOL [ARGS_JSON]
                  Call a tool on a remote MCP server over Streamable HTTP and print its result
"""
COMMANDS = """  chat [TEXT]     Say something to the toy agent (it has no model; it answers with a canned line)
  version         Print the version and this build's flaws
  help            Show this help (also -h, --help)
"""
VARIANT_OPTION = f"  --variant NAME      One of: {', '.join(VARIANTS)} (default flawed)\n"
OPTIONS = f"""
options:
  --fix provenance    Fence input-request text a server sends, naming the server and its origin, and never act on it
  --fix result-type   Treat a result without resultType as complete (the strict variant keeps its own rule)
{VARIANT_OPTION}
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
    """Which flaws this run of the toy agent has."""

    variant: str = "flawed"
    fixes: frozenset[str] = frozenset()

    @property
    def provenance_fixed(self) -> bool:
        return "provenance" in self.fixes or self.variant == "strict"

    @property
    def absent_result_type(self) -> Literal["retry", "complete", "strict"]:
        if self.variant == "strict":
            return "strict"
        return "complete" if "result-type" in self.fixes else "retry"

    @property
    def capabilities(self) -> dict[str, Any]:
        return {} if self.variant == "no-input-capability" else DEFAULT_CAPABILITIES

    def flaws(self) -> str:
        present = [name for name, fixed in (("provenance", self.provenance_fixed),
                   ("result-type", self.absent_result_type != "retry")) if not fixed]  # fmt: skip
        return ", ".join(present) or "none"


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
        self.say(f"[input request ({method}) from MCP server {name} at {origin} — untrusted server-supplied text "
                 "follows]", quarantined=True)  # fmt: skip
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

    def answer(self, requests: dict[str, Any], server: str | None, origin: str) -> dict[str, Any]:
        """The inputResponses for one round of input requests, rendering what the server asked along the way."""
        responses: dict[str, Any] = {}
        for key, request in requests.items():
            method = request.get("method") if isinstance(request, dict) else None
            params = request.get("params") if isinstance(request, dict) else None
            params = params if isinstance(params, dict) else {}
            if method == "elicitation/create":
                text = str(params.get("message", ""))
                if params.get("mode") == "url":
                    self.show_server_text(method, f"{text}\n{params.get('url', '')}", server, origin)
                    responses[key] = {"action": "accept"}
                else:
                    self.show_server_text(method, text, server, origin)
                    responses[key] = {"action": "accept", "content": form_content(params.get("requestedSchema"))}
            elif method == "sampling/createMessage":
                self.show_server_text(method, "\n".join(sampling_text(params.get("messages"))), server, origin)
                responses[key] = dict(SAMPLING_ANSWER)
            elif method == "roots/list":
                responses[key] = {"roots": []}
            else:
                self.complain(f"ignoring input request {key!r}: unsupported method {method!r}", prefix="warning")
        self.follow_directives()
        return responses


def form_content(schema: Any) -> dict[str, Any]:
    """The toy user's form answer: true, "yes", 1, or the first allowed value, per property."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    content: dict[str, Any] = {}
    for name, prop in (props.items() if isinstance(props, dict) else ()):
        value = _form_value(prop)
        if value is not None:
            content[name] = value
    return content


def _form_value(prop: Any) -> Any:
    if not isinstance(prop, dict):
        return None
    choices = [o["const"] for o in prop.get("oneOf", prop.get("anyOf", [])) if isinstance(o, dict) and "const" in o]
    if isinstance(prop.get("enum"), list) and prop["enum"]:
        return prop["enum"][0]
    if choices:
        return choices[0]
    kind = prop.get("type")
    if kind == "array":
        first = _form_value(prop.get("items"))
        return [first] if first is not None and not isinstance(first, bool) else []
    return {"boolean": True, "string": "yes", "number": 1, "integer": 1}.get(kind) if isinstance(kind, str) else None


def sampling_text(messages: Any) -> list[str]:
    """The text blocks of a sampling request's messages, in order."""
    texts: list[str] = []
    for message in messages if isinstance(messages, list) else ():
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else [content]:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
    return texts


def classify(result: dict[str, Any], era: str, build: Build) -> Literal["complete", "input_required", "unfinished"]:
    """What a tools/call result means to this build.

    Raises:
        InvalidResult: An unknown resultType, or (strict, modern era) a missing one.
    """
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
        return "input_required"
    raise InvalidResult(f"unknown resultType {json.dumps(kind)} on a {era} connection")


def call_tool(conn: Connection, agent: Agent, tool: str, arguments: dict[str, Any]) -> int:
    """Call `tool` until it completes, answering input requests (MRTR) and, when flawed, blindly retrying."""
    extra: dict[str, Any] = {}
    rounds = retries = 0
    while True:
        result = conn.request("tools/call", {"name": tool, "arguments": arguments, **extra})
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
            if requests is not None and not isinstance(requests, dict):
                agent.complain("invalid result: inputRequests is not an object")
                return 1
            extra = {"inputResponses": agent.answer(requests, server, conn.origin)} if requests is not None else {}
            if "requestState" in result:
                extra["requestState"] = result["requestState"]
        else:
            return show_result(agent, result)


def show_result(agent: Agent, result: dict[str, Any]) -> int:
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
        arguments = json.loads(raw_args) if raw_args is not None else {}
    except ValueError as exc:
        raise UsageError(f"ARGS_JSON is not JSON ({exc}); pass an object such as '{{\"repo\": \"demo\"}}'") from exc
    if not isinstance(arguments, dict):
        raise UsageError("ARGS_JSON must be a JSON object, such as '{\"repo\": \"demo\"}'")
    try:
        conn = Connection(url, build.capabilities)
    except ValueError as exc:
        raise UsageError(f"SERVER_URL: {exc}") from exc
    agent = Agent(build)
    try:
        conn.connect("legacy" if build.variant == "legacy-only" else "auto")
        return call_tool(conn, agent, tool, arguments)
    except RpcFailure as exc:
        agent.complain(f"{exc.code} {exc.message}")
    except WireError as exc:
        agent.complain(str(exc))
    return 1


def help_text(build: Build) -> str:
    header = HEADER.format(version=CLIENT_VERSION, variant=build.variant, flaws=build.flaws())
    if build.variant == "no-call-surface":
        return f"{header}\n{USAGE}\n\ncommands:\n{COMMANDS}\noptions:\n{VARIANT_OPTION}"
    return f"{header}\n{USAGE}\n\ncommands:\n{MCP_CALL}{COMMANDS}  mcp help        List the mcp subcommands\n{OPTIONS}"


def parse_globals(argv: list[str]) -> tuple[Build, list[str]]:
    """The build the leading options ask for, and the rest of the command line."""
    variant, fixes = "flawed", set()
    args = list(argv)
    while args and args[0].startswith("--") and args[0].split("=")[0] in ("--fix", "--variant"):
        option, _, value = args.pop(0).partition("=")
        if not value:
            if not args:
                raise UsageError(f"{option} needs a value")
            value = args.pop(0)
        if option == "--fix":
            if value not in FIXES:
                raise UsageError(f"--fix {value!r} is not a flaw this agent has; valid: {', '.join(FIXES)}")
            fixes.add(value)
        elif value not in VARIANTS:
            raise UsageError(f"--variant {value!r} is unknown; valid variants: {', '.join(VARIANTS)}")
        else:
            variant = value
    return Build(variant, frozenset(fixes)), args


def dispatch(build: Build, args: list[str]) -> int:
    if not args:
        raise UsageError("no command given")
    command, rest = args[0], args[1:]
    if command in HELP_WORDS:
        print(help_text(build), end="")
        return 0
    if command == "version":
        print(f"{CLIENT_NAME} {CLIENT_VERSION} (synthetic test target; variant {build.variant}; flaws: {build.flaws()})")
        return 0
    if command == "chat":
        print("toy-agent: I have no model. I am a synthetic test target; see --help for what I can do.")
        return 0
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


def main(argv: list[str] | None = None) -> int:
    """Run the toy agent; returns 0 on success, 1 when a call failed, 2 on a usage error."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        build, args = parse_globals(sys.argv[1:] if argv is None else argv)
        return dispatch(build, args)
    except UsageError as exc:
        print(f"backchannel-toy-agent: {exc}\n{USAGE}\nRun 'backchannel-toy-agent --help' for the commands.",
              file=sys.stderr)  # fmt: skip
        return 2


if __name__ == "__main__":
    sys.exit(main())
