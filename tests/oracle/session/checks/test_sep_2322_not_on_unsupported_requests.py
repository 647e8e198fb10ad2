"""sep-2322-not-on-unsupported-requests: input_required answers only tools/call, prompts/get, resources/read."""

from tests.oracle.session.wire import Wire, elicit, input_required

RULE = "sep-2322-not-on-unsupported-requests"


def test_input_required_on_a_tool_call_passes(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=input_required(inputRequests={"a": elicit()}))
    assert wire.judged(tmp_path, RULE).status == "PASS"


def test_input_required_on_tools_list_fails(tmp_path):
    wire = Wire()
    wire.call("tools/list", result=input_required(requestState="s"))
    found = wire.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "answering tools/list" in found.message and found.evidence[0].seq == 2


def test_no_input_required_is_not_exercised(tmp_path):
    wire = Wire()
    wire.call("tools/list", result={"resultType": "complete", "tools": []})
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
