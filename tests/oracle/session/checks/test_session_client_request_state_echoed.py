"""session-client-request-state-echoed: a retry echoes its round's requestState byte for byte."""

from tests.oracle.session.wire import Wire, complete, elicit, input_required

RULE = "session-client-request-state-echoed"


def _round(wire: Wire, echoed: object, *, drop: bool = False) -> None:
    wire.call("tools/call", {"name": "t"}, result=input_required(inputRequests={"a": elicit()}, requestState="s-1"))
    retry = {"name": "t", "inputResponses": {"a": {"action": "accept", "content": {}}}}
    if not drop:
        retry["requestState"] = echoed
    wire.call("tools/call", retry, result=complete())


def test_a_retry_that_echoes_the_state_exactly_passes(tmp_path):
    wire = Wire()
    _round(wire, "s-1")
    assert wire.judged(tmp_path, RULE).status == "PASS"


def test_a_retry_that_changes_or_drops_the_state_fails_citing_the_round_and_the_retry(tmp_path):
    changed, dropped = Wire(), Wire()
    _round(changed, "s-2")
    _round(dropped, None, drop=True)
    found = changed.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "'s-2' for 's-1'" in found.message
    assert [e.seq for e in found.evidence] == [1, 2, 3]
    assert "dropped" in dropped.judged(tmp_path, RULE).message


def test_no_round_with_a_state_is_not_exercised(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=complete())
    found = wire.judged(tmp_path, RULE)
    assert (found.status, found.reason) == ("SKIP", "not-exercised")


def test_a_round_whose_server_is_backchannels_own_client_is_not_judged(tmp_path):
    wire = Wire(scenario="elicitation-sep1036-url-mode")  # backchannel played the client there
    _round(wire, "s-2")
    assert wire.judged(tmp_path, RULE).status == "SKIP"
