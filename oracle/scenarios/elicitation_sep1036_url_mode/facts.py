"""What an `elicitation-sep1036-url-mode` recording shows, shared by its checks: each probe's call and retry, how
each ended, and the one gate every check passes through first (harness problems, a server that is down, not MCP,
hanging, or without `test_url_elicitation`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from backchannel.oracle import harness
from backchannel.oracle.model import Evidence, Finding
from backchannel.recordings.model import Exchange, Message, Recording, Run

from . import SCENARIO as SCENARIO  # re-exported: checks import the name with the facts

SPEC = "https://modelcontextprotocol.io/specification/2026-07-28"
ELICITATION = f"{SPEC}/client/elicitation"
URL_TOOL = "test_url_elicitation"
FORM_TOOL = "test_input_required_result_elicitation"
MISSING_CAPABILITY = -32021
INTERNAL_ERROR = -32603
URL_ELICITATION_REQUIRED = -32042
DISCOVERY = "discovery"
BOTH_MODES = ("both-modes-accept", "both-modes-decline", "both-modes-cancel")
DECLINE_CANCEL = ("both-modes-decline", "both-modes-cancel")
FORM_ONLY = ("elicitation-empty", "form-only")
REVERSE = "url-only-form-tool"
UNTESTABLE = "Not testable:"
ANSWERED = ("result", "error")


@dataclass(frozen=True)
class Step:
    """One request the scripted client sent in a probe, the JSON-RPC answer it got, and how it ended."""

    run: Run
    request: Message
    response: Message | None
    pushed: tuple[Message, ...]  # requests the server sent on the answer's SSE stream (the pre-MRTR way)
    exchange: Exchange | None
    outcome: str  # result, error, not-jsonrpc, timeout, dropped, unreachable (the scripted client's view)
    detail: str

    @property
    def answered(self) -> bool:
        return self.response is not None and self.outcome in ANSWERED

    @property
    def result(self) -> dict[str, Any] | None:
        payload = self.response.payload if self.response else None
        result = payload.get("result") if isinstance(payload, dict) else None
        return result if isinstance(result, dict) else None

    @property
    def error(self) -> dict[str, Any] | None:
        payload = self.response.payload if self.response else None
        error = payload.get("error") if isinstance(payload, dict) else None
        return error if isinstance(error, dict) else None

    @property
    def error_code(self) -> int | None:
        code = self.error.get("code") if self.error else None
        return code if isinstance(code, int) and not isinstance(code, bool) else None

    @property
    def status(self) -> int | None:
        """The HTTP status the client saw."""
        return self.exchange.status if self.exchange else None

    @property
    def input_requests(self) -> dict[str, Any]:
        result = self.result or {}
        requests = result.get("inputRequests") if result.get("resultType") == "input_required" else None
        return requests if isinstance(requests, dict) else {}

    def elicitations(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """(where, params) of every elicitation/create in the answer: each inputRequests value, then each request
        pushed on the stream. `params` is {} when the request carries none."""
        for key, request in self.input_requests.items():
            if isinstance(request, dict) and request.get("method") == "elicitation/create":
                params = request.get("params")
                yield f"inputRequests.{key}", params if isinstance(params, dict) else {}
        for message in self.pushed:
            payload = message.payload if isinstance(message.payload, dict) else {}
            if payload.get("method") == "elicitation/create":
                params = payload.get("params")
                yield "a request pushed on the stream", params if isinstance(params, dict) else {}

    def got(self) -> str:
        """What this request got, in a few words, for messages."""
        if self.error is not None:
            message = str(self.error.get("message", ""))[:80]
            return f"JSON-RPC error {self.error.get('code')} ({message}) under HTTP {self.status}"
        if self.result is not None:
            kind = self.result.get("resultType", "no resultType")
            extra = " isError" if self.result.get("isError") is True else ""
            return f"a result ({kind}{extra}) under HTTP {self.status}"
        if self.outcome == "timeout":
            return f"no answer: {self.detail or 'timed out'}"
        if self.exchange is not None and self.exchange.error:
            return f"no answer: the connection failed ({self.exchange.error[:120]})"
        if self.exchange is not None and self.exchange.status is not None:
            kind = (self.exchange.header("content-type", response=True) or "no content type").split(";")[0]
            return f"HTTP {self.exchange.status} ({kind[:60]}) with no JSON-RPC answer"
        return f"no answer: {self.outcome}" + (f" ({self.detail})" if self.detail else "")

    def evidence(self, note: str) -> Evidence:
        message = self.response or self.request
        return Evidence(kind="message", run=self.run.id, seq=message.seq, note=note)


@dataclass(frozen=True)
class Probe:
    run: Run
    call: Step | None
    retry: Step | None


def _facts(run: Run) -> dict[str, Any]:
    return dict(run.detail.facts)


def _outcome(response: Message | None, exchange: Exchange | None) -> str:
    """How a request ended, read from the wire (the scripted client's own word is in the run's facts)."""
    if response is not None:
        return "error" if isinstance(response.payload, dict) and "error" in response.payload else "result"
    if exchange is not None and exchange.error:
        return "dropped"
    return "not-jsonrpc" if exchange is not None and exchange.status is not None else "no-answer"


def steps(rec: Recording, run: Run) -> list[Step]:
    """The run's requests from the scripted client, in order, each with its answer and exchange."""
    messages = list(rec.messages_in(run.id))
    exchanges = {exchange.flow_id: exchange for exchange in rec.exchanges_in(run.id)}
    answers: dict[tuple[str | None, str | None], Message] = {}
    pushed: dict[str | None, list[Message]] = {}
    for m in messages:
        if m.direction != "to-client":
            continue
        if m.kind in ("response", "error"):
            answers.setdefault((m.flow_id, m.jsonrpc_id), m)
        elif m.kind == "request":
            pushed.setdefault(m.flow_id, []).append(m)
    facts = _facts(run)
    found: list[Step] = []
    for m in messages:
        if m.direction != "to-server" or m.kind != "request":
            continue
        response = answers.get((m.flow_id, m.jsonrpc_id))
        name = ("call", "retry")[min(len(found), 1)] if m.method == "tools/call" else ""
        outcome = facts.get(name) if name else None
        exchange = exchanges.get(m.flow_id) if m.flow_id else None
        if not isinstance(outcome, str):
            outcome = _outcome(response, exchange)
        detail = facts.get(f"{name}_detail") if name else None
        found.append(
            Step(
                run=run,
                request=m,
                response=response,
                pushed=tuple(pushed.get(m.flow_id, ())),
                exchange=exchange,
                outcome=outcome,
                detail=detail if isinstance(detail, str) else "",
            )
        )
    return found


