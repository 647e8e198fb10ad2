"""session-client-sends-session-id: after the server assigns a session id, the client sends it on every request."""

from tests.oracle.session.wire import Wire

RULE = "session-client-sends-session-id"


def test_a_client_that_sends_the_assigned_id_passes(tmp_path):
    wire = Wire()
    wire.initialize(assigns="abc")
    wire.legacy("tools/list", result={"tools": []}, session_id="abc")
    assert wire.judged(tmp_path, RULE).status == "PASS"


def test_a_request_without_the_id_fails(tmp_path):
    wire = Wire()
    wire.initialize(assigns="abc")
    wire.legacy("tools/list", result={"tools": []}, session_id=None)
    found = wire.judged(tmp_path, RULE)
    assert found.status == "FAIL" and found.evidence[0].seq == 3 and found.evidence[1].seq == 1


def test_with_several_handshakes_in_the_run_a_bare_request_only_warns(tmp_path):
    wire = Wire()
    wire.initialize(assigns="abc")
    wire.initialize(assigns="def")
    wire.legacy("tools/list", result={"tools": []}, session_id=None)
    assert wire.judged(tmp_path, RULE).status == "WARN"


def test_a_server_that_assigns_no_session_leaves_it_not_exercised(tmp_path):
    wire = Wire()
    wire.initialize(assigns=None)
    wire.legacy("tools/list", result={"tools": []}, session_id=None)
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
