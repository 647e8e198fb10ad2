from tests.clients.recordings import evidence_payloads, recording, results

CHECK = "sep-2322-client-constructs-inputs-mixed"


def test_it_passes_a_client_that_answers_the_url_and_the_form_request_together(tmp_path_factory):
    result = results("correct", tmp_path_factory)[CHECK]
    assert result.status == "PASS", result.message
    [retry] = evidence_payloads(recording("correct", tmp_path_factory), result)
    assert retry["params"]["inputResponses"] == {
        "link": {"action": "accept"},
        "confirm": {"action": "accept", "content": {"confirmed": True}},
    }


def test_it_fails_a_client_that_answers_only_the_url_request(tmp_path_factory):
    result = results("constructs-inputs-mixed", tmp_path_factory)[CHECK]
    assert result.status == "FAIL"
    assert result.message.startswith("confirm (form) answered None")
    assert "link (URL)" not in result.message
    [retry] = evidence_payloads(recording("constructs-inputs-mixed", tmp_path_factory), result)
    assert retry["params"]["inputResponses"] == {"link": {"action": "accept"}}


def test_it_skips_a_form_only_client(tmp_path_factory):
    result = results("form-only", tmp_path_factory)[CHECK]
    assert (result.status, result.reason) == ("SKIP", "mode-not-declared")
