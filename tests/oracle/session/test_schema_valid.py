"""The schema rule of either side: FAIL on a sure era, WARN on an inferred one, older eras named not validated."""

from backchannel.oracle.session.schema_valid import judged
from backchannel.recordings import load
from tests.factories import new_recording
from tests.oracle.session.wire import Wire


def _judged(tmp_path, wire: Wire, sender: str):
    path = new_recording(tmp_path / f"{sender}.sqlite", runs=[{"id": wire.run, "name": "live"}],
                         exchanges=wire.exchanges, messages=wire.messages)  # fmt: skip
    return judged(load(path), sender)


def test_each_side_is_judged_on_its_own_messages_only(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result={"content": "not a list"})
    assert _judged(tmp_path, wire, "client").status == "PASS"
    assert _judged(tmp_path, wire, "server").status == "FAIL"


def test_a_break_on_an_inferred_era_warns_and_says_so(tmp_path):
    wire = Wire()
    wire.initialize("2025-11-25", assigns=None)
    wire.legacy("tools/call", {"name": "t"}, result={"content": "x"}, version=None, session_id=None)
    found = _judged(tmp_path, wire, "server")
    assert found.status == "WARN" and "inferred" in found.message


def test_messages_of_an_era_without_a_schema_are_counted_not_judged(tmp_path):
    wire = Wire()
    wire.legacy("tools/list", result={"tools": []}, version="2024-11-05", session_id=None)
    found = _judged(tmp_path, wire, "client")
    assert found.status == "SKIP" and "1 of era 2024-11-05" in found.message
