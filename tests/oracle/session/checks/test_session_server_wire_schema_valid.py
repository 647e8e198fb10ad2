"""session-server-wire-schema-valid: every message a server sends is valid against its era's official schema."""

from tests.oracle.session.wire import Wire, complete

RULE = "session-server-wire-schema-valid"


def test_valid_results_in_both_eras_pass(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=complete())
    wire.initialize("2025-11-25")
    wire.legacy("tools/call", {"name": "t"}, result={"content": [{"type": "text", "text": "hi"}]})
    assert wire.judged(tmp_path, RULE).status == "PASS"


def test_a_tool_result_whose_content_is_not_a_list_fails(tmp_path):
    wire = Wire()
    wire.initialize("2025-11-25")
    wire.legacy("tools/call", {"name": "t"}, result={"content": "hi"})
    found = wire.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "result/content" in found.message and "answering tools/call" in found.message


def test_the_result_as_the_server_sent_it_is_judged_not_the_proxys_rewrite(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result={"content": "broken by the proxy"}, upstream_result=complete())
    assert wire.judged(tmp_path, RULE).status == "PASS"


def test_backchannels_own_endpoint_is_not_judged(tmp_path):
    wire = Wire(scenario="mrtr-provenance")
    wire.call("tools/call", {"name": "t"}, result={"content": "x"})
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
