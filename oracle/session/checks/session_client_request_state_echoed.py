"""A client echoes a round's requestState, exactly, on the retry that answers it."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, Tally, rounds


@check(
    "session-client-request-state-echoed",
    scenario=SCENARIO,
    side="client",
    level="MUST",
    spec=f"{SPEC}/basic/patterns/mrtr",
    title="A retry echoes the requestState it was given, byte for byte",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "If an InputRequiredResult contains the requestState field, the client MUST echo back the exact value of that
    field when retrying the original request." Every round whose result (as the client got it) carried a
    requestState and that the client retried: the retry, as the client sent it, carries the very same value.
    Changed or dropped: FAIL, with the round's result and the retry as evidence. No such round retried: SKIP."""
    tally = Tally()
    for found in rounds(rec):
        if not found.has_state or found.retry is None:
            continue
        tally.exercise(found.request.message.run_id)
        echoed = found.retry.params.get("requestState")
        if "requestState" not in found.retry.params:
            tally.broke("the retry dropped requestState", found.evidence())
        elif echoed != found.state:
            tally.broke(f"the retry sent {str(echoed)[:60]!r} for {str(found.state)[:60]!r}", found.evidence())
        elif tally.keeping:
            tally.keep(*found.evidence())
    yield tally.finding(what="retried round(s) with a requestState", kept="each echoed exactly")
