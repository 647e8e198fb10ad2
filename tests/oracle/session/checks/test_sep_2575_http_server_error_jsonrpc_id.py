"""sep-2575-http-server-error-jsonrpc-id: an error carries its request's id."""

from tests.oracle.session.wire import Wire

RULE = "sep-2575-http-server-error-jsonrpc-id"
ERROR = {"code": -32602, "message": "bad params"}


def test_an_error_with_its_requests_id_passes_and_one_with_null_or_another_fails(tmp_path):
    good = Wire()
    good.call("tools/call", {"name": "t"}, error=ERROR, rpc_id=5)
    assert good.judged(tmp_path, RULE).status == "PASS"
    for said in (None, 6, "5"):
        bad = Wire()
        bad.call("tools/call", {"name": "t"}, error=ERROR, rpc_id=5, answer_id=said)
        found = bad.judged(tmp_path, RULE)
        assert found.status == "FAIL" and f"carried id {said!r}" in found.message


def test_no_error_at_all_is_not_exercised_rather_than_a_failure(tmp_path):
    wire = Wire()
    wire.call("tools/list", result={"resultType": "complete", "tools": []})
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
