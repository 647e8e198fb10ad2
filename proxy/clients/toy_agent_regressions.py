"""The toy agent's `regressions` command: a careful client for the sdk-regressions scenario, and one flawed build per
bug a real SDK shipped (`--regression-flaw NAME`, REGRESSION_FLAWS).

`regressions [--regression-flaw NAME]... SERVER_URL` connects (2026-07-28 when the server speaks it, else the 2025
handshake), declares elicitation in form mode only, and calls every listed tool once, in order. Its user is the
contract's stand-in: a form whose message starts `DECLINE:` is declined, every other form accepted with what its
schema offers. The careful build shows every request fenced with the server's name, forgets a declined form, gives
a call up after MAX_ROUNDS rounds and says so on stderr, and gives up (says so, answers nothing) a call that asks
in a mode it did not declare. Every build has the provenance and resultType fixes, so it breaks nothing else.
"""

from __future__ import annotations

from typing import Any

from backchannel.proxy.clients import toy_agent_wire as wire
from backchannel.proxy.clients.toy_agent_core import (
    HELP_WORDS,
    MAX_ROUNDS,
    PROG,
    Agent,
    Build,
    UsageError,
    call_tool,
    on_the_wire,
)
from backchannel.proxy.clients.toy_agent_ui import list_tools, show_ui_result
from backchannel.proxy.clients.toy_agent_ui_text import neutralise

# `--regression-flaw NAME`: each is a bug a real SDK shipped, and breaks the check it names (the oracle's ids)
REGRESSION_FLAWS: dict[str, str] = {
    "reuse-declined": "elicitation-declined-content-not-reused",  # a declined form's content rides on the next accept
    "endless-retry": "mrtr-round-limit-tells-user",  # answers every round, never giving up
    "decline-undeclared-mode": "elicitation-undeclared-mode-not-declined",  # silently declines a mode it lacks
}
CAPABILITIES: dict[str, Any] = {"elicitation": {"form": {}}}
DECLARED_MODES = frozenset({"form"})
DECLINE_PREFIX = "DECLINE:"  # the contract's user declines a form whose message starts so
USAGE = f"usage: {PROG} regressions [--regression-flaw NAME]... SERVER_URL"
HELP = f"""{USAGE}

Call every tool of the MCP server at SERVER_URL once, in order, declaring elicitation in form mode only. A form whose
message starts {DECLINE_PREFIX} is declined, every other form accepted; a call still asking after {MAX_ROUNDS} rounds
is given up, and so is one asking in a mode this client does not support.
--regression-flaw NAME (repeatable) builds in one bug a real SDK shipped: {", ".join(REGRESSION_FLAWS)}.
"""
NOT_SUPPORTED = -32602  # a 2025 server request this client cannot answer: refused with an error (invalid params)


class GivenUp(Exception):
    """The call is given up: no retry is sent."""


class RegressionsAgent(Agent):
    """The toy agent answering as the contract's user, with the build's regression flaws."""

    def __init__(self, build: Build, flaws: frozenset[str]) -> None:
        super().__init__(build)
        self.flaws = flaws
        self.declined: dict[str, Any] = {}  # the reuse-declined build's leftover: the last declined form's content

    def elicit(self, params: dict[str, Any], server: str | None, origin: str) -> dict[str, Any]:
        """One elicitation's ElicitResult; raises GivenUp for a mode this client did not declare."""
        mode = params.get("mode", "form")
        message = str(params.get("message", ""))
        if mode not in DECLARED_MODES:
            if "decline-undeclared-mode" in self.flaws:  # the Dart bug: declined for the user, who never saw it
                return {"action": "decline"}
            self.show_server_text("elicitation/create", message, server, origin)
            raise GivenUp(f"the server asked in {neutralise(str(mode))} mode, which this client does not support")
        self.show_server_text("elicitation/create", message, server, origin)
        content = wire.form_content(params.get("requestedSchema"))
        if message.startswith(DECLINE_PREFIX):
            self.say("[declined]")
            if "reuse-declined" in self.flaws:  # the Rust bug: the declined form's content is kept, not dropped
                self.declined = content
            return {"action": "decline"}
        if self.declined:
            content = {**content, **self.declined}
        self.say("[accepted]")
        return {"action": "accept", "content": content}

    def answer(self, requests: dict[str, Any], server: str | None, origin: str) -> dict[str, Any]:
        """A 2026-07-28 round's inputResponses; raises GivenUp when the call is given up instead."""
        responses: dict[str, Any] = {}
        for key, request in requests.items():
            method, params = (request.get("method"), request.get("params")) if isinstance(request, dict) else (0, 0)
            if method != "elicitation/create" or not isinstance(params, dict):
                raise GivenUp(f"unsupported input request {neutralise(str(method))}")
            responses[key] = self.elicit(params, server, origin)
        return responses

    def on_request(self, conn: wire.Connection, request: dict[str, Any]) -> dict[str, Any] | None:
        """A 2025 server-initiated request: its result, or an error posted here (then None)."""
        params = request.get("params")
        try:
            if request.get("method") != "elicitation/create" or not isinstance(params, dict):
                raise GivenUp(f"unsupported request {neutralise(str(request.get('method')))}")
            return self.elicit(params, conn.server_name, conn.origin)
        except GivenUp as exc:
            self.complain(str(exc))
            error = {"code": NOT_SUPPORTED, "message": str(exc)}
            conn._post({"jsonrpc": "2.0", "id": request.get("id"), "error": error}, None)
            return None


def parse(args: list[str]) -> tuple[frozenset[str], str]:
    flaws: set[str] = set()
    rest = list(args)
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        if option == "--regression-flaw" and rest and rest[0] in REGRESSION_FLAWS:
            flaws.add(rest.pop(0))
        else:
            raise UsageError(f"{option}: not an option of regressions (--regression-flaw is one of: "
                             f"{', '.join(REGRESSION_FLAWS)})")  # fmt: skip
    if len(rest) != 1:
        raise UsageError(USAGE)
    return frozenset(flaws), rest[0]


def run_regressions(build: Build, args: list[str]) -> int:
    """The `regressions` command."""
    if any(a in HELP_WORDS for a in args):
        print(HELP, end="")
        return 0
    flaws, url = parse(args)
    build = Build.of(build.variant, frozenset({"provenance", "result-type"}), build.ui_flaws, build.wire_flaws)
    try:
        conn = wire.Connection(url, CAPABILITIES)
    except ValueError as exc:
        raise UsageError(f"SERVER_URL: {exc}") from exc
    agent = RegressionsAgent(build, flaws)
    conn.on_request = lambda request: agent.on_request(conn, request)
    limit = None if "endless-retry" in flaws else MAX_ROUNDS

    def work() -> int:
        conn.connect("auto")
        status = 0
        for tool in list_tools(conn):
            agent.say(f"== {neutralise(tool)} ==")
            try:
                status |= call_tool(conn, agent, tool, {}, show=show_ui_result, max_rounds=limit)
            except GivenUp as exc:
                agent.complain(f"{neutralise(tool)}: {exc}; the call is given up, nothing was answered")
                status = 1
            except wire.RpcFailure as exc:
                agent.complain(f"{neutralise(tool)}: {exc.code} {neutralise(exc.message)}")
                status = 1
        return status

    return on_the_wire(agent, work)
