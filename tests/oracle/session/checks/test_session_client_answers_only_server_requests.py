"""session-client-answers-only-server-requests: a client's response answers a request the server sent, once."""

from tests.oracle.session.wire import Wire, complete

RULE = "session-client-answers-only-server-requests"


def test_an_answer_to_a_server_request_passes(tmp_path):
    wire = Wire()
    wire.call("initialize", {"protocolVersion": "2025-11-25"}, result={"protocolVersion": "2025-11-25"}, meta={},
              headers={})  # fmt: skip
    wire.server_request("roots/list", {}, "srv-1")
    wire.client_response("srv-1", {"roots": []})
    assert wire.judged(tmp_path, RULE).status == "PASS"


def test_an_answer_to_nothing_or_a_second_answer_fails(tmp_path):
    nothing = Wire()
    nothing.call("tools/call", {"name": "t"}, result=complete())
    nothing.client_response(99, {})
    found = nothing.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "never asked" in found.message
    twice = Wire()
    twice.server_request("roots/list", {}, "srv-1")
    twice.client_response("srv-1", {"roots": []})
    twice.client_response("srv-1", {"roots": []})
    assert "second response" in twice.judged(tmp_path, RULE).message


def test_a_client_that_sent_no_response_is_not_exercised(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=complete())
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
