"""sep-2243-client-mirrors-designated-params on the committed references: each annotated string mirrored, an empty
string dropped, none sent at all."""

from tests.oracle.reference import results

CHECK = "sep-2243-client-mirrors-designated-params"


def test_it_passes_every_annotated_string_mirrored():
    result = results("conformance-toy")[CHECK]
    assert result.status == "PASS" and result.message.startswith("6 annotated string parameter(s)")


def test_it_fails_an_empty_string_treated_as_absent_and_a_client_that_mirrors_nothing():
    flawed = results("conformance-toy-flawed")[CHECK]
    assert flawed.status == "FAIL" and "Mcp-Param-EmptyVal missing for empty_val=''" in flawed.message
    assert results("conformance-toy-no-param-headers")[CHECK].status == "FAIL"
