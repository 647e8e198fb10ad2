"""sep-2575-client-retry-supported-version on the committed references: the forced -32022 retried with a listed
version, and a client that gives up on it (WARN: a SHOULD)."""

from tests.oracle.reference import evidence_payloads, recording, results

CHECK = "sep-2575-client-retry-supported-version"


def test_it_passes_a_retry_of_the_refused_request_with_a_listed_version():
    result = results("conformance-toy")[CHECK]
    assert result.status == "PASS"
    refused, retry = evidence_payloads(recording("conformance-toy"), result)
    assert refused["method"] == retry["method"] == "server/discover" and refused["id"] != retry["id"]
    assert retry["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"


def test_it_warns_when_the_client_never_retries():
    result = results("conformance-toy-flawed")[CHECK]
    assert result.status == "WARN" and "server/discover was never retried" in result.message
