"""The resultType arm: what each ABSENT run did with a result missing only `resultType`, compared with CONTROL."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from backchannel.oracle.detectors.ledger import Ledger
from backchannel.oracle.model import Evidence, Finding
from backchannel.recordings.model import Message, Recording, Run

from .facts import first_run, markers_of, options_of, token_seen
from .records import DropResultTypeRecord

OBSERVATION_MODERN_REJECT = "rejects-missing-result-type-on-modern-connection"


@dataclass(frozen=True)
class Behaviour:
    """What a client did in one run: how many tools/call, whether it answered input, surfaced content, how it ended."""

    run: Run
    calls: int
    input_retries: int
    surfaced: bool
    outcome: str | None
    exit_code: int | None
    era: str | None
    evidence: tuple[Evidence, ...]

    @property
    def kind(self) -> str:
        """unfinished, complete, or rejected (the client treated the result as an error)."""
        return self._kind_against(None)

    def _kind_against(self, control: Behaviour | None) -> str:
        """unfinished, complete, rejected; or unclear, when CONTROL itself never ended: a client that repeats its
        calls until the timeout with a complete result too (a menu that comes back, a watch loop) repeats them for
        its own reasons, and more calls or a timeout in ABSENT prove nothing about resultType."""
        baseline = control.calls if control else 1
        if self.input_retries:
            return "unfinished"
        if control is not None and control.outcome == "timeout":
            if self.outcome != "timeout" and self.calls <= baseline:
                return "complete" if self.surfaced else "rejected"
            return "unclear"
        if self.calls > baseline or self.outcome == "timeout":
            return "unfinished"
        if self.surfaced:
            return "complete"
        return "rejected"

    def against(self, control: Behaviour) -> str:
        return self._kind_against(control)

    def describe(self) -> str:
        return (
            f"{self.calls} tools/call, {self.input_retries} with inputResponses, content "
            f"{'surfaced' if self.surfaced else 'not surfaced'}, {self.outcome or 'unknown'} exit {self.exit_code}"
        )


def behaviour(rec: Recording, run: Run) -> Behaviour:
    ledger = Ledger.of(rec, run.id)
    calls = ledger.tool_calls()
    surfaced = token_seen(rec, run, markers_of(rec).content)
    evidence = tuple(Evidence(kind="message", run=run.id, seq=m.seq, note="tools/call") for m in calls)
    return Behaviour(
        run,
        len(calls),
        len(ledger.retries_with_input_responses()),
        bool(surfaced),
        run.outcome,
        run.exit_code,
        ledger.era(),
        evidence + tuple(surfaced[:1]),
    )


def _answer(rec: Recording, run: Run) -> Message | None:
    """The first tools/call response the client received in a run."""
    for message in rec.messages_in(run.id):
        if message.direction == "to-client" and message.method == "tools/call" and message.kind == "response":
            return message
    return None


def _result_of(rec: Recording, run: Run, upstream: bool) -> Any:
    message = _answer(rec, run)
    payload = None if message is None else (message.upstream_payload if upstream else message.payload)
    return payload.get("result") if isinstance(payload, dict) else None


def _result_bytes(text: str) -> str | None:
    """The text from the result member on: what two runs' answers share byte for byte (their ids differ)."""
    at = text.find('"result":')
    return None if at < 0 else text[at:]


def _without_result_type(text: str) -> str:
    for member in (',"resultType":"complete"', '"resultType":"complete",', ', "resultType": "complete"'):
        if member in text:
            return text.replace(member, "", 1)
    return text


def differs_only_by_result_type(rec: Recording, control: Run, absent: Run) -> str | None:
    """None when the ABSENT run's result is CONTROL's minus `resultType`; else what else moved."""
    base = _result_of(rec, control, upstream=False)
    seen = _result_of(rec, absent, upstream=False)
    if not isinstance(base, dict) or seen is None:
        return None  # nothing to compare: the client never got that far; its behaviour speaks instead
    expected = {k: v for k, v in base.items() if k != "resultType"}
    if seen != expected:
        return f"the {absent.name} result differs from CONTROL in more than resultType: {json.dumps(seen)[:200]}"
    control_answer, absent_answer = _answer(rec, control), _answer(rec, absent)
    if control_answer is not None and absent_answer is not None:
        before, after = _result_bytes(control_answer.text), _result_bytes(absent_answer.text)
        if before is not None and after is not None and _without_result_type(before) != after:
            return (
                f"message {absent_answer.seq}: the {absent.name} result is not CONTROL's (message "
                f"{control_answer.seq}) minus resultType, byte for byte"
            )
    for message in rec.messages_in(absent.id):
        if message.mutation == "drop-result-type" and message.upstream_text is not None:
            records = [DropResultTypeRecord.from_json(m) for x in rec.exchanges_in(absent.id) for m in x.mutations]
            span = next((r for r in records if r is not None and r.removed), None)
            start, end = (span.start, span.end) if span else (None, None)
            if not isinstance(start, int) or not isinstance(end, int):
                return f"message {message.seq}: the recording does not say which bytes removing resultType cut"
            if message.upstream_text[:start] + message.upstream_text[end:] != message.text:
                return f"message {message.seq}: removing resultType changed other bytes too"
    return None


