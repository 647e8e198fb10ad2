"""Judging a person's answer (`check --by-hand`): what the wire cannot show, attested by the person who watched.

One rule for every by-hand check: the answer that breaks the requirement is FAIL with that answer as evidence,
"not sure" is WARN, no answer is SKIP; anything judged here says it is attested, never the wire's. Only the runs
the by-hand lab made (their `by_hand` fact) are read: a recording of `check --client` has no person to ask.
"""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle import harness
from backchannel.oracle.by_hand import BY_HAND_FACT, by_hand_runs
from backchannel.oracle.model import Evidence, Finding
from backchannel.recordings.model import Attestation, Recording

__all__ = ["BY_HAND_FACT", "NAMES_SERVER", "NOTHING_OPENED", "URL_SHOWN", "judge_answers"]
# the ids the by-hand lab asks its questions under (proxy/byhand/questions.py) and the checks read them by
NAMES_SERVER = "names-requesting-server"
URL_SHOWN = "url-shown-before-consent"
NOTHING_OPENED = "nothing-opened-before-consent"
SAID = {"y": "yes", "n": "no", "?": "not sure"}


def _evidence(answer: Attestation) -> Evidence:
    shot = f" (screenshot kept: {answer.screenshot_type})" if answer.screenshot_type else ""
    note = f"{answer.who} answered {SAID.get(answer.answer, answer.answer)} to: {answer.question}{shot}"
    return Evidence(kind="attestation", run=answer.run_id, seq=answer.seq, note=note)


def judge_answers(rec: Recording, question_id: str, *, breaks: str, runs: tuple[str, ...]) -> Iterator[Finding]:
    """One finding per by-hand run named in `runs`: `breaks` is the answer that means the client failed."""
    broken = harness.first_problem(rec)
    if broken is not None:  # a harness that did not see its runs is ERROR, never a quiet "nobody was asked"
        yield broken
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
        if last.answer == breaks:
            yield Finding.failed(said, _evidence(last), run=run_id, attested=True)
        elif last.answer == "?":
            yield Finding.warned(f"{said} (a person should look again)", _evidence(last), run=run_id, attested=True)
        else:
            yield Finding.passed(said, _evidence(last), run=run_id, attested=True)
