"""Nothing is opened before the user agrees (attested by the person)."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..attested import NOTHING_OPENED, judge_answers
from ..facts import SCENARIO, SPEC

QUESTION = NOTHING_OPENED


@check(
    "by-hand-nothing-opened-before-consent",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}#safe-url-handling",
    title="Nothing is opened before the user agrees (attested by the person)",
    eras=("2025-11-25", "2026-07-28"),  # URL mode: none in 2025-06-18, as for the wire's URL checks
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients "MUST NOT open the URL without explicit consent from the user". The person who drove the host is asked
    whether anything (a browser tab, a window) opened before they agreed: yes breaks it. The answer that breaks it
    is FAIL with the answer as evidence, "not sure" WARN, no answer SKIP; every result says it is attested."""
    yield from judge_answers(rec, QUESTION, breaks="y", runs=("contract",))
