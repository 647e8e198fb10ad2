"""sep-2575-client-populates-meta: protocolVersion and clientCapabilities in every 2026-07-28 request's _meta."""

from tests.oracle.session.wire import Wire, complete, modern_meta

RULE = "sep-2575-client-populates-meta"


def test_both_in_every_request_passes_and_one_missing_fails(tmp_path):
    good = Wire()
    good.call("tools/call", {"name": "t"}, result=complete())
    assert good.judged(tmp_path, RULE).status == "PASS"
    bad = Wire()
    bad.call("tools/call", {"name": "t"}, result=complete(), meta=modern_meta(clientCapabilities=None))
    found = bad.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "clientCapabilities" in found.message


def test_a_request_of_an_older_era_is_not_judged(tmp_path):
    old = Wire()
    old.call("initialize", {"protocolVersion": "2025-11-25"}, result={"protocolVersion": "2025-11-25"}, meta={},
             headers={})  # fmt: skip
    found = old.judged(tmp_path, RULE)  # a 2026-07-28 rule, and the run spoke 2025-11-25 only
    assert found.reason == "not-in-era" and "spoke 2025-11-25" in found.message