def probe(rec: Recording, name: str) -> Probe | None:
    """The named probe's run (the last, if repeated), its first tools/call and the retry after it."""
    runs = [run for run in rec.runs if run.name == name]
    if not runs:
        return None
    calls = [step for step in steps(rec, runs[-1]) if step.request.method == "tools/call"]
    return Probe(runs[-1], calls[0] if calls else None, calls[1] if len(calls) > 1 else None)


def listed_tools(rec: Recording) -> list[str] | None:
    """Every tool name the server's tools/list answers listed in the discovery run; None if none was answered."""
    runs = [run for run in rec.runs if run.name == DISCOVERY]
    if not runs:
        return None
    names: list[str] | None = None
    for step in steps(rec, runs[-1]):
        if step.request.method != "tools/list" or step.result is None:
            continue
        tools = step.result.get("tools")
        names = (names or []) + [
            t["name"] for t in (tools if isinstance(tools, list) else []) if isinstance(t, dict) and "name" in t
        ]
    return [n for n in names if isinstance(n, str)] if names is not None else None


def _discovery_failure(rec: Recording) -> Finding | None:
    """ERROR when the server could not be asked at all; the untestable FAIL when it lacks test_url_elicitation."""
    for anomaly in rec.anomalies:
        # the harness's own check before any run (the proxy reports a connection lost mid-run the same way)
        if anomaly.kind == "upstream-unreachable" and anomaly.run_id is None and anomaly.flow_id is None:
            seen = Evidence(kind="anomaly", seq=anomaly.seq, note=anomaly.kind)
            return Finding.errored("server-unreachable", f"the server could not be reached: {anomaly.detail}", seen)
    runs = [run for run in rec.runs if run.name == DISCOVERY]
    if not runs:
        return Finding.errored("incomplete-recording", "the recording has no discovery run")
    run = runs[-1]
    listing = [step for step in steps(rec, run) if step.request.method == "tools/list"]
    tools = listed_tools(rec)
    if tools is None:
        last = listing[-1] if listing else None
        outcome = str(_facts(run).get("tools_list", last.outcome if last else "not-sent"))
        evidence = [last.evidence("tools/list")] if last else []
        if last is not None and last.error is not None:
            return untestable(f"tools/list answered {last.got()}, so no tool can be called", *evidence, run=run.id)
        if outcome == "timeout":
            timeout = _facts(run).get("request_timeout")
            return Finding.errored(
                "server-hung", f"the server did not answer tools/list within {timeout} s", *evidence, run=run.id
            )
        why = last.got() if last else "tools/list was never sent"
        status = f" (HTTP {last.status})" if last is not None and last.status is not None else ""
        return Finding.errored(
            "not-mcp", f"the server did not answer tools/list with JSON-RPC{status}: {why}", *evidence, run=run.id
        )
    if URL_TOOL not in tools:
        shown = ", ".join(tools[:20]) + (" …" if len(tools) > 20 else "") if tools else "no tools"
        evidence = [listing[-1].evidence("tools/list")] if listing else []
        return untestable(f"the server does not offer {URL_TOOL} (tools/list lists {shown})", *evidence, run=run.id)
    return None


