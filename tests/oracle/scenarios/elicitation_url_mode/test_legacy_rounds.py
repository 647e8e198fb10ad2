"""legacy_rounds.py: the 2025 side of the round checks on the committed 2025 contract-client runs."""

from backchannel.oracle.scenarios.elicitation_url_mode.eras import asked
from backchannel.oracle.scenarios.elicitation_url_mode.facts import contract_run, rounds
from backchannel.oracle.scenarios.elicitation_url_mode.legacy_rounds import (
    judge_missing_mode_2025,
    judge_mixed_2025,
    judge_rounds_2025,
)
from tests.oracle.reference import legacy_contract, recording


def _judge(variant: str, tool: str):
    rec = recording(legacy_contract(variant))
    run = contract_run(rec)
    assert run is not None
    asks = asked(rec, run, tool)
    if tool == "url_rounds":
        return judge_rounds_2025(run, asks, rounds(rec, run, tool)[-1])
    return (judge_mixed_2025 if tool == "url_and_form" else judge_missing_mode_2025)(run, asks)


def test_the_rounds_pass_when_each_request_got_its_own_answer_and_fail_on_a_reused_one():
    assert _judge("correct", "url_rounds").status == "PASS"
    failed = _judge("constructs-inputs", "url_rounds")
    assert failed.status == "FAIL" and "expected decline, got accept" in failed.message


def test_the_mixed_round_names_the_request_answered_wrong():
    assert _judge("correct", "url_and_form").status == "PASS"
    assert _judge("constructs-inputs-mixed", "url_and_form").message.startswith("the form request was answered")


def test_a_request_without_mode_must_be_answered_as_a_form():
    assert _judge("correct-2025-06-18", "missing_mode").status == "PASS"
    assert _judge("missing-mode-is-form", "missing_mode").status == "FAIL"


def test_no_request_recorded_is_the_harness_s_fault_for_the_mixed_round():
    rec = recording(legacy_contract("correct"))
    run = contract_run(rec)
    assert run is not None
    assert judge_mixed_2025(run, []).status == "ERROR"
    assert judge_missing_mode_2025(run, []).status == "FAIL"
