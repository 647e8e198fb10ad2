from tests.oracle.reference import contract, evidence_payloads, legacy_contract, recording, results

CHECK = "sep-1036-client-missing-mode-is-form"


def test_it_passes_a_client_that_answers_a_modeless_request_as_a_form():
    result = results(contract("correct"))[CHECK]
    assert result.status == "PASS", result.message
    [retry] = evidence_payloads(recording(contract("correct")), result)
    assert retry["params"]["inputResponses"] == {"details": {"action": "accept", "content": {"confirmed": True}}}


def test_it_passes_a_form_only_client_too():
    assert results(contract("form-only"))[CHECK].status == "PASS"


def test_it_fails_a_client_that_takes_the_stray_url_field_for_url_mode():
    result = results(contract("missing-mode-is-form"))[CHECK]
    assert result.status == "FAIL"
    assert result.message.startswith("accepted with no content, as if it were URL mode")
    [retry] = evidence_payloads(recording(contract("missing-mode-is-form")), result)
    assert retry["params"]["inputResponses"] == {"details": {"action": "accept"}}


def test_in_both_2025_eras_it_passes_a_request_without_mode_answered_as_a_form():
    for variant in ("correct", "correct-2025-06-18"):
        result = results(legacy_contract(variant))[CHECK]
        assert (result.status, result.message) == ("PASS", "answered as form mode, with content"), variant
        [answer] = evidence_payloads(recording(legacy_contract(variant)), result)
        assert answer["result"] == {"action": "accept", "content": {"confirmed": True}}


def test_in_2025_11_25_it_fails_a_client_that_reads_the_stray_url_as_url_mode():
    result = results(legacy_contract("missing-mode-is-form"))[CHECK]
    assert (result.status, result.message) == ("FAIL", "accepted with no content, as if it were URL mode: "
                                                        "{'action': 'accept'}")  # fmt: skip


def test_the_python_sdk_fails_it_in_every_era_and_the_typescript_sdk_passes():
    for era in ("", "-2025-11-25", "-2025-06-18"):
        assert results(f"elicitation-url-mode-py-sdk{era}")[CHECK].status == "FAIL", era
        assert results(f"elicitation-url-mode-ts-sdk{era}")[CHECK].status == "PASS", era
