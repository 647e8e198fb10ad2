from tests.oracle.reference import contract, legacy_contract, recording, results

CHECK = "sep-1036-client-held-json-retry-complete"
TOOL = "held_json"


def test_it_passes_a_client_that_waits_for_the_held_retry():
    result = results(contract("correct"))[CHECK]
    assert result.status == "PASS", result.message
    assert result.message == "the client waited for the held JSON retry and got its result"


def test_it_fails_a_client_that_closes_the_held_retry_early():
    result = results(contract("held-json"))[CHECK]
    assert result.status == "FAIL"
    assert result.message.startswith("the client closed the held JSON retry before the answer arrived")
    [exchange] = [e for e in result.evidence if e.kind == "exchange"]
    closed = next(x for x in recording(contract("held-json")).exchanges if x.seq == exchange.seq)
    assert closed.error


def test_it_fails_the_early_closer_that_closes_both_held_retries():
    assert results(contract("held-both"))[CHECK].status == "FAIL"


def test_it_skips_a_form_only_client():
    result = results(contract("form-only"))[CHECK]
    assert (result.status, result.reason) == ("SKIP", "mode-not-declared")
    assert TOOL in result.message


def test_in_2025_it_skips_there_is_no_retry_to_hold():
    for name in (legacy_contract("correct"), "elicitation-url-mode-ts-sdk-2025-11-25"):
        result = results(name)[CHECK]
        assert (result.status, result.reason) == ("SKIP", "mrtr-only"), name
        assert result.message.startswith("the run spoke 2025-11-25: this check judges a 2026-07-28 (MRTR) retry")
