"""session-server-input-required-well-formed: input_required carries inputRequests or requestState, well formed."""

from tests.oracle.session.wire import Wire, elicit, input_required

RULE = "session-server-input-required-well-formed"


def test_a_round_with_input_requests_and_state_passes(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=input_required(inputRequests={"a": elicit()}, requestState="s"))
    assert wire.judged(tmp_path, RULE).status == "PASS"


def test_a_round_with_neither_fails(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=input_required())
    assert "neither inputRequests nor requestState" in wire.judged(tmp_path, RULE).message


def test_an_input_request_of_an_unknown_kind_fails(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=input_required(inputRequests={"a": {"method": "tools/call"}}))
    found = wire.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "not an elicitation, sampling or roots request" in found.message


def test_a_state_that_is_not_a_string_fails(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=input_required(requestState={"step": 1}))
    assert "requestState is dict" in wire.judged(tmp_path, RULE).message
