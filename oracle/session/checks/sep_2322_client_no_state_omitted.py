"""A client sends no requestState on a retry when its round carried none."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, Tally, rounds


@check(
    "sep-2322-client-no-state-omitted",
    scenario=SCENARIO,
    side="client",
    level="MUST",
    spec=f"{SPEC}/basic/patterns/mrtr",
    title="A retry of a round without requestState carries none",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "If the InputRequiredResult does not contain a requestState field, the client MUST NOT include one in the
    retry." Every retried round whose result (as the client got it) had no requestState: the retry, as the client
    sent it, has none either. One invented: FAIL. No such round retried: SKIP."""
    tally = Tally()
    for found in rounds(rec):
        if found.has_state or found.retry is None:
            continue
        tally.exercise(found.request.message.run_id)
        if "requestState" in found.retry.params:
            sent = str(found.retry.params.get("requestState"))[:60]
            tally.broke(f"the retry invented requestState {sent!r}", found.evidence())
        elif tally.keeping:
            tally.keep(*found.evidence())
    yield tally.finding(what="retried round(s) without a requestState", kept="no retry invented one")
