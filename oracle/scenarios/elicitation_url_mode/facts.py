"""What an `elicitation-url-mode` recording shows, shared by its checks: each tool's rounds, in order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.parties import agent_of
from backchannel.recordings.model import Message, Recording, Run

from . import SCENARIO as SCENARIO  # re-exported: checks import the name with the facts
from .eras import MODERN, era_gate, run_era

SPEC = "https://modelcontextprotocol.io/specification/2026-07-28"
MISSING_CAPABILITY = -32021


@dataclass(frozen=True)
class Round:
    """One tools/call the client sent for a tool, and the final answer it got."""

    request: Message
    response: Message | None

    @property
    def params(self) -> dict[str, Any]:
        payload = self.request.payload
        params = payload.get("params") if isinstance(payload, dict) else None
        return params if isinstance(params, dict) else {}

    @property
    def result(self) -> dict[str, Any]:
        payload = self.response.payload if self.response else None
        result = payload.get("result") if isinstance(payload, dict) else None
        return result if isinstance(result, dict) else {}

    @property
    def error_code(self) -> int | None:
        payload = self.response.payload if self.response else None
        error = payload.get("error") if isinstance(payload, dict) else None
        return error.get("code") if isinstance(error, dict) and isinstance(error.get("code"), int) else None

    @property
    def input_requests(self) -> dict[str, Any]:
        if self.result.get("resultType") != "input_required":
            return {}
        requests = self.result.get("inputRequests")
        return requests if isinstance(requests, dict) else {}

    @property
    def input_responses(self) -> dict[str, Any]:
        answers = self.params.get("inputResponses")
        return answers if isinstance(answers, dict) else {}

    def evidence(self, note: str) -> Evidence:
        return Evidence(kind="message", run=self.request.run_id, seq=self.request.seq, note=note)


def contract_run(rec: Recording) -> Run | None:
    runs = [run for run in rec.runs if run.name == "contract"]
    return runs[-1] if runs else None


def rounds(rec: Recording, run: Run, tool: str) -> list[Round]:
    """Every tools/call for `tool`, in order, each with the response that ended its exchange."""
    messages = list(rec.messages_in(run.id))
    answers: dict[tuple[str | None, str | None], Message] = {}  # the first answer per flow and id, in order
    for m in messages:
        if m.direction == "to-client" and m.kind in ("response", "error"):
            answers.setdefault((m.flow_id, m.jsonrpc_id), m)
    out = []
    for message in messages:
        if message.direction != "to-server" or message.method != "tools/call" or message.kind != "request":
            continue
        payload = message.payload
        params = payload.get("params") if isinstance(payload, dict) else None
        if not isinstance(params, dict) or params.get("name") != tool:
            continue
        out.append(Round(message, answers.get((message.flow_id, message.jsonrpc_id))))
    return out


def not_exercised(rec: Recording, tool: str, *, mrtr_only: bool = False) -> Finding | None:
    """A SKIP when the tool was never exercised: no contract run, no call, an era where the check cannot apply
    (eras.era_gate), or -32021 for an undeclared mode."""
    run = contract_run(rec)
    if run is None:
        return Finding.errored("incomplete-recording", "the recording has no contract run")
    found = rounds(rec, run, tool)
    if not found:
        return Finding.skipped("tool-not-called", f"the client never called {tool}", run=run.id)
    gate = era_gate(rec, run, tool, mrtr_only=mrtr_only)
    if gate is not None:
        return gate
    if found[0].error_code == MISSING_CAPABILITY:
        error = found[0].response.payload.get("error", {}) if found[0].response else {}
        needed = error.get("data", {}).get("requiredCapabilities") if isinstance(error, dict) else None
        return Finding.skipped(
            "mode-not-declared",
            f"{tool} needs an elicitation mode the client did not declare "
            f"(the server answered -32021, requiredCapabilities {needed})",
            found[0].evidence("-32021"),
            run=run.id,
        )
    return None


def exercised(rec: Recording, tool: str, *, mrtr_only: bool = False) -> tuple[Run, list[Round]] | Finding:
    """The contract run and the tool's rounds (in a 2025 era: its one call, and any retry), or the SKIP/ERROR that
    says why the tool cannot be judged."""
    stop = not_exercised(rec, tool, mrtr_only=mrtr_only)
    if stop is not None:
        return stop
    run = contract_run(rec)
    assert run is not None  # not_exercised already answered for a missing run
    return run, rounds(rec, run, tool)


def action_of(answer: Any) -> str | None:
    return answer.get("action") if isinstance(answer, dict) and isinstance(answer.get("action"), str) else None


def message_of(request: Any) -> str:
    params = request.get("params") if isinstance(request, dict) else None
    message = params.get("message") if isinstance(params, dict) else None
    return message if isinstance(message, str) else ""


def legacy(rec: Recording, run: Run) -> bool:
    """The run spoke a 2025 era: its input requests went out as server requests (eras.asked), not in retries."""
    era = run_era(rec, run)
    return era is not None and era != MODERN


AGENT_POLICY = "agent-answers-by-its-own-policy"


def own_policy(run: Run, number: int, wanted: str, got: str | None, *evidence: Evidence) -> Finding:
    """A coding agent's answer that differs from what the contract asks: not judged against the contract (an agent
    was never told it), and the rounds after it were not reached as the contract lays them out."""
    agent = agent_of(run)
    return Finding.skipped(
        AGENT_POLICY,
        f"round {number} was answered {got} by the coding agent {agent} (its own policy; the scenario's contract "
        f"asks a contract client for {wanted}), so whether it answers each new round anew is not decided here",
        *evidence,
        run=run.id,
    )
