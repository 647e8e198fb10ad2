"""sep-2243-client-reject-invalid-tool on the committed references: the valid tool still called, and a client that
dropped the whole listing over one invalid tool (WARN: the wire cannot tell it from an idle client)."""

from tests.oracle.reference import evidence_payloads, recording, results

CHECK = "sep-2243-client-reject-invalid-tool"


def test_it_passes_a_client_that_still_calls_the_valid_tool():
    result = results("conformance-toy")[CHECK]
    assert result.status == "PASS"
    [call] = evidence_payloads(recording("conformance-toy"), result)
    assert call["params"]["name"] == "valid_tool"


def test_it_warns_when_no_valid_tool_is_called():
    result = results("conformance-toy-no-param-headers")[CHECK]
    assert result.status == "WARN" and "dropped the whole listing" in result.message
