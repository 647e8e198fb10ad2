from tests.oracle.reference import contract, legacy_contract, recording, results

CHECK = "sep-1036-client-no-url-prefetch"


def test_it_passes_a_client_that_never_fetches_a_url():
    result = results(contract("correct"))[CHECK]
    assert result.status == "PASS", result.message
    assert recording(contract("correct")).url_hits == ()


def test_it_fails_a_client_that_fetches_the_declined_url_and_counts_only_hits_after_the_decline_request():
    result = results(contract("no-url-prefetch"))[CHECK]
    assert result.status == "FAIL"
    assert result.message == "the declined URL was fetched 1 time(s): GET /link/round-1"
    hits = recording(contract("no-url-prefetch")).url_hits
    # round 1 (declined server, before the DECLINE request) and every accepted URL were fetched too, uncounted
    assert sum(1 for h in hits if h.server == "declined") == 2
    assert {h.path for h in hits if h.server == "accepted"} >= {"/link/round-2", "/link/mixed"}
    assert [e.note for e in result.evidence if e.kind == "run"] == ["url hit GET /link/round-1"]


def test_it_skips_a_form_only_client():
    result = results(contract("form-only"))[CHECK]
    assert (result.status, result.reason) == ("SKIP", "mode-not-declared")


def test_in_2025_11_25_it_passes_a_client_that_fetches_nothing():
    result = results(legacy_contract("correct"))[CHECK]
    assert (result.status, result.message) == (
        "PASS",
        "no request reached the declined URL's server after it was offered",
    )
    assert [e.note for e in result.evidence] == ["DECLINE request", "-32042 naming a URL"]


def test_in_2025_11_25_it_fails_a_fetch_of_the_declined_url_and_of_the_minus_32042_url():
    result = results(legacy_contract("no-url-prefetch"))[CHECK]
    assert result.status == "FAIL"
    assert result.message == "the declined URL was fetched 2 time(s): GET /link/required, GET /link/round-1"


def test_in_2025_06_18_it_skips_there_is_no_url_mode():
    assert results(legacy_contract("correct-2025-06-18"))[CHECK].reason == "no-url-mode"
