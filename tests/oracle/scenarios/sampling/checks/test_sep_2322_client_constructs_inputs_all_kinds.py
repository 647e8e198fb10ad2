"""sep-2322-client-constructs-inputs-all-kinds, judged on committed references: one round of every kind answered
whole in one retry (2026-07-28)."""

from tests.oracle.reference import evidence_payloads, recording, results

CHECK = "sep-2322-client-constructs-inputs-all-kinds"


def test_it_passes_the_careful_build_that_answers_all_three_kinds_in_one_retry():
    result = results("sampling-toy-careful")[CHECK]
    assert result.status == "PASS"
    asked, retry = evidence_payloads(recording("sampling-toy-careful"), result)
    assert (
        set(asked["result"]["inputRequests"])
        == set(retry["params"]["inputResponses"])
        == {
            "confirm",
            "draft",
            "where",
        }
    )


def test_it_passes_the_sdk_drivers_round_of_the_two_kinds_they_declared():
    for name in ("sampling-py-sdk-reply", "sampling-ts-sdk-reply"):
        assert results(name)[CHECK].status == "PASS", name


def test_it_fails_a_client_that_answers_the_round_one_request_at_a_time():
    result = results("sampling-toy-split-round")[CHECK]
    assert result.status == "FAIL" and "left ['draft', 'where'] unanswered" in result.message


def test_it_skips_the_2025_eras_a_denial_and_a_client_with_one_kind():
    assert results("sampling-toy-careful-2025-11-25")[CHECK].reason == "legacy-era"
    assert results("sampling-toy-denied")[CHECK].reason == "user-step-then-no-retry"
    assert results("sampling-py-sdk")[CHECK].reason == "fewer-than-two-kinds"
