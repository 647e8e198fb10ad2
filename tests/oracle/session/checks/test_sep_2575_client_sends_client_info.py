"""sep-2575-client-sends-client-info: a SHOULD, so a missing clientInfo is a warning."""

from tests.oracle.session.wire import Wire, complete, modern_meta

RULE = "sep-2575-client-sends-client-info"


def test_client_info_present_passes_and_missing_warns(tmp_path):
    good = Wire()
    good.call("tools/call", {"name": "t"}, result=complete())
    assert good.judged(tmp_path, RULE).status == "PASS"
    bad = Wire()
    bad.call("tools/call", {"name": "t"}, result=complete(), meta=modern_meta(clientInfo=None))
    assert bad.judged(tmp_path, RULE).status == "WARN"


def test_no_2026_request_is_not_exercised(tmp_path):
    assert Wire().judged(tmp_path, RULE).reason == "not-exercised"
