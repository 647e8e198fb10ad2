"""sep-2575-http-server-no-independent-requests-on-stream: a 2026-07-28 server sends no requests of its own."""

from tests.oracle.session.wire import Wire, complete

RULE = "sep-2575-http-server-no-independent-requests-on-stream"


def test_a_2026_session_without_server_requests_passes_and_one_with_a_request_fails(tmp_path):
    good = Wire()
    good.call("tools/call", {"name": "t"}, result=complete())
    assert good.judged(tmp_path, RULE).status == "PASS"
    bad = Wire()
    bad.call("tools/call", {"name": "t"}, result=complete())
    bad.server_request("elicitation/create", {"message": "?"}, "s1")
    found = bad.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "elicitation/create" in found.message


def test_a_2025_session_with_a_handshake_may_have_server_requests(tmp_path):
    old = Wire()
    old.call("initialize", {"protocolVersion": "2025-11-25"}, result={"protocolVersion": "2025-11-25"}, meta={},
             headers={})  # fmt: skip
    old.server_request("roots/list", {}, "s1")
    found = old.judged(tmp_path, RULE)  # a 2026-07-28 rule, and the run spoke 2025-11-25 only
    assert found.status == "SKIP" and found.reason == "not-in-era" and "spoke 2025-11-25" in found.message