def judge_result_type(rec: Recording) -> Finding:
    """The arm's verdict (the gate is applied by the caller)."""
    control_run, absent_run = first_run(rec, "control"), first_run(rec, "absent")
    legacy_run = first_run(rec, "absent-legacy")
    if control_run is None or absent_run is None:
        return Finding.errored("incomplete-recording", "the recording lacks the CONTROL or ABSENT run")
    for other in (absent_run, legacy_run):
        problem = differs_only_by_result_type(rec, control_run, other) if other else None
        if problem:
            return Finding.errored("differential-moved-more-than-one-key", problem)
    control = behaviour(rec, control_run)
    modern = behaviour(rec, absent_run)
    seed_rule = options_of(rec).result_type_rule == "seed"
    modern_kind = modern.against(control)
    observations: list[str] = []
    verdicts: list[tuple[str, str]] = []
    if modern.era != "modern":
        verdicts.append(
            ("n/a", f"ABSENT: the client negotiated {modern.era or 'no era'}, so the 2026-07-28 half does not apply")
        )
    elif seed_rule:
        changed = modern_kind != "complete"
        verdicts.append(
            ("CONFIRMED" if changed else "REFUTED", f"ABSENT ({modern_kind}; seed rule: any change counts)")
        )
    elif modern_kind == "unfinished":
        verdicts.append(("CONFIRMED", "ABSENT: treated a result without resultType as unfinished"))
    elif modern_kind == "complete":
        verdicts.append(("REFUTED", "ABSENT: surfaced the content with the same calls as CONTROL"))
    elif modern_kind == "unclear":
        return Finding.warned(
            "CONTROL never ended either (it ran into the timeout with a complete result), so the calls ABSENT "
            "repeated or its timeout cannot be laid at the missing resultType's door (a person judges). "
            f"CONTROL: {control.describe()}; ABSENT: {modern.describe()}",
            *(control.evidence + modern.evidence),
        )
    else:
        observations.append(OBSERVATION_MODERN_REJECT)
    legacy_note = "ABSENT-LEGACY: skipped (the client never reached tools/call on an earlier-version server)"
    if legacy_run is not None:
        legacy = behaviour(rec, legacy_run)
        if legacy.calls and legacy.era == "legacy":
            kind = legacy.against(control)
            legacy_note = ""
            if kind == "unclear":
                legacy_note = "ABSENT-LEGACY: unclear (CONTROL never ended either)"
            else:
                verdict = "REFUTED" if kind == "complete" else "CONFIRMED"
                verdicts.append((verdict, f"ABSENT-LEGACY: {kind} ({legacy.describe()})"))
        evidence = control.evidence + modern.evidence + legacy.evidence
    else:
        evidence = control.evidence + modern.evidence
    detail = f"CONTROL: {control.describe()}; ABSENT: {modern.describe()}"
    notes = "; ".join([v[1] for v in verdicts] + ([legacy_note] if legacy_note else []))
    if any(v[0] == "CONFIRMED" for v in verdicts):
        return Finding.failed(
            f"an absent resultType was not treated as complete. {notes}. {detail}",
            *evidence,
            signals=("result-type-default-not-complete",),
            observations=tuple(observations),
        )
    if any(v[0] == "REFUTED" for v in verdicts):
        return Finding.passed(
            f"an absent resultType was treated as complete. {notes}. {detail}",
            *evidence,
            observations=tuple(observations),
        )
    return Finding.skipped(
        "client-does-not-speak-earlier-versions",
        f"the client rejected the modern result without resultType (not a violation: "
        f"{OBSERVATION_MODERN_REJECT}) and never reached tools/call on an earlier-version server. "
        f"{detail}",
        *evidence,
        observations=tuple(observations),
    )
