from tests.oracle.reference import contract, evidence_payloads, recording, results

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
