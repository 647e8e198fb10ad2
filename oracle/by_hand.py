"""Runs a person drove (`check --by-hand`): what the lab cannot see in them, said once for every scenario.

The by-hand lab records the wire of a host it did not start: no terminal, no screen, no files, no browser shim. A
check that judges what the client showed, wrote or opened has nothing to read in such a run, and an empty terminal
must not read as "the client showed nothing" (a false FAIL or WARN) or an empty shim as "nothing was opened" (a
false PASS). Such a check SKIPs those runs with the reason `by-hand`; the by-hand checks ask the person instead, and
the wire's own checks judge the same runs as always.

A person's answer is judged by one rule for every by-hand check: the answer that breaks the requirement is FAIL with
that answer as evidence (WARN for a SHOULD, as everywhere), "not sure" is WARN, no answer is SKIP; every result
judged here says it is attested, never the wire's. Only the runs the by-hand lab made are read: a recording of
`check --client` has no person to ask.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from backchannel.recordings.model import Attestation, Recording, Run

from . import harness
from .model import Evidence, Finding

BY_HAND_FACT = "by_hand"  # the run fact the by-hand lab (proxy/byhand/lab.py) sets on every run it makes
REASON = "by-hand"


def is_by_hand(run: Run) -> bool:
    return run.detail.facts.get(BY_HAND_FACT) is True


def by_hand_runs(rec: Recording, names: tuple[str, ...] | None = None) -> list[Run]:
    """The runs the by-hand lab made (of these names, when given), in recording order."""
    return [r for r in rec.runs if is_by_hand(r) and (names is None or r.name in names)]


def unseen_by_lab(rec: Recording, run: Run | None = None) -> Finding | None:
    """SKIP `by-hand` when the run (or, none given, the recording) was driven by hand; None when the lab saw it."""
    driven = is_by_hand(run) if run is not None else bool(by_hand_runs(rec))
    return skipped_by_hand(run) if driven else None


def skipped_by_hand(run: Run | None = None) -> Finding:
    """The SKIP a check gives for a run a person drove (of `run`, when it names one)."""
    return Finding.skipped(
        REASON,
        "a host driven by hand: its screen, terminal, files and browser are not recorded, so this check has nothing"
        " to read; the by-hand-* checks hold the person's answers",
        run=None if run is None else run.id,
    )


SAID = {"y": "yes", "n": "no", "?": "not sure"}


def _evidence(answer: Attestation) -> Evidence:
    shot = f" (screenshot kept: {answer.screenshot_type})" if answer.screenshot_type else ""
    note = f"{answer.who} answered {SAID.get(answer.answer, answer.answer)} to: {answer.question}{shot}"
    return Evidence(kind="attestation", run=answer.run_id, seq=answer.seq, note=note)


def judge_answers(
    rec: Recording,
    question_id: str,
    *,
    breaks: str,
    runs: tuple[str, ...],
    broken: Literal["FAIL", "WARN"] = "FAIL",
) -> Iterator[Finding]:
    """One finding per by-hand run named in `runs`: `breaks` is the answer that means the client failed the
    requirement, reported as `broken` (WARN for a SHOULD)."""
    problem = harness.first_problem(rec)
    if problem is not None:  # a harness that did not see its runs is ERROR, never a quiet "nobody was asked"
        yield problem
        return
    found = [run.id for run in by_hand_runs(rec, runs)]
    if not found:
        yield Finding.skipped("not-by-hand", "no person was asked: not a recording of check --by-hand")
        return
    for run_id in found:
        answers = [a for a in rec.attestations_in(run_id) if a.question_id == question_id]
        if not answers:
            yield Finding.skipped("unanswered", "the person did not answer this question", run=run_id, attested=True)
            continue
        last = answers[-1]  # a question asked again in the same run: the person's latest word stands
        said = f"the person answered {SAID.get(last.answer, last.answer)!r} to: {last.question}"
        if last.answer == breaks and broken == "FAIL":
            yield Finding.failed(said, _evidence(last), run=run_id, attested=True)
        elif last.answer == breaks:
            yield Finding.warned(f"{said} (a SHOULD)", _evidence(last), run=run_id, attested=True)
        elif last.answer == "?":
            yield Finding.warned(f"{said} (a person should look again)", _evidence(last), run=run_id, attested=True)
        else:
            yield Finding.passed(said, _evidence(last), run=run_id, attested=True)
