from tests.oracle.reference import contract, legacy_contract, recording, results

CHECK = "sep-2322-client-request-state-echoed"


def test_it_passes_a_client_that_echoes_the_newest_state_on_every_retry():
    result = results(contract("correct"))[CHECK]
    assert result.status == "PASS", result.message
    assert result.message.startswith("all 8 retries")  # url_rounds 3, the other five tools 1 each


def test_a_form_only_client_is_judged_on_the_form_tools_it_could_call():
    result = results(contract("form-only"))[CHECK]
    assert result.status == "PASS", result.message
    assert result.message.startswith("all 2 retries")


def test_it_fails_a_client_that_echoes_round_ones_state_on_the_round_two_retry():
    result = results(contract("request-state-echoed"))[CHECK]
    assert result.status == "FAIL"
    assert result.message == "url_rounds: the retry echoed the state from round 1 instead of round 2"
    rec = recording(contract("request-state-echoed"))
    retry_seq = result.evidence[0].seq
    retry = next(m for m in rec.messages if m.seq == retry_seq).payload
    results_sent = [
        m.payload.get("result") for m in rec.messages if m.direction == "to-client" and m.kind == "response"
    ]
    states = [
        r["requestState"]
        for r in results_sent
        if isinstance(r, dict) and r.get("resultType") == "input_required" and ".url_rounds." in r["requestState"]
    ]
    assert retry["params"]["requestState"] == states[0] != states[1]
    assert set(retry["params"]["inputResponses"]) == {"url_2"}


def test_in_2025_it_skips_a_2025_client_never_sees_a_request_state():
    for variant in ("correct", "correct-2025-06-18"):
        result = results(legacy_contract(variant))[CHECK]
        assert (result.status, result.reason) == ("SKIP", "mrtr-only"), variant
    assert results("elicitation-url-mode-py-sdk-2025-11-25")[CHECK].reason == "mrtr-only"
