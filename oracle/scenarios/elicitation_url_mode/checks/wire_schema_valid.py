"""Everything the client put on the wire is valid against the 2026-07-28 schema."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.oracle.wire_schema import request_problems, response_problems
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, contract_run


@check(
    "wire-schema-valid",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/basic",
    title="Client messages validate against the official schema (retry fields checked where it is silent)",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Every client request validates against its method's definition in schema.json (ElicitResult content may be
    any number, as schema.ts says); requestState must be a string and every inputResponses value an InputResponse.
    The endpoint's own answers are checked too: an invalid one is the harness's fault, so ERROR, not FAIL."""
    run = contract_run(rec)
    if run is None:
        yield Finding.errored("incomplete-recording", "the recording has no contract run")
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
