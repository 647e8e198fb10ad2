"""sep-2322-client-jsonrpc-id-different: a retry is a new request under its own id."""

from tests.oracle.session.wire import Wire, complete, input_required

RULE = "sep-2322-client-jsonrpc-id-different"


def _session(retry_id: object) -> Wire:
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=input_required(requestState="s"), rpc_id=7)
    wire.call("tools/call", {"name": "t", "requestState": "s"}, result=complete(), rpc_id=retry_id)
    return wire


def test_a_new_id_passes_and_the_same_id_fails(tmp_path):
    assert _session(8).judged(tmp_path, RULE).status == "PASS"
    found = _session(7).judged(tmp_path, RULE)
    assert found.status == "FAIL" and "reused id 7" in found.message


def test_a_round_never_retried_is_not_exercised(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=input_required(requestState="s"))
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
