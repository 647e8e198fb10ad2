"""session-client-wire-schema-valid: every message a client sends is valid against its era's official schema."""

from tests.oracle.session.wire import Wire, complete

RULE = "session-client-wire-schema-valid"


def test_valid_requests_in_both_eras_pass(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t", "arguments": {}}, result=complete())
    wire.initialize("2025-06-18", {"roots": {}})
    wire.legacy("tools/list", result={"tools": []}, version="2025-06-18")
    found = wire.judged(tmp_path, RULE)
    assert found.status == "PASS", found.message
    assert "3 message(s)" in found.message


def test_a_2026_request_whose_meta_lacks_client_capabilities_fails_citing_the_schema(tmp_path):
    wire = Wire()
    wire.call("tools/list", meta={"io.modelcontextprotocol/protocolVersion": "2026-07-28"}, result={"tools": []})
    found = wire.judged(tmp_path, RULE)
    assert found.status == "FAIL"
    assert found.evidence[0].seq == 1 and "clientCapabilities" in found.evidence[0].note


def test_a_2025_initialize_without_client_info_fails_against_its_own_era(tmp_path):
    wire = Wire()
    wire.legacy(
        "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}},
        result={"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}},
        version=None, session_id=None,
    )  # fmt: skip
    found = wire.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "clientInfo" in found.message
    assert "2025-11-25 schema (era from the version its initialize answer agreed)" in found.evidence[0].note


def test_an_answer_to_a_server_request_is_judged_as_the_result_of_that_request(tmp_path):
    wire = Wire()
    wire.initialize("2025-06-18", {"elicitation": {}})
    wire.legacy("tools/call", {"name": "t"}, version="2025-06-18")
    wire.server_request(
        "elicitation/create", {"message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}, 90
    )
    wire.client_response(90, {"action": "maybe"})
    found = wire.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "ElicitResult, answering elicitation/create" in found.message


def test_a_message_whose_era_is_only_the_runs_last_handshake_warns(tmp_path):
    wire = Wire()
    wire.initialize("2025-06-18", assigns=None)
    wire.legacy("tools/call", {"name": 5}, version=None, session_id=None)  # a name must be a string
    found = wire.judged(tmp_path, RULE)
    assert found.status == "WARN" and "inferred" in found.message


def test_a_client_of_an_era_with_no_shipped_schema_is_not_in_any_checks_eras(tmp_path):
    wire = Wire()
    wire.legacy("tools/list", result={"tools": []}, version="2025-03-26", session_id=None)
    found = wire.judged(tmp_path, RULE)  # no check states an era older than 2025-06-18: SKIP naming it
    assert found.status == "SKIP" and found.reason == "not-in-era" and "spoke 2025-03-26" in found.message
