"""by-hand-sampling-names-requesting-server: the person's answer decides (attested), only on runs the by-hand lab made;
a SHOULD, so the answer that breaks it is WARN, never FAIL."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.recordings import load
from tests.factories import new_recording

QUESTION = "sampling-names-requesting-server"
CHECK = "by-hand-sampling-names-requesting-server"
RUN = {"id": "a", "name": "contract", "scenario": "sampling", "detail": {"by_hand": True}}
REFERENCE = Path(__file__).resolve().parents[5] / "recordings" / "reference"


def _judged(tmp_path, answers, run=RUN):
    rows = [{"run_id": "a", "question_id": QUESTION, "question": "Q?", "answer": a, "t": 1.0} for a in answers]
    rec = load(new_recording(tmp_path / "r.sqlite", runs=[run], attestations=rows))
    rec = replace(rec, runs=tuple(replace(r, ended_at=2.0, outcome="ended") for r in rec.runs))
    return [r for r in judge(rec).results if r.id == CHECK]


@pytest.mark.parametrize(
    ("answers", "status"), [(["y"], "PASS"), (["n"], "WARN"), (["?"], "WARN"), (["n", "y"], "PASS")]
)
def test_the_persons_latest_answer_decides_and_no_is_a_warning_for_a_should(tmp_path, answers, status):
    (result,) = _judged(tmp_path, answers)
    assert (result.status, result.attested, result.level) == (status, True, "SHOULD")
    assert [e.kind for e in result.evidence] == ["attestation"]
    if answers[-1] == "n":
        assert "(a SHOULD)" in result.message


def test_unanswered_is_skipped_and_a_run_made_without_a_person_is_never_judged_by_an_answer(tmp_path):
    (unanswered,) = _judged(tmp_path, [])
    assert (unanswered.status, unanswered.reason) == ("SKIP", "unanswered")
    (tmp_path / "b").mkdir()
    (command,) = _judged(tmp_path / "b", ["n"], {**RUN, "detail": {}})
    assert (command.status, command.reason) == ("SKIP", "not-by-hand")


@pytest.mark.parametrize(
    ("reference", "status"), [("sampling-by-hand-toy", "PASS"), ("sampling-by-hand-toy-no-server-name", "WARN")]
)
def test_the_committed_by_hand_references_pass_and_warn(reference, status):
    (result,) = [r for r in judge(load(REFERENCE / f"{reference}.sqlite")).results if r.id == CHECK]
    assert (result.status, result.attested) == (status, True)
