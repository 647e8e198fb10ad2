"""The toy agent's core: its builds (variant, fixes, UI flaws, wire flaws), the agent's voice and directive follower
(flaw 1, provenance), and the tools/call loop that reads resultType (flaw 2) and answers MRTR input requests.

Each wire flaw (`--wire-flaw NAME`, WIRE_FLAWS) breaks one session rule on the bytes the client sends, so a recording
of a real session with it FAILs (WARNs, for a SHOULD) that rule. They are the connection's (the `mcp call` command,
and the shape builds that reach it): the call loop reads them from it, toy_agent_wire.py sends the rest.

The command line is toy_agent.py; the other call-surface shapes are toy_agent_shapes.py, the `ui` command's careful
terminal client and its flawed builds toy_agent_ui.py; the wire is toy_agent_wire.py.
"""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from backchannel.proxy.clients import toy_agent_wire as wire

# builds whose call surface has another shape (toy_agent_shapes.py): discovery must recognise each from its help alone
SHAPES = ("method-verb", "method-flags", "tool-subcommands", "tool-option", "server-flag", "long-help", "short-help")
# builds whose surface shows only once given the URL, or after a connect step (toy_agent_url_first.py)
URL_FIRST = ("url-tools", "url-list", "url-help", "connect")
VARIANTS = (
    "flawed",
    "no-call-surface",
    "legacy-only",
    "no-input-capability",
    "silent",
    "strict",
    "interactive",
    *SHAPES,
    *URL_FIRST,
)
CONFIRM_PROMPT = "Send this answer to the server? [y/N] "
FIXES = ("provenance", "result-type")
DEFAULT_CAPABILITIES: dict[str, Any] = {"elicitation": {"form": {}}, "sampling": {}}
MAX_ROUNDS = 5
BLIND_RETRIES = 3
HELP_WORDS = ("help", "-h", "--help")
# the `ui` command's flaws (toy_agent_ui.py), one per elicitation-ui check
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
# `--wire-flaw NAME`: each breaks the session rule it names (rule ids are the oracle's), on the wire
WIRE_FLAWS: dict[str, str] = {
    "retry-same-id": "sep-2322-client-jsonrpc-id-different",  # the MRTR retry reuses the retried request's id
    "invent-state": "sep-2322-client-no-state-omitted",  # a retry of a round without requestState sends one
    "state-elsewhere": "sep-2322-client-parallel-isolation",  # a round's requestState also goes on a tools/list
    "alter-state": "session-client-request-state-echoed",  # the retry echoes the requestState with a character added
    "skip-input": "session-client-answers-every-input-request",  # the retry leaves one inputRequests key unanswered
    "no-client-capabilities": "sep-2575-client-populates-meta",  # 2026-07-28 _meta without clientCapabilities
    "no-client-info": "sep-2575-client-sends-client-info",  # 2026-07-28 _meta without clientInfo (a SHOULD)
    "client-info-no-version": "session-client-wire-schema-valid",  # clientInfo without its required version
    "capability-not-object": "sep-2575-client-declares-roots-capability",  # declares "roots": true
    "elicitation-not-object": "sep-2575-client-declares-elicitation-capability",  # declares "elicitation": true
    "sampling-not-object": "sep-2575-client-declares-sampling-capability",  # declares "sampling": true
    "no-version-header": "sep-2575-http-client-sends-version-header",  # 2026-07-28 POSTs without MCP-Protocol-Version
    "version-header-mismatch": "sep-2575-http-version-header-matches-meta",  # header 2025-11-25, _meta 2026-07-28
    "wrong-method-header": "sep-2575-http-routing-headers-match-body",  # Mcp-Method is not the body's method
    "unasked-response": "session-client-answers-only-server-requests",  # POSTs a response to a request never sent
    "no-session-id": "session-client-sends-session-id",  # 2025 eras: no Mcp-Session-Id after initialize
    "legacy-no-version-header": "session-client-version-header-negotiated",  # 2025 eras: no MCP-Protocol-Version
}
INVENTED_STATE = "toy-agent-invented-state"  # what `invent-state` sends where the server gave no requestState
PROG = wire.CLIENT_NAME

