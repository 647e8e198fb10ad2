"""What any recorded session shows about its two sides, read once per recording for every session rule.

Each side is judged on what it sent itself: a client's message as the client sent it (`text` of a to-server
message), a server's as the upstream sent it (`upstream_text` of a to-client one, where the proxy changed it), and a
message the proxy made (a mutation with no upstream side) or the harness planted (a run's ledger witness) is
nobody's. What a client was answered is what it got
(`Message.payload`): a round the proxy injected is a round the client had to answer.

A request and its response are paired within their HTTP exchange (flow) and JSON-RPC id, so ids a later client
process reuses never pair across processes. A retry is inferred, and every rule shows the inference in its
evidence: the first later request of the same client, in the same run, with the same method and tool name, after
the response that asked for input.
"""

from __future__ import annotations

import importlib
import json
from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import all_scenarios, extra_roots
from backchannel.recordings.json_form import member
from backchannel.recordings.model import Exchange, Message, Recording

from .eras import ANSWERED, UNKNOWN, Handshake, Hints, Sent, Tracker

SCENARIO = "session"
SPEC = "https://modelcontextprotocol.io/specification/2026-07-28"
MODERN = "2026-07-28"
META = "io.modelcontextprotocol/"
PROTOCOL_VERSION = f"{META}protocolVersion"
CLIENT_CAPABILITIES = f"{META}clientCapabilities"
CLIENT_INFO = f"{META}clientInfo"
NOT_EXERCISED = "not-exercised"
ROUTING_HEADERS = frozenset({"mcp-protocol-version", "mcp-method", "mcp-name"})
INPUT_METHODS = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}


@dataclass(slots=True)  # not frozen: a recording makes thousands, and a frozen init costs twice (treat as read-only)
class Request:
    """A request one side sent, as it sent it, with its answer as the other side sent it and as this side got it."""

    message: Message
    sent: Any  # the payload as the sender sent it
    exchange: Exchange | None  # the HTTP exchange that carried it (a client's POST)
    answer: Message | None = None  # the response, in the same flow with the same id
    modern: bool = False  # a 2026-07-28 request: its _meta or its header says so, or it is server/discover
    params: Mapping[str, Any] = field(default_factory=dict)  # its params as sent ({} when not an object)
    meta: Mapping[str, Any] = field(default_factory=dict)  # its params' _meta as sent ({} when not an object)
    headers: Mapping[str, str] = field(default_factory=dict)  # its POST's ROUTING_HEADERS (lowered), first value
    answered_as_sent: Any = None  # the answer as the answering side sent it; None: none, or the proxy made it
    era: str | None = None  # the protocol era it speaks (eras.py), and how that is known
    era_from: str = UNKNOWN
    handshake: Handshake | None = None  # the initialize that opened its session (2025 eras), and whether that is
    handshake_sure: bool = False  # sure (its Mcp-Session-Id names it) or inferred (the run's last)
    in_post: bool = False  # its exchange is a POST

    @classmethod
    def of(
        cls, message: Message, sent: Any, exchange: Exchange | None, answer: Message | None, tracker: Tracker
    ) -> Request:
        """The request with what its run's handshakes so far say of its era and session."""
        params = member(sent, "params")
        params = params if isinstance(params, dict) else {}
        meta = params.get("_meta")
        meta = meta if isinstance(meta, dict) else {}
        flow = tracker.hints.of(message.flow_id)
        headers = {k: v for k, v in flow.sent.items() if k in ROUTING_HEADERS} if flow.posted else {}
        modern = (
            message.method == "server/discover"
            or meta.get(PROTOCOL_VERSION) == MODERN
            or headers.get("mcp-protocol-version") == MODERN
        )
        as_sent = None if answer is None or made_by_proxy(answer) else sent_payload(answer)
        if message.direction == "to-server":
            era, era_from = tracker.of_client_request(modern, message, params, as_sent)
        else:
            era, era_from = tracker.of_exchange(message.flow_id)
        handshake, sure = tracker.handshake_of(message.flow_id)
        return cls(message, sent, exchange, answer, modern, params, meta, headers, as_sent, era, era_from,
                   handshake, sure, flow.posted)  # fmt: skip

    @property
    def posted(self) -> bool:
        """It came in a POST of its own (Streamable HTTP), so its headers are its own."""
        return self.exchange is not None and self.in_post

    @property
    def got(self) -> Any:
        """The answer's payload as the requester got it (None: never answered)."""
        return None if self.answer is None else self.answer.payload

    def evidence(self, note: str) -> Evidence:
        return cite(self.message, note)


