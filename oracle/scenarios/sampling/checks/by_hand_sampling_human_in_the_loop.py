"""A person could deny the sampling request before it reached the model (attested by the person)."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.by_hand import judge_answers
from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..attested import DENIABLE, RUNS
from ..facts import SCENARIO, SPEC


@check(
    "by-hand-sampling-human-in-the-loop",
    scenario=SCENARIO,
    level="SHOULD",
    spec=f"{SPEC}#user-interaction-model",
    title="A person could deny the sampling request before it was sent to the model (attested by the person)",
    eras=("2025-06-18", "2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "For trust & safety and security, there SHOULD always be a human in the loop with the ability to deny
    sampling requests." The person who drove the host (check --by-hand) is asked, once the host has answered
    summarize_notes's sampling request, whether the app showed them the request and let them deny it before
    anything was sent to the model. "No" is WARN (a SHOULD) with the answer as evidence, "not sure" WARN, no answer
    SKIP; every result says it is attested."""
    yield from judge_answers(rec, DENIABLE, breaks="n", runs=RUNS, broken="WARN")
