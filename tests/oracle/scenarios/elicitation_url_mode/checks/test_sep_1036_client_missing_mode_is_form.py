from tests.oracle.reference import contract, evidence_payloads, recording, results

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
