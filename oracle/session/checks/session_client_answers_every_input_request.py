"""A retry answers every input request of the round it retries."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, Tally, rounds


@check(
    "session-client-answers-every-input-request",
    scenario=SCENARIO,
    side="client",
    level="MUST",
    spec=f"{SPEC}/basic/patterns/mrtr",
    title="A retry carries an inputResponses entry for every inputRequests key of its round",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "If a client receives an InputRequiredResult that contains the inputRequests field, the client MUST
    construct the requested inputs before retrying the original request." Every round whose result (as the client
    got it: an input request the proxy injected is one the client had to answer) carried inputRequests, and that
    the client retried: the retry, as the client sent it, has `inputResponses` with every one of those keys (a
    decline is an answer too). A key left out, or no inputResponses: FAIL, with the round and the retry inferred to
    answer it as evidence. No such round retried: SKIP."""
    tally = Tally()
    for found in rounds(rec):
        asked = found.result.get("inputRequests")
        if not isinstance(asked, dict) or not asked or found.retry is None:
            continue
        tally.exercise(found.request.message.run_id)
        answers = found.retry.params.get("inputResponses")
        if not isinstance(answers, dict):
            tally.broke("the retry carries no inputResponses object", found.evidence())
            continue
        missing = sorted(str(key) for key in asked if key not in answers)
        if missing:
            shown = ", ".join(repr(key[:30]) for key in missing[:5])
            tally.broke(f"the retry answers {len(asked) - len(missing)} of {len(asked)}: no {shown}", found.evidence())
        elif tally.keeping:
            tally.keep(*found.evidence())
    yield tally.finding(what="retried round(s) with inputRequests", kept="each answering every key")