@dataclass(frozen=True, slots=True)
class Round:
    """A client request the client got `input_required` for, and the retry inferred to answer it (if any)."""

    request: Request
    result: Mapping[str, Any]  # the InputRequiredResult as the client got it
    retry: Request | None

    @property
    def state(self) -> Any:
        """The requestState the client was given; None when the result carried none."""
        return self.result.get("requestState")

    @property
    def has_state(self) -> bool:
        return "requestState" in self.result

    def evidence(self) -> tuple[Evidence, ...]:
        asked = Evidence(
            kind="message",
            run=self.request.message.run_id,
            seq=self.request.answer.seq if self.request.answer else None,
            note="input_required, as the client got it",
        )
        if self.retry is None:
            return (self.request.evidence("the request"), asked)
        return (
            self.request.evidence("the request"),
            asked,
            self.retry.evidence("its retry (inferred: the next request of the same method and tool after it)"),
        )


@dataclass(slots=True)
class Session:
    """One run's requests in order, each side's, and the client's MRTR rounds."""

    run_id: str | None
    staged: str | None = None  # the side backchannel itself played in this run ("server", "client"), not judged
    client: list[Request] = field(default_factory=list)  # requests the client sent
    server: list[Request] = field(default_factory=list)  # requests the server sent (server-initiated)
    client_responses: list[Message] = field(default_factory=list)  # responses the client sent
    rounds: list[Round] = field(default_factory=list)

    modern: list[Request] = field(default_factory=list)  # the client's 2026-07-28 requests
    sent: list[Sent] = field(default_factory=list)  # every message either side sent, in order, with its era
    handshakes: list[Handshake] = field(default_factory=list)  # its initialize requests (2025 eras), in order


def cite(message: Message, note: str) -> Evidence:
    """Evidence pointing at one recorded message."""
    return Evidence(kind="message", run=message.run_id, seq=message.seq, note=note)


def sent_payload(message: Message) -> Any:
    """A message as its sender sent it: a client's request body (`text`; `upstream_text` is what the proxy
    forwarded), a server's answer as the upstream sent it (`upstream_text` where the proxy changed it)."""
    return message.payload if message.direction == "to-server" else message.upstream_payload


def made_by_proxy(message: Message) -> bool:
    """The proxy made this message (a mutation with no upstream side): neither party sent it."""
    return message.mutation is not None and message.upstream_text is None


