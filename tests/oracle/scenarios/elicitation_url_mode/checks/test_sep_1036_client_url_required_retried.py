from tests.oracle.reference import contract, evidence_payloads, legacy_contract, recording, results

CHECK = "sep-1036-client-url-required-retried"


def test_it_passes_a_2025_client_that_retries_once_and_gets_the_result():
    result = results(legacy_contract("correct"))[CHECK]
    assert result.status == "PASS", result.message
    assert result.message == "retried after the -32042 and got the tool's result (1 retry(ies))"
    [error, retry] = evidence_payloads(recording(legacy_contract("correct")), result)
    assert error["error"]["code"] == -32042
    assert error["error"]["data"]["elicitations"][0]["mode"] == "url"
    assert retry["method"] == "tools/call" and retry["id"] != error["id"]


def test_it_warns_never_fails_a_client_that_gives_up_after_the_error():
    result = results(legacy_contract("url-required-retried"))[CHECK]
    assert result.status == "WARN"
    assert result.message == "the client never retried url_required after its -32042 (the contract asks for one retry)"


def test_both_sdk_drivers_retry_at_2025_11_25_and_2026_skips_it():
    for client in ("py-sdk", "ts-sdk"):
        assert results(f"elicitation-url-mode-{client}-2025-11-25")[CHECK].status == "PASS"
        modern = results(f"elicitation-url-mode-{client}")[CHECK]
        assert (modern.status, modern.reason) == ("SKIP", "removed-in-2026")
    assert results(contract("correct"))[CHECK].reason == "removed-in-2026"
