"""Each message's era comes from the message, its session's handshake, or (inferred, and said so) the run's last."""

from backchannel.oracle.session import eras
from backchannel.oracle.session.facts import sessions
from backchannel.recordings import load
from tests.factories import new_recording
from tests.oracle.session.wire import Wire


def _sent(tmp_path, wire: Wire):
    path = new_recording(tmp_path / "s.sqlite", runs=[{"id": wire.run, "name": "live"}],
                         exchanges=wire.exchanges, messages=wire.messages)  # fmt: skip
    (session,) = sessions(load(path))
    return session


def test_a_modern_request_speaks_2026_and_its_answer_the_same(tmp_path):
    wire = Wire()
    wire.call("tools/list", result={"tools": []})
    request, answer = _sent(tmp_path, wire).sent
    assert (request.era, request.era_from) == ("2026-07-28", eras.OWN_META)
    assert answer.era == "2026-07-28" and answer.era_from.startswith(eras.ANSWERED) and answer.answers == "tools/list"


def test_a_handshake_decides_the_era_of_its_session_by_its_session_id(tmp_path):
    wire = Wire()
    wire.initialize("2025-06-18", assigns="s-1")
    wire.legacy("tools/list", result={"tools": []}, version=None, session_id="s-1")
    session = _sent(tmp_path, wire)
    assert session.sent[0].era_from == eras.AGREED
    assert (session.sent[2].era, session.sent[2].era_from) == ("2025-06-18", eras.SESSION)
    assert session.client[1].handshake is session.handshakes[0] and session.client[1].handshake_sure


def test_with_nothing_to_tie_it_the_runs_last_handshake_is_an_inference(tmp_path):
    wire = Wire()
    wire.initialize("2025-11-25", assigns=None)
    wire.legacy("tools/list", result={"tools": []}, version=None, session_id=None)
    later = _sent(tmp_path, wire).sent[2]
    assert later.era == "2025-11-25" and later.era_inferred


def test_a_request_with_no_handshake_or_header_has_no_era(tmp_path):
    wire = Wire()
    wire.legacy("tools/list", result={"tools": []}, version=None, session_id=None)
    first = _sent(tmp_path, wire).sent[0]
    assert first.era is None and first.era_from == eras.UNKNOWN