def _sessions(rec: Recording) -> list[Session]:
    exchanges = {x.flow_id: x for x in rec.exchanges}
    by_run: dict[str | None, Session] = {}
    in_flow: dict[tuple[str, str | None, str], Message] = {}  # (direction, flow, id): an answer in its own exchange
    on_streams: dict[tuple[str, str | None, str], list[Message]] = {}  # answers on a stream no POST of theirs made
    client_answers: dict[tuple[str | None, str], list[Message]] = {}  # the client's responses, by run and id
    for message in rec.messages:
        if message.kind in ("response", "error") and message.jsonrpc_id is not None:
            in_flow.setdefault((message.direction, message.flow_id, message.jsonrpc_id), message)
            exchange = exchanges.get(message.flow_id or "")
            if exchange is None or (exchange.method or "").upper() != "POST":
                on_streams.setdefault((message.direction, message.run_id, message.jsonrpc_id), []).append(message)
            if message.direction == "to-server":
                client_answers.setdefault((message.run_id, message.jsonrpc_id), []).append(message)
    # the harness's own witness request, planted beside the client's, is nobody's (ids compared as JSON text)
    planted = {run.id: json.dumps(run.detail.planted_id) for run in rec.runs if run.detail.planted_id is not None}
    hints = Hints(exchanges)
    trackers: dict[str | None, Tracker] = {}
    answering: dict[int, Request] = {}  # an answer's seq: the request it answers
    nobodys: set[int] = set()  # the answers to the planted witness
    for message in rec.messages:
        session = by_run.get(message.run_id)
        if session is None:
            session = by_run[message.run_id] = Session(message.run_id)
            trackers[message.run_id] = Tracker(hints)
        if made_by_proxy(message) or message.seq in nobodys:
            continue
        tracker = trackers[message.run_id]
        client = message.direction == "to-server"
        if message.kind == "request" and message.jsonrpc_id is not None:
            sent = sent_payload(message)
            back = "to-client" if client else "to-server"
            answer = in_flow.get((back, message.flow_id, message.jsonrpc_id))
            if client and planted.get(message.run_id or "") == message.jsonrpc_id:
                if answer is not None:
                    nobodys.add(answer.seq)
                continue
            exchange = exchanges.get(message.flow_id or "")
            if answer is None:  # a client's answer to a server's request comes in a POST of its own, and a
                # server's answer may come on a stream that is not its request's: the first later one in the run
                later = on_streams.get((back, message.run_id, message.jsonrpc_id), [])
                if not client:
                    later = client_answers.get((message.run_id, message.jsonrpc_id), [])
                answer = next((m for m in later if m.seq > message.seq), None)
            request = Request.of(message, sent, exchange, answer, tracker)
            if answer is not None:
                answering[answer.seq] = request
            (session.client if client else session.server).append(request)
            session.sent.append(Sent(message, sent, "client" if client else "server", request.era, request.era_from))
            continue
        if message.kind not in ("response", "error", "notification"):
            continue
        asked = answering.get(message.seq)
        if asked is not None:
            era, era_from = asked.era, f"{ANSWERED} {asked.era_from}"
        else:
            era, era_from = tracker.of_exchange(message.flow_id)
        method = asked.message.method if asked is not None else None
        sender = "client" if client else "server"
        session.sent.append(Sent(message, sent_payload(message), sender, era, era_from, method))
        if client and message.kind in ("response", "error"):
            session.client_responses.append(message)
    scenarios = {run.id: run.scenario for run in rec.runs}
    for run_id, session in by_run.items():
        session.handshakes = trackers[run_id].handshakes
        session.rounds = _rounds(session.client)
        session.modern = [r for r in session.client if r.modern]
        session.staged = staged_side(scenarios.get(session.run_id or ""))
    return list(by_run.values())


def staged_side(scenario: str | None) -> str | None:
    """The side backchannel plays in a run of `scenario` (its oracle package's STAGED: "server" for a client
    scenario, whose endpoint is backchannel's, "client" for a server scenario); None for a session of two parties
    that are not backchannel's (a `record --upstream` run, a replay's live client against its server side)."""
    if not scenario:
        return None
    return _staged(scenario, extra_roots())


@cache
def _staged(scenario: str, roots: tuple[str, ...]) -> str:
    """A scenario's STAGED, read once per scenario and set of scenario roots (reading the registry is not cheap)."""
    package = all_scenarios().get(scenario)
    if package is None:
        return "server"  # a scenario this oracle does not know staged its endpoint: its server is not judged
    staged = getattr(importlib.import_module(package), "STAGED", "server")
    return staged if staged in ("server", "client") else "server"


def _rounds(requests: Sequence[Request]) -> list[Round]:
    found: list[Round] = []
    taken: set[int] = set()
    alike: dict[tuple[Any, str], list[int]] = {}  # (method, tool name as JSON): the requests' indices, in order
    for index, request in enumerate(requests):
        alike.setdefault(_alike_key(request), []).append(index)
    for index, request in enumerate(requests):
        result = member(request.got, "result")
        if not isinstance(result, dict) or result.get("resultType") != "input_required":
            continue
        after = request.answer.seq if request.answer is not None else request.message.seq
        candidates = alike[_alike_key(request)]
        retry = next(
            (
                requests[later]
                for later in candidates[bisect_right(candidates, index) :]
                if requests[later].message.seq > after and requests[later].message.seq not in taken
            ),
            None,
        )
        if retry is not None:
            taken.add(retry.message.seq)
        found.append(Round(request, result, retry))
    return found


