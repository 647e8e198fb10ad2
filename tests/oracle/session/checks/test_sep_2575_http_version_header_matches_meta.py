"""sep-2575-http-version-header-matches-meta: the header and _meta name the same version."""

from tests.oracle.session.wire import MODERN, Wire, complete

RULE = "sep-2575-http-version-header-matches-meta"


def test_equal_versions_pass_and_unequal_ones_fail_with_both(tmp_path):
    good = Wire()
    good.call("tools/call", {"name": "t"}, result=complete())
    assert good.judged(tmp_path, RULE).status == "PASS"
    bad = Wire()
    headers = {"MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/call", "Mcp-Name": "t"}
    bad.call("tools/call", {"name": "t"}, result=complete(), headers=headers)
    found = bad.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "2025-11-25" in found.message and MODERN in found.message


def test_a_request_missing_either_is_not_exercised(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=complete(), headers={"Mcp-Method": "tools/call", "Mcp-Name": "t"})
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
