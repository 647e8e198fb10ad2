"""The sampling by-hand questions are asked under the ids the checks read, in the run they judge."""

from __future__ import annotations

from backchannel.oracle.scenarios.sampling import attested, payloads
from backchannel.proxy.byhand.plans import Era, sampling


def test_the_plan_asks_both_questions_once_after_summarize_notes_in_the_run_the_checks_read():
    plan = sampling(Era())
    asked = [(step.run, step.tool, q.id) for step in plan.steps for q in step.questions]
    assert asked == [
        (attested.RUNS[0], payloads.SUMMARY_TOOL, attested.NAMES_SERVER),
        (attested.RUNS[0], payloads.SUMMARY_TOOL, attested.DENIABLE),
    ]
    assert [step.tool for step in plan.steps] == list(payloads.TOOLS)  # every tool, in the scenario's order
