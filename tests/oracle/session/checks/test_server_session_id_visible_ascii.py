"""server-session-id-visible-ascii: a server's Mcp-Session-Id holds only visible ASCII."""

from tests.oracle.session.wire import Wire

RULE = "server-session-id-visible-ascii"


def test_a_visible_ascii_id_passes(tmp_path):
    wire = Wire()
    wire.initialize(assigns="3f2c9a8e-4b1d")
    assert wire.judged(tmp_path, RULE).status == "PASS"


def test_an_id_with_a_space_fails_naming_the_character(tmp_path):
    wire = Wire()
    wire.initialize(assigns="abc def")
    found = wire.judged(tmp_path, RULE)
    assert found.status == "FAIL" and "U+0020" in found.message and found.evidence[0].seq == 1


def test_no_id_assigned_is_not_exercised(tmp_path):
    wire = Wire()
    wire.initialize(assigns=None)
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
