"""The toy agent's `sampling` command: a careful client for the sampling scenario, and one flawed build per check
(`--sampling-flaw NAME`, see SAMPLING_FLAWS). Every tool of the server is called once, in order.

Its "model" is a fixed stand-in (it answers every sampling request with the same line), so what it returns is what
its code chose. The careful build declares elicitation (form), sampling and roots, but neither `sampling.tools` nor
`sampling.context`. Each sampling request is shown fenced, with the requesting server's name and origin, and the user
is asked before the model's answer leaves; a denial is a JSON-RPC error in the 2025 eras, and in 2026-07-28 (where a
round's answer has no error slot) the call is abandoned. Tool-enabled sampling it did not declare is refused with an
error (2025 eras), never asked; `includeContext` is ignored; a round of several requests is answered whole.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from backchannel.proxy.clients import toy_agent_wire as wire
from backchannel.proxy.clients.toy_agent_core import HELP_WORDS, PROG, Agent, Build, UsageError, call_tool
from backchannel.proxy.clients.toy_agent_ui import list_tools, show_ui_result
from backchannel.proxy.clients.toy_agent_ui_text import neutralise

# `--sampling-flaw NAME` (given after the command): each breaks the sampling check it names
SAMPLING_FLAWS: dict[str, str] = {
    "auto-answer": "sampling-human-in-the-loop",  # the model's answer leaves without asking the user
    "no-server-name": "sampling-names-requesting-server",  # the fence says a server asks, not which one
    "answer-undeclared-tools": "sampling-tools-undeclared-error",  # answers tools it never declared (no error)
    "include-context": "sampling-no-undeclared-context",  # puts its whole context in the answer to includeContext
    "split-round": "sep-2322-client-constructs-inputs-all-kinds",  # answers a round one request per retry
}
SAMPLING_CAPABILITIES: dict[str, Any] = {"elicitation": {"form": {}}, "sampling": {}, "roots": {}}
MODEL_NAME = "toy-stand-in-model"
MODEL_LINE = "ok (the toy agent's stand-in model)"
ASK_SAMPLE = "Let the model answer this request? [y]es / [n]o: "
ASK_FORM = "Send {confirmed: true} to the server? [y]es / [n]o: "
DENIED = -1  # the JSON-RPC error code of a user's denial (the SDKs' choice too)
INVALID_PARAMS = -32602
SAMPLING_HELP = f"""usage: {PROG} sampling [--sampling-flaw NAME]... SERVER_URL

List the tools of the MCP server at SERVER_URL (Streamable HTTP) and call each once, in order, as a careful client
of a server that asks its model (sampling/createMessage): each request is shown fenced, naming the server and its
origin, and the user is asked before the model's answer leaves. Its model is a fixed stand-in.

options:
  --sampling-flaw NAME  Build in one flaw (repeatable). One of: {", ".join(SAMPLING_FLAWS)} (default: none)
  -h, --help            Show this help

Point it only at servers you run yourself.
"""


class Abandoned(Exception):
    """The user denied a request of a 2026-07-28 round: no retry is sent, the call is given up."""


class SamplingConnection(wire.Connection):
    """The toy's wire, answering a server's request on a call's stream with a result or a JSON-RPC error."""

    def __init__(self, url: str, capabilities: dict[str, Any], agent: SamplingAgent) -> None:
        super().__init__(url, capabilities)
        self.agent = agent

    def _answering(self, bodies: Iterator[str]) -> Iterator[str]:
        for body in bodies:
            try:
                message = json.loads(body)
            except ValueError:
                message = None
            if isinstance(message, dict) and "method" in message and "id" in message:
                answer = self.agent.server_request(message, self)
                self._post({"jsonrpc": "2.0", "id": message["id"], **answer}, None)
                continue
            yield body