def untestable(why: str, *evidence: Evidence, run: str | None = None) -> Finding:
    """The FAIL every check reports for a server this scenario cannot exercise: never a pass by default."""
    return Finding.failed(f"{UNTESTABLE} {why}", *evidence, run=run, untestable=True)


def gate(rec: Recording) -> Finding | None:
    """The finding every check reports instead of judging, or None when the probes can be judged."""
    problem = harness.first_problem(rec)
    if problem is not None:
        return problem
    return _discovery_failure(rec)


def stopped(rec: Recording) -> str:
    """Why a probe is missing: the server stopped answering (the runner gave up), or the recording is incomplete."""
    for anomaly in rec.anomalies:
        if anomaly.kind == "server-stopped-answering":
            return anomaly.detail
    return ""


def missing_probe(rec: Recording, name: str) -> Finding:
    why = stopped(rec)
    if why:
        return Finding.errored("server-stopped-answering", f"probe {name} was not sent: {why}")
    return Finding.errored("incomplete-recording", f"the recording has no {name} probe")


def unanswered(found: Iterable[Step], what: str) -> Finding:
    """ERROR for calls that got no JSON-RPC answer at all: a server that hangs or drops is never a PASS."""
    found = list(found)
    text = "; ".join(f"{step.run.name}: {step.got()}" for step in found)
    reason = "server-hung" if all(step.outcome == "timeout" for step in found) else "server-did-not-answer"
    return Finding.errored(reason, f"{what}: {text}", *(step.evidence(step.outcome) for step in found))


def compact(value: object, limit: int = 200) -> str:
    """JSON text of a value from the wire, cut to `limit` characters, for messages."""
    try:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def declared(step: Step) -> str:
    """The client capabilities the probe declared, as the JSON text it sent."""
    value = _facts(step.run).get("declared")
    return value if isinstance(value, str) else "?"
