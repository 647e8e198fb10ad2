"""sep-2575-http-routing-headers-match-body: Mcp-Method and Mcp-Name agree with the body, Base64 where required."""

import base64

from tests.oracle.session.wire import MODERN, Wire, complete

RULE = "sep-2575-http-routing-headers-match-body"


def _call(name: str, header: str | None, method_header: str = "tools/call") -> Wire:
    wire = Wire()
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method_header}
    if header is not None:
        headers["Mcp-Name"] = header
    wire.call("tools/call", {"name": name}, result=complete(), headers=headers)
    return wire


def encoded(value: str) -> str:
    return "=?base64?" + base64.b64encode(value.encode()).decode() + "?="


def test_agreeing_headers_pass_plain_or_base64_where_needed(tmp_path):
    assert _call("get_weather", "get_weather").judged(tmp_path, RULE).status == "PASS"
    assert _call("météo", encoded("météo")).judged(tmp_path, RULE).status == "PASS"


def test_a_missing_or_disagreeing_header_fails_and_so_does_a_plain_name_that_needed_base64(tmp_path):
    assert "no Mcp-Name" in _call("t", None).judged(tmp_path, RULE).message
    assert "does not stand for" in _call("t", "u").judged(tmp_path, RULE).message
    assert "Mcp-Method 'tools/list'" in _call("t", "t", "tools/list").judged(tmp_path, RULE).message
    found = _call(" padded ", " padded ").judged(tmp_path, RULE)
    assert found.status == "FAIL" and "Base64 sentinel is required" in found.message


def test_no_2026_post_is_not_exercised(tmp_path):
    assert Wire().judged(tmp_path, RULE).reason == "not-exercised"
