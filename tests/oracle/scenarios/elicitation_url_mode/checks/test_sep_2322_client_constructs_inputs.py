from tests.oracle.reference import contract, evidence_payloads, recording, results

CHECK = "sep-2322-client-constructs-inputs"


def test_it_passes_a_client_that_answers_every_round_anew_and_declines_round_three():
    result = results(contract("correct"))[CHECK]
    assert result.status == "PASS", result.message
    assert "all 3 rounds" in result.message
    answers = [p["params"].get("inputResponses") for p in evidence_payloads(recording(contract("correct")), result)]
    assert answers == [
        {"url_1": {"action": "accept"}},
        {"url_2": {"action": "accept"}},
        {"url_3": {"action": "decline"}},
    ]


def test_it_fails_a_client_that_resends_the_previous_rounds_answers():
    result = results(contract("constructs-inputs"))[CHECK]
    assert result.status == "FAIL"
    assert "round 2's retry left ['url_2'] unanswered" in result.message
    [retry] = evidence_payloads(recording(contract("constructs-inputs")), result)
    assert retry["params"]["name"] == "url_rounds"
    assert retry["params"]["inputResponses"] == {"url_1": {"action": "accept"}}


def test_it_skips_a_form_only_client_that_the_server_refused_with_32021():
    result = results(contract("form-only"))[CHECK]
    assert (result.status, result.reason) == ("SKIP", "mode-not-declared")
