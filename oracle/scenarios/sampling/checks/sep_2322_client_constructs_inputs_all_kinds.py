"""One round that asks for an elicitation, a sampling request and roots at once is answered whole in one retry."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from backchannel.oracle.by_hand import REASON, is_by_hand
from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.oracle.scenarios.elicitation_ui.facts import judged_runs, tool_of
from backchannel.oracle.terminal import screens_in
from backchannel.recordings.model import Message, Recording, Run

from ..facts import SCENARIO
from ..payloads import ALL_KINDS_TOOL

SPEC = "https://modelcontextprotocol.io/specification/2026-07-28"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _cite(message: Message, note: str) -> Evidence:
    return Evidence(kind="message", run=message.run_id, seq=message.seq, note=note)


@check(
    "sep-2322-client-constructs-inputs-all-kinds",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/basic/patterns/mrtr#client-requirements-basic-workflow",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
    title="A round mixing elicitation, sampling and roots requests is answered whole in one retry (2026-07-28)",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """2026-07-28: check_everything answers `input_required` with one request of every kind the call declared
    (elicitation form, sampling, roots/list). The client's retry must carry an answer for every key of the round
    (the same family as `sep-2322-client-constructs-inputs`: each input request answered by constructing its
    response). FAIL when the first retry leaves a key out, or no retry comes with no user step after the round
    arrived (a client that asked its user and then gave the call up was denied by the user: SKIP). SKIP: in the
    2025 eras (each request is a server request of its own; there is no round to answer whole), and when the
    client declared fewer than two of the three kinds (no mixed round was sent)."""
    runs = judged_runs(rec, by_hand=True)  # the wire alone (a host driven by hand giving a round up: below)
    if isinstance(runs, Finding):
        yield runs
        return
    for run in runs:
        found = _judged(rec, run)
        if found is not None:
            yield found
            return
    yield _why_not(rec, runs[-1])


def _judged(rec: Recording, run: Run) -> Finding | None:
    messages = list(rec.messages_in(run.id))
    calls = {(m.flow_id, m.jsonrpc_id): m for m in messages
             if m.direction == "to-server" and m.method == "tools/call" and tool_of(m) == ALL_KINDS_TOOL}  # fmt: skip
    for m in messages:
        call = calls.get((m.flow_id, m.jsonrpc_id)) if m.direction == "to-client" and m.kind == "response" else None
        result = _dict(_dict(m.payload).get("result")) if call is not None else {}
        requests = _dict(result.get("inputRequests"))
        if call is None or result.get("resultType") != "input_required" or len(requests) < 2:
            continue
        kinds = sorted({str(_dict(r).get("method")) for r in requests.values()})
        retry = next((c for c in calls.values() if c.seq > m.seq), None)
        asked = _cite(m, f"one round asking {sorted(requests)} ({', '.join(kinds)})")
        if retry is None:
            if is_by_hand(run):  # the person may have denied it in the host's own window, which the lab never saw
                return Finding.skipped(
                    REASON, "a host driven by hand gave the round up; whether its person denied it is not recorded",
                    asked, run=run.id,
                )  # fmt: skip
            denied = [s for s in screens_in(rec, run.id) if s.reason == "answered" and (s.t or 0) >= (m.t or 0)]
            if denied:  # the user was asked and the client gave the call up: the user's choice, not a broken round
                return Finding.skipped(
                    "user-step-then-no-retry",
                    f"the user answered a prompt ({denied[0].answer_text!r}) and the client gave the round up",
                    asked,
                    run=run.id,
                )
            return Finding.failed(f"the client never retried the round asking {sorted(requests)}", asked, run=run.id)
        answered = _dict(_dict(_dict(retry.payload).get("params")).get("inputResponses"))
        missing = sorted(set(requests) - set(answered))
        if missing:
            return Finding.failed(
                f"the retry left {missing} unanswered (it answered {sorted(answered)}): the round was not answered "
                "whole",
                asked,
                _cite(retry, "retry"),
                run=run.id,
            )
        return Finding.passed(
            f"every request of the round ({', '.join(kinds)}) answered in one retry", asked, _cite(retry, "retry"),
            run=run.id,
        )  # fmt: skip
    return None


def _why_not(rec: Recording, run: Run) -> Finding:
    """SKIP with the reason no mixed round was sent (or ERROR-free: the tool was never called)."""
    for m in rec.messages_in(run.id):
        if m.direction != "to-client" or m.kind != "response":
            continue
        text = str(_dict(_dict(m.payload).get("result")).get("content"))
        if f"{ALL_KINDS_TOOL} needs protocol 2026-07-28" in text:
            return Finding.skipped("legacy-era", "a 2025 era: each request is a server request, no round", run=run.id)
        if f"{ALL_KINDS_TOOL}: the client declared" in text:
            return Finding.skipped(
                "fewer-than-two-kinds", "the client declared fewer than two input kinds: no mixed round", run=run.id
            )
    return Finding.skipped("tool-not-called", f"the client never got {ALL_KINDS_TOOL}'s round", run=run.id)