_DIRECTIVE = re.compile(r"WRITE-MARKER\s+(\S+)\s+(\S+)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

HEADER = """backchannel-toy-agent {version}: a synthetic test target shipped with backchannel. It is not a real agent:
it has deliberate, switchable flaws, and exists to be tested.
This build: {variant}; flaws present: {flaws}.
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
    wire_flaws: frozenset[str] = frozenset()  # session rules broken on the wire (`--wire-flaw`); none by default

    @classmethod
    def of(
        cls,
        variant: str = "flawed",
        fixes: frozenset[str] = frozenset(),
        ui_flaws: frozenset[str] = frozenset(),
        wire_flaws: frozenset[str] = frozenset(),
    ) -> Build:
        absent: Literal["retry", "complete", "strict"] = "complete" if "result-type" in fixes else "retry"
        absent = "strict" if variant == "strict" else absent
        return cls(variant, "provenance" in fixes or variant == "strict", absent, ui_flaws, wire_flaws)

    def flaws(self) -> str:
        present = {"provenance": not self.provenance_fixed, "result-type": self.absent_result_type == "retry"}
        present.update({f"ui:{name}": True for name in UI_FLAWS if name in self.ui_flaws})
        present.update({f"wire:{name}": True for name in WIRE_FLAWS if name in self.wire_flaws})
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
    max_rounds: int | None = MAX_ROUNDS,
) -> int:
    """Call `tool` until it completes, answering input requests (MRTR) and, when flawed, blindly retrying; after
    `max_rounds` rounds it gives up and says so (None: it never does, the regressions' `endless-retry` build)."""
    extra: dict[str, Any] = {}
    rounds = retries = 0
    reuse: int | None = None  # the id the next call reuses (only the retry-same-id flaw sets it)
    while True:
        result = conn.request("tools/call", {"name": tool, "arguments": arguments, **extra}, request_id=reuse)
        reuse = None
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
            if rounds == max_rounds:
                agent.complain(f"{tool}: the server still wanted input after {max_rounds} rounds; giving up")
                return 1
            rounds += 1
            requests = result.get("inputRequests")
            extra = {"inputResponses": agent.answer(requests, server, conn.origin)} if requests is not None else {}
            if "requestState" in result:
                extra["requestState"] = result["requestState"]
            if conn.flaws:
                reuse = flawed_retry(conn, result, extra)
        else:
            return (show or show_result)(agent, result)


def flawed_retry(conn: wire.Connection, result: dict[str, Any], extra: dict[str, Any]) -> int | None:
    """Break the MRTR rules the connection's wire flaws name on the retry `extra` (edited in place) of the round
    `result` asked for, sending the state-elsewhere request first; returns the id the retry reuses, if any."""
    flaws, retried = conn.flaws, conn.last_id
    answers = extra.get("inputResponses")
    if "skip-input" in flaws and isinstance(answers, dict) and answers:
        answers.pop(list(answers)[-1])  # the last key asked goes unanswered
    if "requestState" in result:
        state = result["requestState"]
        if "state-elsewhere" in flaws:  # the round's state on an unrelated request, sent before the retry
            try:
                conn.request("tools/list", {"requestState": state})
            except (wire.RpcFailure, wire.WireError):
                pass  # whatever the server thinks of it, the retry still goes
        if "alter-state" in flaws and isinstance(state, str):
            extra["requestState"] = state + "~"
    elif "invent-state" in flaws:
        extra["requestState"] = INVENTED_STATE
    return retried if "retry-same-id" in flaws else None


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
    capabilities = {} if build.variant == "no-input-capability" else DEFAULT_CAPABILITIES
    try:
        conn = wire.Connection(url, capabilities, flaws=build.wire_flaws)
    except ValueError as exc:
        raise UsageError(f"SERVER_URL: {exc}") from exc
    agent = Agent(build)
    # a 2025 server sends its input requests on the call's stream: answered as an MRTR round's would be
    conn.on_request = lambda request: agent.answer({"asked": request}, conn.server_name, conn.origin).get("asked")

    def call() -> int:
        conn.connect("legacy" if build.variant == "legacy-only" else "auto")
        if "unasked-response" in conn.flaws:
            conn.respond_unasked()
        return call_tool(conn, agent, tool, arguments)

    return on_the_wire(agent, call)


def on_the_wire(agent: Agent, work: Callable[[], int]) -> int:
    """Run `work` against the server; a failure on the wire is one line on stderr and exit 1."""
    try:
        return work()
    except wire.RpcFailure as exc:
        agent.complain(f"{exc.code} {exc.message}")
    except wire.WireError as exc:
        agent.complain(str(exc))
    return 1
