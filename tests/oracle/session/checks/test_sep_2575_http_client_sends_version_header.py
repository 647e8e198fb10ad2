"""sep-2575-http-client-sends-version-header: MCP-Protocol-Version on every 2026-07-28 POST."""

from tests.oracle.session.wire import Wire, complete

RULE = "sep-2575-http-client-sends-version-header"


def test_the_header_on_every_post_passes_and_a_post_without_it_fails(tmp_path):
    good = Wire()
    good.call("tools/call", {"name": "t"}, result=complete())
    assert good.judged(tmp_path, RULE).status == "PASS"
    bad = Wire()
    bad.call("tools/call", {"name": "t"}, result=complete(), headers={"Mcp-Method": "tools/call", "Mcp-Name": "t"})
    found = bad.judged(tmp_path, RULE)
    assert found.status == "FAIL" and found.evidence[0].seq == 1


def test_no_post_is_not_exercised(tmp_path):
    assert Wire().judged(tmp_path, RULE).reason == "not-exercised"