def _alike_key(request: Request) -> tuple[Any, str]:
    """What a retry shares with its request: the method and the tool name (as JSON text: a name may be any JSON)."""
    name = request.params.get("name")
    return request.message.method, name if isinstance(name, str) else json.dumps(name, sort_keys=True)


_LAST: list[tuple[Recording, list[Session]]] = []  # the last recording read, so every rule reads it once


def sessions(rec: Recording) -> list[Session]:
    """Every run's session, computed once per recording (the rules are called one after another on one)."""
    if _LAST and _LAST[0][0] is rec:
        return _LAST[0][1]
    found = _sessions(rec)
    _LAST[:] = [(rec, found)]
    return found


def session_of(rec: Recording, run_id: str | None) -> Session | None:
    """One run's session: its server-initiated requests carry the client's answers (`Request.answer`, paired by
    run and id: a client POSTs its answer on its own) and its handshakes what each `initialize` declared."""
    return next((session for session in sessions(rec) if session.run_id == run_id), None)


def client_sessions(rec: Recording) -> Iterator[Session]:
    """The sessions whose client is judged: every one but those where backchannel played the client."""
    return (session for session in sessions(rec) if session.staged != "client")


def server_sessions(rec: Recording) -> Iterator[Session]:
    """The sessions whose server is judged: every one but those where backchannel's endpoint played it."""
    return (session for session in sessions(rec) if session.staged != "server")


def modern_posts(rec: Recording) -> Iterator[Request]:
    """The judged clients' 2026-07-28 requests that came in a POST of their own (their headers are theirs)."""
    for session in client_sessions(rec):
        yield from (request for request in session.modern if request.posted)


def rounds(rec: Recording) -> Iterator[Round]:
    """The MRTR rounds of every judged client."""
    for session in client_sessions(rec):
        yield from session.rounds


@dataclass(slots=True)
class Tally:
    """What one rule saw across a recording: how often it was exercised, where it broke, where it held."""

    exercised: int = 0
    runs: set[str | None] = field(default_factory=set)
    broken: list[tuple[str, tuple[Evidence, ...]]] = field(default_factory=list)
    kept: list[Evidence] = field(default_factory=list)

    def exercise(self, run: str | None) -> None:
        self.exercised += 1
        self.runs.add(run)

    def broke(self, why: str, evidence: Sequence[Evidence]) -> None:
        self.broken.append((why, tuple(evidence)))

    @property
    def keeping(self) -> bool:
        """Whether more evidence of the rule held is still cited (build it only then: most is never shown)."""
        return len(self.kept) < KEPT_CITED

    def keep(self, *evidence: Evidence) -> None:
        """Evidence of the rule held (the first few are cited)."""
        if len(self.kept) < KEPT_CITED:
            self.kept.extend(evidence[: KEPT_CITED - len(self.kept)])

    def finding(self, *, what: str, kept: str, level: str = "MUST") -> Finding:
        """One finding for the rule: SKIP not-exercised, PASS, or FAIL (WARN for a SHOULD) naming each break with
        its evidence (the first BROKEN_CITED cited)."""
        run = next(iter(self.runs)) if len(self.runs) == 1 else None
        if self.exercised == 0:
            return Finding.skipped(NOT_EXERCISED, f"nothing in the recording exercised this rule ({what})", run=run)
        if self.broken:
            shown = [e for _, ev in self.broken[:BROKEN_CITED] for e in ev]
            message = f"{len(self.broken)} of {self.exercised} {what} broke it: "
            message += "; ".join(why for why, _ in self.broken[:3])
            if len(self.broken) > 3:
                message += f"; and {len(self.broken) - 3} more"
            return (Finding.warned if level == "SHOULD" else Finding.failed)(message, *shown, run=run)
        return Finding.passed(f"{self.exercised} {what}: {kept}", *self.kept, run=run)


KEPT_CITED = 3
BROKEN_CITED = 10
