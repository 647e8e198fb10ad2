"""A request with no mode is form mode, even with a stray url field."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..eras import asked
from ..facts import SCENARIO, SPEC, action_of, exercised, legacy
from ..legacy_rounds import judge_missing_mode_2025

TOOL = "missing_mode"


@check(
    "sep-1036-client-missing-mode-is-form",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/client/elicitation#elicitation-requests",
    title="A request without mode is treated as form mode",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients MUST treat requests without a mode field as form mode. The request carries a requestedSchema and a
    stray url field; accepting it with form content passes, accepting it with no content (as a URL) fails. Eras:
    every one (2025-11-25 says the same MUST; in 2025-06-18 every request is a form, so the stray url must not
    change that either); in 2025 the request arrives as `elicitation/create` on the call's stream."""
    found = exercised(rec, TOOL)
    if isinstance(found, Finding):
        yield found
        return
    run, calls = found
    if legacy(rec, run):
        yield judge_missing_mode_2025(run, asked(rec, run, TOOL))
        return
    if len(calls) < 2:
        yield Finding.failed(
            "the client never answered the request without mode", calls[0].evidence("input_required"), run=run.id
        )
        return
    answer = calls[1].input_responses.get("details")
    content = answer.get("content") if isinstance(answer, dict) else None
    if action_of(answer) == "accept" and isinstance(content, dict) and content:
        yield Finding.passed("answered as form mode, with content", calls[1].evidence("retry"), run=run.id)
    elif action_of(answer) == "accept":
        yield Finding.failed(
            f"accepted with no content, as if it were URL mode: {answer!r}", calls[1].evidence("retry"), run=run.id
        )
    else:
        yield Finding.failed(
            f"answered {answer!r}; the contract asks form requests to be accepted with content",
            calls[1].evidence("retry"),
            run=run.id,
        )
