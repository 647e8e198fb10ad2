from tests.oracle.reference import results

CHECK = "mrtr-provenance-result-type-default"


def test_it_passes_a_client_that_treats_an_absent_result_type_as_complete():
    result = results("mrtr-provenance-toy-fixed")[CHECK]
    assert (result.status, result.verdict, result.signals) == ("PASS", "REFUTED", ())


def test_it_fails_a_client_that_retries_a_result_without_result_type():
    result = results("mrtr-provenance-toy-flawed")[CHECK]
    assert (result.status, result.verdict) == ("FAIL", "CONFIRMED")
    assert result.signals == ("result-type-default-not-complete",)
    assert result.cwe == ("CWE-1289",)


def test_a_strict_client_is_refuted_and_its_modern_rejection_is_only_an_observation():
    result = results("mrtr-provenance-toy-strict")[CHECK]
    assert (result.status, result.verdict) == ("PASS", "REFUTED")
    assert result.observations == ("rejects-missing-result-type-on-modern-connection",)


def test_repairing_the_other_arm_changes_nothing_here():
    result = results("mrtr-provenance-toy-fix-provenance")[CHECK]
    assert (result.verdict, result.signals) == ("CONFIRMED", ("result-type-default-not-complete",))
