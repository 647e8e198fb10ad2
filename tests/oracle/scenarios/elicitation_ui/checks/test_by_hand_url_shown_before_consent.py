"""by-hand-url-shown-before-consent: the person's answer decides (attested), only on runs the by-hand lab made."""

from __future__ import annotations

from dataclasses import replace

import pytest

from backchannel.oracle import judge
from backchannel.recordings import load
from tests.factories import new_recording

QUESTION = "url-shown-before-consent"
CHECK = "by-hand-url-shown-before-consent"
RUN = {"id": "a", "name": "contract", "scenario": "elicitation-ui", "detail": {"by_hand": True}}


def _judged(tmp_path, answers, run=RUN):
    rows = [
        {"run_id": "a", "question_id": "url-shown-before-consent", "question": "Q?", "answer": a, "t": 1.0}
        for a in answers
    ]
    path = new_recording(tmp_path / "r.sqlite", runs=[run], attestations=rows)
    rec = load(path)
    # the lab ends each run it made (a run with no end is a harness ERROR, never judged by an answer)
    rec = replace(rec, runs=tuple(replace(r, ended_at=2.0, outcome="ended") for r in rec.runs))
    return [r for r in judge(rec).results if r.id == CHECK]


@pytest.mark.parametrize(
    ("answers", "status"), [(["y"], "PASS"), (["n"], "FAIL"), (["?"], "WARN"), (["y", "n"], "FAIL")]
)
def test_the_persons_latest_answer_decides_and_the_result_says_it_is_attested(tmp_path, answers, status):
    (result,) = _judged(tmp_path, answers)
    assert result.status == status and result.attested and result.as_dict()["attested"] is True
    assert [e.kind for e in result.evidence] == ["attestation"]


def test_an_unanswered_question_is_skipped(tmp_path):
    (result,) = _judged(tmp_path, [])
    assert (result.status, result.reason, result.attested) == ("SKIP", "unanswered", True)


def test_a_run_made_without_a_person_is_never_judged_by_an_answer(tmp_path):
    run = {**RUN, "detail": {}}
    (result,) = _judged(tmp_path, ["n"], run)
    assert (result.status, result.reason, result.attested) == ("SKIP", "not-by-hand", False)


def test_a_run_the_harness_never_saw_end_is_error_whatever_the_person_answered(tmp_path):
    path = new_recording(
        tmp_path / "r.sqlite",
        runs=[RUN],
        attestations=[{"run_id": "a", "question_id": QUESTION, "question": "Q?", "answer": "y", "t": 1.0}],
    )
    (result,) = [r for r in judge(load(path)).results if r.id == CHECK]
    assert (result.status, result.reason) == ("ERROR", "run-never-ended")
