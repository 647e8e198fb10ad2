"""sep-2322-default-result-type-complete on the committed references: a result without resultType taken as complete,
and one answered as a round (retried with inputResponses)."""

from tests.oracle.reference import evidence_payloads, recording, results

CHECK = "sep-2322-default-result-type-complete"


def test_it_passes_a_client_that_takes_the_result_as_complete():
    result = results("conformance-toy")[CHECK]
    assert result.status == "PASS" and "none answered as a round" in result.message
    [call] = evidence_payloads(recording("conformance-toy"), result)
    assert call["params"]["name"] == "test_mrtr_no_result_type"


def test_it_fails_a_client_that_answers_it_as_input_required():
    result = results("conformance-toy-flawed")[CHECK]
    assert result.status == "FAIL"
    payloads = evidence_payloads(recording("conformance-toy-flawed"), result)
    assert any("inputResponses" in p["params"] for p in payloads)
