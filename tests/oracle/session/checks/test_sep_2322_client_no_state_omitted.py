"""sep-2322-client-no-state-omitted: no requestState on the retry of a round that carried none."""

from tests.oracle.session.wire import Wire, complete, elicit, input_required

RULE = "sep-2322-client-no-state-omitted"


def _session(*, invent: bool) -> Wire:
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=input_required(inputRequests={"a": elicit()}))
    retry: dict[str, object] = {"name": "t", "inputResponses": {"a": {"action": "decline"}}}
    if invent:
        retry["requestState"] = "made-up"
    wire.call("tools/call", retry, result=complete())
    return wire


def test_a_retry_without_a_state_passes_and_one_that_invents_one_fails(tmp_path):
    assert _session(invent=False).judged(tmp_path, RULE).status == "PASS"
    found = _session(invent=True).judged(tmp_path, RULE)
    assert found.status == "FAIL" and "made-up" in found.message


def test_a_session_without_rounds_is_not_exercised(tmp_path):
    wire = Wire()
    wire.call("tools/list", result={"resultType": "complete", "tools": []})
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
