"""An elicitation names the server that requests it (attested by the person)."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..attested import NAMES_SERVER, judge_answers
from ..facts import SCENARIO, SPEC

QUESTION = NAMES_SERVER


@check(
    "by-hand-names-requesting-server",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}#user-interaction-model",
    title="An elicitation names the server that requests it (attested by the person)",
    also=("mrtr-provenance",),
    eras=("2025-06-18", "2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """MCP clients MUST "provide UI that makes it clear which server is requesting information". The person who drove
    the host (check --by-hand) is asked whether the app named the server, by the name it was configured with, when
    it asked; they see what the wire cannot: the host's window. The answer that breaks it is FAIL with the answer as
    evidence, "not sure" WARN, no answer SKIP; every result says it is attested."""
    yield from judge_answers(rec, QUESTION, breaks="n", runs=("contract", "probe"))
