"""sep-2243-client-supports-custom-headers on the committed references: Mcp-Param headers sent, and none at all."""

from tests.oracle.reference import results

CHECK = "sep-2243-client-supports-custom-headers"


def test_it_passes_a_client_that_sends_mcp_param_headers():
    assert results("conformance-toy")[CHECK].status == "PASS"
    assert results("conformance-toy-flawed")[CHECK].status == "PASS"  # wrong headers are the other checks' part


def test_it_fails_a_client_that_sends_none():
    result = results("conformance-toy-no-param-headers")[CHECK]
    assert result.status == "FAIL" and "sent no Mcp-Param header" in result.message
