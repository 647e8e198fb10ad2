"""The full URL is shown before the user agrees (attested by the person)."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..attested import URL_SHOWN, judge_answers
from ..facts import SCENARIO, SPEC

QUESTION = URL_SHOWN


@check(
    "by-hand-url-shown-before-consent",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}#safe-url-handling",
    title="The full URL is shown before the user agrees (attested by the person)",
    eras=("2025-11-25", "2026-07-28"),  # URL mode: none in 2025-06-18, as for the wire's URL checks
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients "MUST show the full URL to the user for examination before consent". The person who drove the host is
    asked whether the full URL the server sent was visible before they agreed. The answer that breaks it is FAIL
    with the answer as evidence, "not sure" WARN, no answer SKIP; every result says it is attested."""
    yield from judge_answers(rec, QUESTION, breaks="n", runs=("contract",))
