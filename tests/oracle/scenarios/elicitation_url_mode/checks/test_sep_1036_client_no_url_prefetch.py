from tests.oracle.reference import contract, recording, results

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
