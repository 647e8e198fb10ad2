"""What an `sdk-regressions` recording shows: every elicitation the client was asked, with what it answered, and the
MRTR rounds of the tool that never stops asking.

An elicitation is found wherever it was asked: in 2026-07-28 an `elicitation/create` entry of a round's
`inputRequests`, answered (or not) by the entry of the same key in the retry's `inputResponses`; in a 2025 era the
server-initiated `elicitation/create` on the call's stream, answered by the client's POSTed response (the session
facts pair them). The capabilities are those of the request that drew it (2026-07-28: its `_meta`; 2025: the
session's `initialize`). The tools and the constants they share with the endpoint (proxy/scenarios/sdk_regressions)
live here, so the two sides cannot drift.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from backchannel.oracle.model import Evidence
from backchannel.oracle.session.capabilities import declared
from backchannel.oracle.session.facts import MODERN, Request, Round, cite, sessions
from backchannel.recordings.json_form import member
from backchannel.recordings.model import Message, Recording

from . import SCENARIO as SCENARIO

SPEC = "https://modelcontextprotocol.io/specification/2026-07-28"
ELICITATION = f"{SPEC}/client/elicitation"
MRTR = f"{SPEC}/basic/patterns/mrtr"
DECLINE_TOOL = "decline_then_accept"  # asks one form (declined by the contract), then another (accepted)
DECLINE_URL_TOOL = "decline_url_then_accept"  # for a client that declared URL mode: a URL request, then a form
LOOP_TOOL = "keep_asking"  # every answer draws a new input_required, until the endpoint stops the loop
MODE_TOOL = "ask_other_mode"  # asks in the elicitation mode the client did not declare (2026-07-28)
DECLINE_PREFIX = "DECLINE:"  # a form whose message starts so is declined by the contract's stand-in user
LOOP_ROUNDS = 16  # the endpoint's bound: after this many input_required rounds its next answer ends the loop
CALLS = "tools/call"


@dataclass(frozen=True)
class Asked:
    """One elicitation the client was asked, and its answer as the client sent it."""

    run_id: str | None
    era: str | None
    tool: str | None  # the tool whose call drew it
    key: str | None  # its inputRequests key (2026-07-28); None for a 2025 server request
    params: Mapping[str, Any]  # the elicitation's params as the client got them
    asked: Message  # the input_required result carrying it, or the server's request
    answer: Message | None  # the retry carrying the answer, or the client's response; None: never answered
    result: Any  # the ElicitResult as sent; None: no answer (no retry, no entry, or an error)
    capabilities: Mapping[str, Any] | None  # what the request that drew it declared
    round_: Round | None = None  # the 2026-07-28 round it came in

    @property
    def action(self) -> Any:
        return member(self.result, "action")

    @property
    def content(self) -> Any:
        return member(self.result, "content")

    @property
    def message(self) -> str:
        text = self.params.get("message")
        return text if isinstance(text, str) else ""

    @property
    def mode(self) -> str:
        """The mode the request asked in: a request without `mode` is form mode (the spec's rule)."""
        mode = self.params.get("mode", "form")
        return mode if isinstance(mode, str) else repr(mode)

    @property
    def schema_keys(self) -> frozenset[str]:
        """The property names of its requestedSchema (none for a URL request)."""
        props = member(self.params.get("requestedSchema"), "properties")
        return frozenset(props) if isinstance(props, dict) else frozenset()

    def evidence(self, note: str) -> tuple[Evidence, ...]:
        where = f"elicitation {self.key!r} in input_required" if self.key is not None else "elicitation/create"
        asked = cite(self.asked, where)
        return (asked,) if self.answer is None else (asked, cite(self.answer, note))


def _tool_of(request: Request) -> str | None:
    name = request.params.get("name")
    return name if request.message.method == CALLS and isinstance(name, str) else None


def _modern(run_id: str | None, round_: Round) -> Iterator[Asked]:
    asked = round_.result.get("inputRequests")
    retry = round_.retry
    responses = retry.params.get("inputResponses") if retry is not None else None
    at = round_.request.answer or round_.request.message
    for key, value in asked.items() if isinstance(asked, dict) else ():
        if member(value, "method") != "elicitation/create":
            continue
        params = member(value, "params")
        result = responses.get(key) if isinstance(responses, dict) else None
        answer = retry.message if retry is not None else None
        yield Asked(run_id, MODERN, _tool_of(round_.request), key, params if isinstance(params, dict) else {}, at,
                    answer, result, declared(round_.request), round_)  # fmt: skip


def elicitations(rec: Recording) -> list[Asked]:
    """Every elicitation asked in the scenario's runs, in recording order, with the client's answer."""
    runs = {run.id for run in rec.runs if run.scenario == SCENARIO}
    found: list[Asked] = []
    for session in sessions(rec):
        if session.run_id not in runs:
            continue
        calls = {r.message.flow_id: r for r in session.client if r.message.method == CALLS}
        for request in session.server:
            if request.message.method != "elicitation/create":
                continue
            call = calls.get(request.message.flow_id)
            tool = _tool_of(call) if call is not None else None
            result = member(request.answered_as_sent, "result")
            capabilities = request.handshake.capabilities if request.handshake is not None else None
            found.append(Asked(session.run_id, request.era, tool, None, request.params, request.message,
                               request.answer, result, capabilities))  # fmt: skip
        for round_ in session.rounds:
            found.extend(_modern(session.run_id, round_))
    return sorted(found, key=lambda a: a.asked.seq)


def loop_rounds(rec: Recording) -> dict[str | None, list[Round]]:
    """The 2026-07-28 rounds of LOOP_TOOL per run of the scenario, in order."""
    runs = {run.id for run in rec.runs if run.scenario == SCENARIO}
    found: dict[str | None, list[Round]] = {}
    for session in sessions(rec):
        if session.run_id not in runs:
            continue
        rounds = [r for r in session.rounds if _tool_of(r.request) == LOOP_TOOL]
        if rounds:
            found[session.run_id] = rounds
    return found


def marked(value: Any, nonce: str) -> set[str]:
    """Every string in `value` (keys and leaves, at any depth) that carries the recording's nonce: a value the
    server minted for one request, which nothing but that request can have put in an answer."""
    if not nonce:
        return set()
    found: set[str] = set()
    if isinstance(value, str):
        if nonce in value:
            found.add(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            found |= marked(key, nonce) | marked(item, nonce)
    elif isinstance(value, list):
        for item in value:
            found |= marked(item, nonce)
    return found
