"""Everything the client put on the wire is valid against the 2026-07-28 schema."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.era_schema import message_errors
from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.oracle.wire_schema import request_problems, response_problems
from backchannel.recordings.model import Recording, Run

from ..eras import MODERN, run_era
from ..facts import SCENARIO, SPEC, contract_run


@check(
    "wire-schema-valid",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/basic",
    title="Client messages validate against the official schema (retry fields checked where it is silent)",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Every client request validates against its method's definition in schema.json (ElicitResult content may be
    any number, as schema.ts says); requestState must be a string and every inputResponses value an InputResponse.
    The endpoint's own answers are checked too: an invalid one is the harness's fault, so ERROR, not FAIL. Eras:
    every one; in 2025-11-25 and 2025-06-18 every message either side sent (the client's requests, notifications
    and answers to the server's requests; the endpoint's requests, notifications and answers) is checked against
    that revision's official schema.json instead."""
    run = contract_run(rec)
    if run is None:
        yield Finding.errored("incomplete-recording", "the recording has no contract run")
        return
    era = run_era(rec, run)
    if era is not None and era != MODERN:
        yield _judge_2025(rec, run, era)
        return
    bad, harness, checked = [], [], 0
    for message in rec.messages_in(run.id):
        if message.direction == "to-server" and message.kind == "request":
            checked += 1
            problems = request_problems(message.payload, message.method)
            if problems:
                bad.append(Evidence(kind="message", run=run.id, seq=message.seq, note="; ".join(problems[:3])))
        elif message.direction == "to-client" and message.kind == "response" and message.mutation is None:
            problems = response_problems(message.payload, message.method)
            if problems:
                harness.append(Evidence(kind="message", run=run.id, seq=message.seq, note="; ".join(problems[:3])))
    if harness:
        yield Finding.errored(
            "endpoint-sent-invalid-message",
            "the scripted endpoint sent messages the schema rejects",
            *harness,
            run=run.id,
        )
    elif bad:
        yield Finding.failed(f"{len(bad)} of {checked} client request(s) do not validate", *bad, run=run.id)
    elif not checked:
        yield Finding.skipped("no-requests", "the client sent no requests", run=run.id)
    else:
        yield Finding.passed(f"all {checked} client requests validate", run=run.id)


def _judge_2025(rec: Recording, run: Run, era: str) -> Finding:
    """Both sides' messages of a 2025 run against that revision's schema (a response by the method it answers)."""
    messages = list(rec.messages_in(run.id))
    asked: dict[tuple[str, str | None], str | None] = {
        (m.direction, m.jsonrpc_id): m.method for m in messages if m.kind == "request"
    }
    bad, harness, checked = [], [], 0
    for message in messages:
        if message.mutation is not None:
            continue
        other = "to-client" if message.direction == "to-server" else "to-server"
        answers = message.method or asked.get((other, message.jsonrpc_id))
        problems = message_errors(era, message.payload, answers if message.kind != "request" else None, message.text)
        if message.direction == "to-server":
            checked += 1
            if problems:
                bad.append(Evidence(kind="message", run=run.id, seq=message.seq, note="; ".join(problems[:3])))
        elif problems:
            harness.append(Evidence(kind="message", run=run.id, seq=message.seq, note="; ".join(problems[:3])))
    if harness:
        return Finding.errored(
            "endpoint-sent-invalid-message", f"the scripted endpoint sent messages the {era} schema rejects",
            *harness, run=run.id,
        )  # fmt: skip
    if bad:
        return Finding.failed(f"{len(bad)} of {checked} client message(s) do not validate against {era}", *bad,
                              run=run.id)  # fmt: skip
    if not checked:
        return Finding.skipped("no-requests", "the client sent no messages", run=run.id)
    return Finding.passed(f"all {checked} client messages validate against the {era} schema", run=run.id)
