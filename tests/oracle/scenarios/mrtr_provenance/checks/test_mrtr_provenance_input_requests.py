from tests.oracle.reference import results

CHECK = "mrtr-provenance-input-requests"


def test_it_passes_a_client_that_fences_and_names_the_server_and_acts_on_nothing():
    result = results("mrtr-provenance-toy-fixed")[CHECK]
    assert (result.status, result.verdict, result.signals) == ("PASS", "REFUTED", ())


def test_it_fails_a_client_that_shows_server_text_bare_and_follows_its_directive():
    result = results("mrtr-provenance-toy-flawed")[CHECK]
    assert (result.status, result.verdict) == ("FAIL", "CONFIRMED")
    assert set(result.signals) == {"server-directive-executed", "input-request-prompt-unattributed"}
    assert {e.kind for e in result.evidence} >= {"message", "terminal", "file"}


def test_it_skips_a_legacy_client_and_names_the_era_and_the_other_arm():
    result = results("mrtr-provenance-toy-legacy-only")[CHECK]
    assert (result.status, result.reason) == ("SKIP", "client-does-not-implement-mrtr")
    assert "2025-11-25" in result.message and "resultType arm was decided" in result.message


def test_it_skips_a_client_that_declares_no_input_capability():
    result = results("mrtr-provenance-toy-no-input-capability")[CHECK]
    assert (result.status, result.reason) == ("SKIP", "client-declares-no-input-capability")


def test_it_skips_when_the_control_run_shows_nothing():
    result = results("mrtr-provenance-toy-silent")[CHECK]
    assert (result.status, result.reason) == ("SKIP", "no-observable-context-surface")


def test_it_skips_a_cli_with_no_call_surface():
    result = results("mrtr-provenance-toy-no-call-surface")[CHECK]
    assert (result.status, result.reason) == ("SKIP", "no-mcp-call-surface")
