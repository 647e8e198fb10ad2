"""sampling-human-in-the-loop, judged on committed references: a user step before the answer leaves, in each era."""

import pytest

from tests.oracle.reference import results

CHECK = "sampling-human-in-the-loop"


@pytest.mark.parametrize("era", ["", "-2025-11-25", "-2025-06-18"])
def test_it_passes_the_careful_build_whose_user_answered_the_prompt(era):
    result = results(f"sampling-toy-careful{era}")[CHECK]
    assert result.status == "PASS" and "before the model's answer left" in result.message


@pytest.mark.parametrize("era", ["", "-2025-11-25"])
def test_a_denial_at_the_prompt_passes_whatever_the_era_does_with_it(era):
    result = results(f"sampling-toy-denied{era}")[CHECK]
    assert result.status == "PASS"
    assert ("with an error" if era else "giving the call up") in result.message


@pytest.mark.parametrize("era", ["", "-2025-11-25"])
def test_it_warns_when_the_answer_left_with_no_user_step(era):
    result = results(f"sampling-toy-auto-answer{era}")[CHECK]
    assert result.status == "WARN" and "no user step" in result.message
    assert result.evidence[0].kind == "message"


@pytest.mark.parametrize("name", ["sampling-py-sdk-reply", "sampling-ts-sdk-reply-2025-11-25"])
def test_the_sdk_drivers_stand_in_model_answers_with_no_user_step(name):
    assert results(name)[CHECK].status == "WARN"
