"""sep-2106-no-network-ref-deref on the committed references: the network $ref left alone, and fetched."""

from backchannel.oracle.scenarios.conformance.checks.sep_2106_no_network_ref_deref import network_refs
from tests.oracle.reference import recording, results

CHECK = "sep-2106-no-network-ref-deref"


def test_it_passes_a_client_that_never_fetches_the_canary():
    result = results("conformance-toy")[CHECK]
    assert result.status == "PASS" and "no request reached the canary" in result.message
    assert not [h for h in recording("conformance-toy").url_hits if h.server == "canary"]


def test_it_fails_a_client_that_dereferences_it_citing_the_hit():
    result = results("conformance-toy-flawed")[CHECK]
    assert result.status == "FAIL" and "GET /canary/profile-schema.json" in result.message
    assert any(e.kind == "run" and "canary hit" in e.note for e in result.evidence)


def test_only_http_refs_count_as_network_ones():
    schema = {"properties": {"a": {"$ref": "#/$defs/x"}, "b": {"items": [{"$ref": "https://h/s.json"}]}}}
    assert network_refs(schema) == ["https://h/s.json"]
