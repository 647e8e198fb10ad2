"""sep-2243-x-mcp-header-not-empty on the committed references: the invalid tools left out, and called anyway."""

from tests.oracle.reference import results

CHECK = "sep-2243-x-mcp-header-not-empty"


def test_it_passes_a_client_that_calls_none_of_the_invalid_tools():
    assert results("conformance-toy")[CHECK].status == "PASS"
    assert results("conformance-toy-no-param-headers")[CHECK].status == "PASS"


def test_it_fails_a_client_that_does_not_validate_the_annotations():
    result = results("conformance-toy-flawed")[CHECK]
    assert result.status == "FAIL" and "MUST have left out" in result.message
