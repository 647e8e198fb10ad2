from tests.oracle.reference import contract, evidence_payloads, legacy_contract, recording, results

CHECK = "sep-1036-client-url-required-urls-shown"


def test_it_passes_a_2025_client_that_shows_the_url_before_it_retries():
    result = results(legacy_contract("correct"))[CHECK]
    assert result.status == "PASS", result.message
    assert result.message == "every URL the -32042 named (1) was shown in full before the client retried the call"
    [error, retry] = evidence_payloads(recording(legacy_contract("correct")), result)
    assert error["error"]["code"] == -32042
    assert retry["params"]["name"] == "url_required"
    [shown] = [e for e in result.evidence if e.kind == "terminal"]
    assert shown.note == "the full URL"


def test_it_passes_both_sdk_drivers_at_2025_11_25():
    for client in ("py-sdk", "ts-sdk"):
        result = results(f"elicitation-url-mode-{client}-2025-11-25")[CHECK]
        assert result.status == "PASS", (client, result.message)


def test_it_fails_a_client_that_retries_without_ever_showing_the_url():
    result = results(legacy_contract("url-required-shown"))[CHECK]
    assert result.status == "FAIL"
    assert result.message.startswith("the URL 'http://127.0.0.1:")
    assert result.message.endswith("/link/required' was never shown; the client retried the call")


def test_it_skips_2026_where_the_error_was_removed_and_2025_06_18_which_has_no_url_mode():
    assert (results(contract("correct"))[CHECK].status, results(contract("correct"))[CHECK].reason) == (
        "SKIP",
        "removed-in-2026",
    )
    old = results(legacy_contract("correct-2025-06-18"))[CHECK]
    assert (old.status, old.reason) == ("SKIP", "no-url-mode")
    assert (results(contract("form-only"))[CHECK].reason) == "mode-not-declared"
