"""`judge(recording) -> Report`: run every check that belongs to the recording's scenarios, purely."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath

from backchannel.recordings.model import Recording

from . import harness
from .era_gate import in_era
from .model import VERDICT_OF, Check, Finding, Report, Result, RunEra
from .registry import SESSION, checks_for

# 2: the session rules judge every recording; 3: in every era, with the schema of each; 4: every check states its
# eras (SKIP not-in-era), the sampling and roots scenarios; 8: the by-hand attested checks add a result to every
# elicitation-ui and mrtr-provenance report (SKIP not-by-hand where no person was asked); 9: a run a person drove
# is never judged on the client's terminal, screens, files or browser (SKIP by-hand: oracle/by_hand.py)
ORACLE_VERSION = "9"


def scenarios_of(rec: Recording) -> tuple[str, ...]:
    """The scenarios a recording was made for: its meta `scenario`, else those its runs name."""
    named = rec.info.scenario
    if named:
        return tuple(s for s in named.split(",") if s)
    return tuple(sorted({run.scenario for run in rec.runs if run.scenario}))


def _result(check: Check, finding: Finding, wanted: tuple[str, ...] = ()) -> Result:
    # a check that also judges another scenario's recordings reports under the scenario it judged
    judged = [s for s in check.also if s in wanted and check.scenario not in wanted]
    scenario = judged[0] if judged else check.scenario
    return Result(
        id=check.id,
        scenario=scenario,
        level=check.level,
        spec=check.spec,
        title=check.title,
        status=finding.status,
        message=finding.message,
        evidence=finding.evidence,
        run=finding.run,
        reason=finding.reason,
        signals=finding.signals,
        observations=finding.observations,
        cwe=check.cwe,
        verdict=VERDICT_OF[finding.status] if check.probe and finding.status in VERDICT_OF else None,
        subject=finding.subject,
        untestable=finding.untestable,
        attested=finding.attested,
    )


def _harness_results(rec: Recording, scenarios: tuple[str, ...]) -> list[Result]:
    """One ERROR per harness problem and scenario: a run the harness did not see is never a clean report."""
    problems = list(harness.harness_problems(rec))
    return [
        Result(
            id=harness.CHECK_ID,
            scenario=scenario,
            level="MUST",
            spec=harness.SPEC,
            title=harness.TITLE,
            status=problem.status,
            message=problem.message,
            evidence=problem.evidence,
            run=problem.run,
            reason=problem.reason,
            signals=(),
            observations=(),
            cwe=(),
            verdict=None,
            subject=None,
        )
        for scenario in (scenarios or ("unknown",))
        for problem in problems
    ]


def judge(rec: Recording, checks: Iterable[Check] | None = None) -> Report:
    """Judge one recording; the same recording always gives the same report."""
    staged = scenarios_of(rec)
    wanted = (*staged, SESSION)  # the session rules judge every recording, a scenario's or not
    chosen = list(checks) if checks is not None else checks_for(wanted)
    results = _harness_results(rec, staged or (SESSION,))
    info = rec.info
    settled, spoken = _eras_by_run(rec)
    session_rules = [c for c in chosen if c.scenario == SESSION]
    for check in [c for c in chosen if c.scenario != SESSION]:
        results.extend(_result(check, in_era(check, finding, settled), wanted) for finding in check.fn(rec))
    # the harness did not see everything, or the scenario could not run: beside that ERROR a session rule that
    # nothing exercised says nothing ("not exercised" would read as a quiet all-clear); what was seen is judged
    unseen = any(r.status == "ERROR" for r in results)
    for check in session_rules:
        for finding in (in_era(check, found, spoken) for found in check.fn(rec)):
            if not (unseen and finding.status == "SKIP"):
                results.append(_result(check, finding, wanted))
    return Report(
        tool_version="unknown" if info.tool_version is None else info.tool_version,
        oracle_version=ORACLE_VERSION,
        recording=PurePath(rec.path).name,
        recording_format=rec.format_version,
        nonce=info.nonce,
        scenarios=wanted,
        results=tuple(results),
        runs=_run_eras(rec),
    )


def _eras_by_run(rec: Recording) -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    from .session.spoken import eras_by_run  # the session package imports the registry, which this module feeds

    return eras_by_run(rec)


def _run_eras(rec: Recording) -> tuple[RunEra, ...]:
    from .session.spoken import run_eras  # the session package imports the registry, which this module feeds

    return run_eras(rec)