class SamplingAgent(Agent):
    """The `sampling` command's agent: asks its user before its stand-in model answers a server."""

    def __init__(self, build: Build, flaws: frozenset[str]) -> None:
        super().__init__(build)
        self.flaws = flaws

    def ask(self, prompt: str) -> bool:
        """Ask the user (stdin): True only for yes. A piped answer is echoed, as a terminal would have."""
        print(prompt, end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            print("(end of input: no)", flush=True)
            return False
        if not sys.stdin.isatty():
            print(neutralise(line.rstrip("\r\n")), flush=True)
        return line.strip().lower() in ("y", "yes")

    def fence(self, what: str, text: str, server: str | None, origin: str) -> None:
        name = neutralise(server or "unnamed")
        source = "" if "no-server-name" in self.flaws else f' from MCP server "{name}" at {origin}'
        self.say(f"[{what}{source} — untrusted server-supplied text follows]", quarantined=True)
        for line in text.split("\n"):
            self.say("  │ " + neutralise(line), quarantined=True)
        self.say("[end of server text]", quarantined=True)

    def sample(self, params: dict[str, Any], server: str | None, origin: str) -> dict[str, Any]:
        """A sampling request: {"result": ...} (the stand-in model's answer) or {"error": ...} (refused, denied)."""
        offered = "tools" in params or "toolChoice" in params
        if offered and "answer-undeclared-tools" not in self.flaws:
            self.say("refused a sampling request with tools: this client did not declare sampling.tools")
            return {"error": {"code": INVALID_PARAMS, "message": "tools given but sampling.tools is not declared"}}
        self.fence("sampling request", "\n".join(wire.sampling_text(params.get("messages"))), server, origin)
        if "auto-answer" not in self.flaws and not self.ask(ASK_SAMPLE):
            self.say("denied: the model's answer is not sent")
            return {"error": {"code": DENIED, "message": "the user denied the sampling request"}}
        text = MODEL_LINE
        if params.get("includeContext", "none") != "none" and "include-context" in self.flaws:
            text += "; context: " + " | ".join(self.context)
        self.say(f"model answer sent: {text}")
        answer = {"role": "assistant", "content": {"type": "text", "text": text}, "model": MODEL_NAME}
        return {"result": {**answer, "stopReason": "endTurn"}}

    def one(self, request: Any, server: str | None, origin: str) -> dict[str, Any]:
        """One request of a server: {"result": ...} or {"error": ...}."""
        method, params = (request.get("method"), request.get("params")) if isinstance(request, dict) else (0, 0)
        params = params if isinstance(params, dict) else {}
        if method == "sampling/createMessage":
            return self.sample(params, server, origin)
        if method == "elicitation/create":
            self.fence("form request", str(params.get("message", "")), server, origin)
            if not self.ask(ASK_FORM):
                return {"result": {"action": "decline"}}
            return {"result": {"action": "accept", "content": {"confirmed": True}}}
        if method == "roots/list":
            return {"result": {"roots": []}}
        return {"error": {"code": -32601, "message": f"unsupported request {neutralise(str(method))}"}}

    def server_request(self, message: dict[str, Any], conn: wire.Connection) -> dict[str, Any]:
        """A 2025 server-initiated request met on a call's stream."""
        return self.one(message, conn.server_name, conn.origin)

    def answer(self, requests: dict[str, Any], server: str | None, origin: str) -> dict[str, Any]:
        """A 2026-07-28 round's inputResponses (split-round: only its first request, the rest next time)."""
        responses: dict[str, Any] = {}
        for key, request in requests.items():
            answered = self.one(request, server, origin)
            if "error" in answered:  # no error slot in a round's answers: the call is given up instead
                raise Abandoned(str(answered["error"].get("message")))
            responses[key] = answered["result"]
            if "split-round" in self.flaws:
                break
        return responses


def parse(args: list[str]) -> tuple[frozenset[str], str]:
    flaws: set[str] = set()
    rest = list(args)
    while rest and rest[0].split("=")[0] == "--sampling-flaw":
        option, _, value = rest.pop(0).partition("=")
        value = value or (rest.pop(0) if rest else "")
        if value not in SAMPLING_FLAWS:
            raise UsageError(f"{option} {value!r} is not one of: {', '.join(SAMPLING_FLAWS)}")
        flaws.add(value)
    if len(rest) != 1 or rest[0].startswith("-"):
        raise UsageError(f"usage: {PROG} sampling [--sampling-flaw NAME]... SERVER_URL")
    return frozenset(flaws), rest[0]


def run_sampling(build: Build, args: list[str]) -> int:
    """The `sampling` command: every tool of the server called once, its requests shown and asked at the terminal."""
    if any(a in HELP_WORDS for a in args):
        print(SAMPLING_HELP, end="")
        return 0
    flaws, url = parse(args)
    # a careful client: a result without resultType (every 2025 result) is complete, whatever the build's default
    agent = SamplingAgent(replace(build, absent_result_type="complete"), flaws)
    try:
        conn = SamplingConnection(url, SAMPLING_CAPABILITIES, agent)
    except ValueError as exc:
        raise UsageError(f"SERVER_URL: {exc}") from exc
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
        except Abandoned as exc:
            agent.say(f"the call is abandoned: {neutralise(str(exc))}")
            status = 1
        except wire.RpcFailure as exc:
            agent.complain(f"{exc.code} {neutralise(exc.message)}")
            status = 1
        except wire.WireError as exc:
            agent.complain(neutralise(str(exc)))
            status = 1
    return status
