"""session-server-requests-declared-capability: a 2025-era server asks only for what the handshake declared."""

from tests.oracle.session.wire import Wire

RULE = "session-server-requests-declared-capability"
FORM = {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}


def test_an_elicitation_the_client_declared_passes(tmp_path):
    wire = Wire()
    wire.initialize("2025-11-25", {"elicitation": {}})
    wire.legacy("tools/call", {"name": "t"})
    wire.server_request("elicitation/create", FORM, 70)
    assert wire.judged(tmp_path, RULE).status == "PASS"


def test_sampling_the_client_never_declared_fails_citing_the_handshake(tmp_path):
    wire = Wire()
    wire.initialize("2025-11-25", {"elicitation": {}})
    wire.legacy("tools/call", {"name": "t"})
    wire.server_request("sampling/createMessage", {"messages": [], "maxTokens": 5}, 71)
    found = wire.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "sampling was not declared" in found.message
    assert found.evidence[1].seq == 1


def test_url_mode_needs_url_declared(tmp_path):
    wire = Wire()
    wire.initialize("2025-11-25", {"elicitation": {"form": {}}})
    wire.legacy("tools/call", {"name": "t"})
    wire.server_request(
        "elicitation/create", {"mode": "url", "message": "m", "url": "https://x.test", "elicitationId": "e"}, 72
    )
    assert "mode 'url' was not declared" in wire.judged(tmp_path, RULE).message


def test_with_no_session_id_to_tie_them_a_break_only_warns(tmp_path):
    wire = Wire()
    wire.initialize("2025-06-18", {}, assigns=None)
    wire.legacy("tools/call", {"name": "t"}, session_id=None, version="2025-06-18")
    wire.server_request("roots/list", {}, 73)
    found = wire.judged(tmp_path, RULE)
    assert found.status == "WARN" and "inferred" in found.evidence[1].note


def test_a_session_with_no_server_requests_is_not_exercised(tmp_path):
    wire = Wire()
    wire.initialize()
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
