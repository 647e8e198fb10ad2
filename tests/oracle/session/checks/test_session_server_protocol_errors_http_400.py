"""session-server-protocol-errors-http-400: -32020, -32021 and -32022 come with HTTP 400."""

from tests.oracle.session.wire import Wire

RULE = "session-server-protocol-errors-http-400"
MISSING = {"code": -32021, "message": "needs elicitation", "data": {"requiredCapabilities": ["elicitation"]}}


def test_a_missing_capability_error_under_400_passes(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, error=MISSING)
    wire.exchanges[-1]["status"] = 400
    assert wire.judged(tmp_path, RULE).status == "PASS"


def test_a_missing_capability_error_under_200_fails(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, error=MISSING)
    found = wire.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "came with HTTP 200" in found.message and found.evidence[0].seq == 2


def test_other_errors_are_not_exercised(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, error={"code": -32602, "message": "bad"})
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
