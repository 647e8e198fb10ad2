"""A URL request and a form request sent together are both answered."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..eras import asked
from ..facts import SCENARIO, SPEC, action_of, exercised, legacy
from ..legacy_rounds import judge_mixed_2025

TOOL = "url_and_form"


@check(
    "sep-2322-client-constructs-inputs-mixed",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/basic/patterns/mrtr#client-requirements-basic-workflow",
    title="Both requests of a mixed URL + form round are answered",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """One InputRequiredResult carries a URL request (`link`) and a form request (`confirm`). The retry must
    accept the URL with no content and accept the form with content {"confirmed": true}. Eras: 2026-07-28, and
    2025-11-25, where the two arrive as two `elicitation/create` requests on the call's stream and each answer is
    judged the same way; 2025-06-18 has no URL mode (SKIP no-url-mode)."""
    found = exercised(rec, TOOL)
    if isinstance(found, Finding):
        yield found
        return
    run, calls = found
    if legacy(rec, run):
        yield judge_mixed_2025(run, asked(rec, run, TOOL))
        return
    if len(calls) < 2:
        yield Finding.failed(
            "the client never retried the mixed round", calls[0].evidence("input_required"), run=run.id
        )
        return
    answers = calls[1].input_responses
    link, confirm = answers.get("link"), answers.get("confirm")
    problems = []
    if action_of(link) != "accept" or (isinstance(link, dict) and link.get("content")):
        problems.append(f"link (URL) answered {link!r}, expected accept with no content")
    content = confirm.get("content") if isinstance(confirm, dict) else None
    if action_of(confirm) != "accept" or not isinstance(content, dict) or content.get("confirmed") is not True:
        problems.append(f"confirm (form) answered {confirm!r}, expected accept with content confirmed=true")
    if problems:
        yield Finding.failed("; ".join(problems), calls[1].evidence("retry"), run=run.id)
    else:
        yield Finding.passed("both requests answered in one retry", calls[1].evidence("retry"), run=run.id)
