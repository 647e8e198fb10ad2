from tests.oracle.reference import contract, evidence_payloads, legacy_contract, recording, results

CHECK = "sep-2322-client-constructs-inputs-mixed"


def test_it_passes_a_client_that_answers_the_url_and_the_form_request_together():
    result = results(contract("correct"))[CHECK]
    assert result.status == "PASS", result.message
    [retry] = evidence_payloads(recording(contract("correct")), result)
    assert retry["params"]["inputResponses"] == {
        "link": {"action": "accept"},
        "confirm": {"action": "accept", "content": {"confirmed": True}},
    }


def test_it_fails_a_client_that_answers_only_the_url_request():
    result = results(contract("constructs-inputs-mixed"))[CHECK]
    assert result.status == "FAIL"
    assert result.message.startswith("confirm (form) answered None")
    assert "link (URL)" not in result.message
    [retry] = evidence_payloads(recording(contract("constructs-inputs-mixed")), result)
    assert retry["params"]["inputResponses"] == {"link": {"action": "accept"}}


def test_it_skips_a_form_only_client():
    result = results(contract("form-only"))[CHECK]
    assert (result.status, result.reason) == ("SKIP", "mode-not-declared")


def test_in_2025_11_25_it_passes_both_stream_requests_answered():
    result = results(legacy_contract("correct"))[CHECK]
    assert (result.status, result.message) == ("PASS", "both requests of the call's stream answered")
    answers = [p["result"] for p in evidence_payloads(recording(legacy_contract("correct")), result)]
    assert answers == [{"action": "accept"}, {"action": "accept", "content": {"confirmed": True}}]


def test_in_2025_11_25_it_fails_a_form_request_accepted_without_content():
    result = results(legacy_contract("constructs-inputs-mixed"))[CHECK]
    assert result.status == "FAIL"
    assert result.message == (
        "the form request was answered {'action': 'accept'}, expected accept with content confirmed=true"
    )


def test_in_2025_06_18_it_skips_there_is_no_url_mode():
    assert results(legacy_contract("correct-2025-06-18"))[CHECK].reason == "no-url-mode"
