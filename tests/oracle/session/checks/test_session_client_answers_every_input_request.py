"""session-client-answers-every-input-request: a retry answers every inputRequests key of its round."""

from tests.oracle.session.wire import Wire, complete, elicit, input_required

RULE = "session-client-answers-every-input-request"
ACCEPT = {"action": "accept", "content": {}}


def test_a_retry_answering_both_keys_passes(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=input_required(inputRequests={"a": elicit(), "b": elicit()}))
    wire.call(
        "tools/call", {"name": "t", "inputResponses": {"a": ACCEPT, "b": {"action": "decline"}}}, result=complete()
    )
    assert wire.judged(tmp_path, RULE).status == "PASS"


def test_a_retry_leaving_a_key_out_fails(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=input_required(inputRequests={"a": elicit(), "b": elicit()}))
    wire.call("tools/call", {"name": "t", "inputResponses": {"a": ACCEPT}}, result=complete())
    found = wire.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "answers 1 of 2: no 'b'" in found.message and found.evidence[2].seq == 3


def test_a_retry_with_no_input_responses_fails(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=input_required(inputRequests={"a": elicit()}))
    wire.call("tools/call", {"name": "t"}, result=complete())
    assert "no inputResponses" in wire.judged(tmp_path, RULE).message


def test_a_round_never_retried_is_not_exercised(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=input_required(inputRequests={"a": elicit()}))
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
