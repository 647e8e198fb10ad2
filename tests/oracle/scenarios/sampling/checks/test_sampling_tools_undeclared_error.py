"""sampling-tools-undeclared-error, judged on committed references: judged in 2025-11-25 only."""

from tests.oracle.reference import evidence_payloads, recording, results

CHECK = "sampling-tools-undeclared-error"


def test_it_passes_the_careful_build_that_answers_with_an_error():
    result = results("sampling-toy-careful-2025-11-25")[CHECK]
    assert result.status == "PASS"
    asked, answered = evidence_payloads(recording("sampling-toy-careful-2025-11-25"), result)
    assert "tools" in asked["params"] and answered["error"]["code"] == -32602


def test_it_fails_a_client_that_answers_tools_it_never_declared():
    for name in ("sampling-toy-answer-undeclared-tools-2025-11-25", "sampling-py-sdk-reply-2025-11-25"):
        result = results(name)[CHECK]
        assert result.status == "FAIL" and "never declared sampling.tools" in result.message, name


def test_2026_has_no_error_slot_and_2025_06_18_no_tools_so_both_skip():
    assert results("sampling-toy-careful")[CHECK].reason == "no-error-slot"
    assert results("sampling-ts-sdk-reply-2025-06-18")[CHECK].reason == "no-tools-sent"
