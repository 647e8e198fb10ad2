"""A sampling request the host showed named the server that sent it (attested by the person)."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.by_hand import judge_answers
from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..attested import NAMES_SERVER, RUNS
from ..facts import SCENARIO, SPEC


@check(
    "by-hand-sampling-names-requesting-server",
    scenario=SCENARIO,
    level="SHOULD",
    spec=f"{SPEC}#user-interaction-model",
    title="A sampling request shown to the user names the requesting server (attested by the person)",
    eras=("2025-06-18", "2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Applications SHOULD "provide UI that makes it easy and intuitive to review sampling requests"; a review that
    cannot say who asks is no review. The person who drove the host (check --by-hand) is asked whether the app named
    the server, by the name it was configured with, when it showed summarize_notes's sampling request. "No" is WARN
    (a SHOULD) with the answer as evidence, "not sure" WARN, no answer SKIP; every result says it is attested."""
    yield from judge_answers(rec, NAMES_SERVER, breaks="n", runs=RUNS, broken="WARN")
