"""The resultType arm of the mrtr-provenance probe."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, gate
from ..result_type import judge_result_type


@check(
    "mrtr-provenance-result-type-default",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/basic#resulttype",
    title="An absent resultType is treated as complete",
    cwe=("CWE-1289",),
    probe=True,
    eras=("2025-06-18", "2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients MUST treat an absent resultType as "complete". ABSENT (2026-07-28, only resultType removed) and
    ABSENT-LEGACY (a 2025-11-25 server) are compared with CONTROL: retrying, answering input, re-calling or waiting
    to the timeout is CONFIRMED in either era; surfacing the content with the same calls is REFUTED; rejecting with
    an error is CONFIRMED on ABSENT-LEGACY and only an observation on the modern run."""
    stop = gate(rec)
    yield stop if stop is not None else judge_result_type(rec)
