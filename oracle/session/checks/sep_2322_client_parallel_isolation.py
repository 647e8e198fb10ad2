"""A client sends inputResponses and requestState only on the retry of the round that asked for them."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, Tally, client_sessions


@check(
    "sep-2322-client-parallel-isolation",
    scenario=SCENARIO,
    side="client",
    level="MUST",
    spec=f"{SPEC}/basic/patterns/mrtr",
    title="inputResponses and requestState go only on the retry they belong to",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Both the inputRequests and requestState fields affect only the client's retry of the original request.
    They MUST NOT be used for any other request that the client may be sending in parallel." Every client request
    that carries `inputResponses` or `requestState` must be the retry of a round (the next request of the same
    method and tool after an input_required). One that is not, carrying the requestState another round was given:
    FAIL (the bytes match). One that is not, with no round it could belong to in the recording: WARN (it was
    invented, or its round is not recorded: a person judges). No request carried either: SKIP."""
    tally = Tally()
    unowned: list[Evidence] = []
    for session in client_sessions(rec):
        retries = {found.retry.message.seq for found in session.rounds if found.retry is not None}
        states = {str(found.state): found for found in session.rounds if found.has_state}
        for request in session.client:
            params = request.params
            if "inputResponses" not in params and "requestState" not in params:
                continue
            tally.exercise(session.run_id)
            if request.message.seq in retries:
                tally.keep(request.evidence("a retry of its own round"))
                continue
            owner = states.get(str(params.get("requestState"))) if "requestState" in params else None
            if owner is None:
                unowned.append(request.evidence("no round before it of the same method and tool"))
                continue
            why = f"{request.message.method} (id {request.message.jsonrpc_id}) carried another round's requestState"
            tally.broke(why, (request.evidence("not that round's retry"), *owner.evidence()))
    finding = tally.finding(
        what="request(s) carrying inputResponses or requestState", kept="each the retry of its own round"
    )
    if finding.status == "PASS" and unowned:
        yield Finding.warned(
            f"{len(unowned)} request(s) carried inputResponses or requestState with no round in the recording they "
            "could answer: invented, or their round was not recorded (a person judges)",
            *unowned[:10],
            run=finding.run,
        )
        return
    yield finding
