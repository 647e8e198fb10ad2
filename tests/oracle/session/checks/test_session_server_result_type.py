"""session-server-result-type: every result a 2026-07-28 server sends carries resultType, as the server sent it."""

from tests.oracle.session.wire import Wire, complete

RULE = "session-server-result-type"


def test_a_result_type_everywhere_passes_and_a_result_without_one_fails(tmp_path):
    good = Wire()
    good.call("tools/call", {"name": "t"}, result=complete())
    assert good.judged(tmp_path, RULE).status == "PASS"
    bad = Wire()
    bad.call("tools/list", result={"tools": []})
    found = bad.judged(tmp_path, RULE)
    assert found.status == "FAIL" and found.evidence[0].seq == 2


def test_a_result_type_the_proxy_dropped_on_purpose_is_not_blamed_on_the_server(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result={"content": []}, upstream_result=complete())
    assert wire.judged(tmp_path, RULE).status == "PASS"


def test_backchannels_own_endpoint_is_not_judged(tmp_path):
    wire = Wire(scenario="mrtr-provenance")
    wire.call("tools/list", result={"tools": []})
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
