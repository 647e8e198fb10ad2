"""sep-2322-client-parallel-isolation: inputResponses and requestState only on their own round's retry."""

from tests.oracle.session.wire import Wire, complete, input_required

RULE = "sep-2322-client-parallel-isolation"


def test_state_sent_only_on_its_own_retry_passes(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "a"}, result=input_required(requestState="for-a"))
    wire.call("tools/call", {"name": "b"}, result=complete())
    wire.call("tools/call", {"name": "a", "requestState": "for-a"}, result=complete())
    assert wire.judged(tmp_path, RULE).status == "PASS"


def test_another_rounds_state_on_a_parallel_request_fails_citing_both(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "a"}, result=input_required(requestState="for-a"))
    wire.call("tools/call", {"name": "b", "requestState": "for-a"}, result=complete())
    found = wire.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "another round's requestState" in found.message
    assert {e.seq for e in found.evidence} >= {1, 3}


def test_a_state_with_no_round_to_belong_to_is_a_warning_for_a_person(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "a", "requestState": "from-nowhere"}, result=complete())
    assert wire.judged(tmp_path, RULE).status == "WARN"


def test_no_request_carrying_either_is_not_exercised(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "a"}, result=complete())
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
