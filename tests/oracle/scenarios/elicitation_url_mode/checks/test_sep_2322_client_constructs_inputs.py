from tests.oracle.reference import contract, evidence_payloads, legacy_contract, recording, results

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


def test_in_2025_11_25_it_passes_three_server_requests_each_answered_anew():
    result = results(legacy_contract("correct"))[CHECK]
    assert result.status == "PASS", result.message
    assert result.message == "all 3 elicitation/create requests answered anew, round 3 declined"
    answers = [p["result"] for p in evidence_payloads(recording(legacy_contract("correct")), result)]
    assert answers == [{"action": "accept"}, {"action": "accept"}, {"action": "decline"}]


def test_in_2025_11_25_it_fails_a_client_that_answers_round_three_from_round_ones_answer():
    result = results(legacy_contract("constructs-inputs"))[CHECK]
    assert result.status == "FAIL"
    assert result.message.startswith("round 3 asked with message 'DECLINE: this page must not be opened (round 3).': "
                                     "expected decline, got accept")  # fmt: skip
    [answer] = evidence_payloads(recording(legacy_contract("constructs-inputs")), result)
    assert answer["result"] == {"action": "accept"}


def test_in_2025_06_18_it_skips_there_is_no_url_mode():
    result = results(legacy_contract("correct-2025-06-18"))[CHECK]
    assert (result.status, result.reason) == ("SKIP", "no-url-mode")
