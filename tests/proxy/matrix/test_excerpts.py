"""Evidence cut out of a recording: the message it cites, the terminal bytes with their context, all neutralised."""

import json
from pathlib import Path

from backchannel.oracle import Evidence, judge
from backchannel.proxy.matrix.excerpts import WIRE_CHARS, Excerpter
from backchannel.recordings.reader import load
from tests.factories import answered_recording, new_recording
from tests.proxy.matrix.conftest import HOSTILE, REFERENCES, hostile_recording

FLAWED = REFERENCES / "mrtr-provenance-toy-flawed.sqlite"


def _probe_evidence() -> tuple[Excerpter, list[Evidence], str | None]:
    rec = load(FLAWED)
    result = next(r for r in judge(rec).results if r.id == "mrtr-provenance-input-requests")
    return Excerpter(rec), list(result.evidence), result.run


def test_a_cited_message_is_shown_with_its_direction_and_method_and_its_json_indented():
    excerpter, evidence, run = _probe_evidence()
    excerpt = excerpter.excerpt(next(e for e in evidence if e.kind == "message"), run)
    assert excerpt.label.startswith("message #14")
    assert excerpt.cited.startswith("to-client response tools/call\n{\n")
    assert '"resultType": "input_required"' in excerpt.cited


def test_cited_terminal_bytes_are_marked_apart_from_the_context_around_them():
    excerpter, evidence, run = _probe_evidence()
    excerpt = excerpter.excerpt(next(e for e in evidence if e.kind == "terminal"), run)
    assert excerpt.cited.startswith("BCKCH-BODY-") and len(excerpt.cited) == 23
    assert excerpt.before.endswith("Reference ") and excerpt.after.startswith(". WRITE-MARKER")


def test_a_cited_lab_file_is_shown_from_its_start_when_no_offset_is_given():
    excerpter, evidence, run = _probe_evidence()
    marker = next(e for e in evidence if e.kind == "file" and e.offset is None)
    assert excerpter.excerpt(marker, run).cited.startswith("BCKCH-EXEC-")


def test_control_escape_and_bidi_characters_from_the_recording_are_made_visible(tmp_path: Path):
    excerpter = Excerpter(hostile_recording(tmp_path / "h.sqlite"))
    shown = [
        excerpter.excerpt(Evidence(kind="message", seq=2), "r1"),
        excerpter.excerpt(Evidence(kind="terminal", run="r1", stream="stdout", offset=6, length=len(HOSTILE)), None),
    ]
    for excerpt in shown:
        text = excerpt.before + excerpt.cited + excerpt.after
        assert "\x1b" not in text and "\u202e" not in text and "\u2066" not in text
        assert "\\x1b[2J" in text and "\\u202e" in text


def test_evidence_naming_what_the_recording_lacks_says_so_instead_of_failing(tmp_path: Path):
    excerpter = Excerpter(load(new_recording(tmp_path / "empty.sqlite")))
    assert excerpter.excerpt(Evidence(kind="message", seq=99), None).cited == "(#99 is not in the recording)"
    assert excerpter.excerpt(Evidence(kind="terminal", stream="stdout", offset=0, length=4), None).empty
    assert excerpter.excerpt(Evidence(kind="run", run="r9"), None).label == "run r9"


def test_a_huge_message_is_cut_to_a_readable_size(tmp_path: Path):
    text = '"' + "a" * (WIRE_CHARS * 3) + '"'
    path = new_recording(tmp_path / "big.sqlite", messages=[{"direction": "to-client", "kind": "x", "text": text}])
    cited = Excerpter(load(path)).excerpt(Evidence(kind="message", seq=1), None).cited
    assert len(cited) < WIRE_CHARS + 100 and cited.endswith("more characters)")


def test_a_secret_the_recorder_missed_is_redacted_in_the_published_excerpt(tmp_path):
    secret = {"password": "hunter2hunter2", "api_key": "sk-abcdefghijklmnopqrstuv"}
    path = new_recording(
        tmp_path / "leaky.sqlite",
        runs=[{"id": "r1"}],
        messages=[{"run_id": "r1", "direction": "to-server", "kind": "request", "method": "tools/call",
                   "text": json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": secret})}],
    )  # fmt: skip
    rec = load(path)
    excerpt = Excerpter(rec).excerpt(Evidence(kind="message", run="r1", seq=rec.messages[0].seq), "r1")
    assert "hunter2hunter2" not in excerpt.cited and "sk-abcdefghijklmnopqrstuv" not in excerpt.cited
    assert "[redacted]" in excerpt.cited


def test_cited_model_context_text_is_the_segment_with_the_marker_apart_and_an_unread_request_cites_nothing(tmp_path):
    text = "The server needs: BCKCH-BODY-x then more"
    body = json.dumps({"messages": [{"role": "user", "content": text}]}).encode()
    row = {"run_id": "r", "api": "anthropic-messages", "method": "POST", "path": "/v1/messages"}
    rows = [{**row, "request_body": body}, {**row, "request_body": b"junk"}]
    rec = load(new_recording(tmp_path / "m.sqlite", runs=[{"id": "r"}], model_exchanges=rows))
    read, unread = (x.seq for x in rec.model_exchanges)
    at = text.index("BCKCH")
    cited = Evidence(kind="model", run="r", seq=read, path="$.messages[0].content", offset=at, length=12, note="bare")
    shown = Excerpter(rec).excerpt(cited, None)
    assert (shown.before, shown.cited, shown.after) == ("The server needs: ", "BCKCH-BODY-x", " then more")
    assert shown.label.startswith(f"model request #{read} @ byte {at}, 12 bytes (run r)")
    assert Excerpter(rec).excerpt(Evidence(kind="model", run="r", seq=unread, note="unread"), None).empty


def test_a_persons_answer_is_shown_as_what_they_were_asked_and_said_with_its_screenshot_checked(tmp_path: Path):
    rec = load(answered_recording(tmp_path / "answered.sqlite"))
    png, hostile, jpeg, bare = rec.attestations
    excerpter = Excerpter(rec)
    shown = [excerpter.excerpt(Evidence(kind="attestation", run=a.run_id, seq=a.seq), None) for a in rec.attestations]
    assert shown[0].label == f"answer #{png.seq} (run a)"
    assert (shown[0].question, shown[0].answer, shown[0].who) == ("About names-requesting-server?", "no", "person")
    assert shown[2].answer == "not sure" and not shown[0].empty
    assert shown[0].screenshot is not None and shown[0].screenshot.file_name == f"answer-{png.seq}.png"
    assert shown[2].screenshot is not None and shown[2].screenshot.file_name == f"answer-{jpeg.seq}.jpg"
    assert shown[1].screenshot is not None and shown[1].screenshot.file_name is None and hostile.screenshot
    assert shown[3].screenshot is None and bare.screenshot is None
    assert excerpter.excerpt(Evidence(kind="attestation", run="a", seq=99), None).empty
