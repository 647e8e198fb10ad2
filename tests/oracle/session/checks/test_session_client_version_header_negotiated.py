"""session-client-version-header-negotiated: after a 2025-06-18+ handshake, requests carry the agreed version."""

from tests.oracle.session.wire import Wire

RULE = "session-client-version-header-negotiated"


def test_the_agreed_version_on_every_request_passes(tmp_path):
    wire = Wire()
    wire.initialize("2025-06-18")
    wire.legacy("tools/list", result={"tools": []}, version="2025-06-18")
    assert wire.judged(tmp_path, RULE).status == "PASS"


def test_no_header_fails_where_the_session_id_ties_the_request(tmp_path):
    wire = Wire()
    wire.initialize("2025-11-25")
    wire.legacy("tools/list", result={"tools": []}, version=None)
    found = wire.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "no MCP-Protocol-Version" in found.message


def test_another_version_than_the_agreed_one_warns(tmp_path):
    wire = Wire()
    wire.initialize("2025-11-25")
    wire.legacy("tools/list", result={"tools": []}, version="2025-06-18")
    assert wire.judged(tmp_path, RULE).status == "WARN"


def test_no_header_with_only_an_inferred_tie_warns(tmp_path):
    wire = Wire()
    wire.initialize("2025-11-25", assigns=None)
    wire.legacy("tools/list", result={"tools": []}, version=None, session_id=None)
    assert wire.judged(tmp_path, RULE).status == "WARN"


def test_a_2026_session_is_not_in_the_rules_eras(tmp_path):
    wire = Wire()
    wire.call("tools/list", result={"tools": []})
    found = wire.judged(tmp_path, RULE)
    assert found.status == "SKIP" and found.reason == "not-in-era" and "spoke 2026-07-28" in found.message
