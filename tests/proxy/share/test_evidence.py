"""An evidence excerpt quotes what a finding cites: the message, the exchange's body, the terminal or file lines."""

from __future__ import annotations

import json

from backchannel.oracle.model import Evidence
from backchannel.proxy.share.evidence import MAX_LINES, excerpt
from backchannel.recordings import load
from tests.factories import answered_recording, new_recording

from .conftest import FLAWED, HOSTILE, RUN_ID

LINES = "\n".join(f"line {i}" for i in range(40)).encode()


def test_a_message_is_quoted_with_its_number_direction_and_method():
    rec = load(FLAWED)
    message = rec.messages[3]
    quoted = excerpt(rec, Evidence(kind="message", run=message.run_id, seq=message.seq, note="why"))
    assert quoted.label.startswith(f"message #{message.seq} of run `{message.run_id}`")
    assert quoted.label.endswith(": why") and quoted.body == message.text


def test_terminal_bytes_are_quoted_as_the_lines_that_hold_them_with_two_lines_before(hostile):
    rec = load(hostile)
    quoted = excerpt(rec, Evidence(kind="terminal", run=RUN_ID, stream="stdout", offset=0, length=5))
    assert quoted.found and quoted.body == HOSTILE.splitlines()[0]
    assert "bytes 0 to 5" in quoted.label


def test_a_long_excerpt_is_cut_and_says_so(hostile, tmp_path):
    path = new_recording(
        tmp_path / "long.sqlite",
        runs=[{"id": "r"}],
        terminal=[{"run_id": "r", "stream": "stderr", "offset": 0, "data": LINES}],
    )
    offset = LINES.index(b"line 20")
    quoted = excerpt(load(path), Evidence(kind="terminal", run="r", stream="stderr", offset=offset, length=4))
    assert quoted.body is not None and quoted.body.splitlines() == ["line 18", "line 19", "line 20"]
    whole = excerpt(load(path), Evidence(kind="terminal", run="r", stream="stderr"))
    assert whole.body is not None and len(whole.body.splitlines()) == MAX_LINES + 1 and whole.body.endswith("[…]")


def test_evidence_that_points_at_nothing_says_so(hostile):
    rec = load(hostile)
    for missing in (
        Evidence(kind="message", seq=404),
        Evidence(kind="exchange", seq=404),
        Evidence(kind="file", run=RUN_ID, path="nope"),
        Evidence(kind="terminal", run="nope", stream="stdout"),
    ):
        quoted = excerpt(rec, missing)
        assert not quoted.found and "is not in the recording" in quoted.label and "#" not in quoted.label


def test_screen_evidence_is_quoted_as_the_rendered_rows_it_cites_with_their_neighbours(tmp_path):
    rows = ["header", "Allow the server to open a page?", "[y/N] y", "done", "", "last"]
    screen = {
        "run_id": "r",
        "reason": "answered",
        "cols": 40,
        "rows": 6,
        "cursor_row": 2,
        "cursor_col": 7,
        "text": "\n".join(rows),
        "answer_pattern": r"\[y/N\]",
        "answer_text": "y\n",
    }
    rec = load(new_recording(tmp_path / "s.sqlite", runs=[{"id": "r"}], screens=[screen]))
    [snapshot] = rec.screens
    found = excerpt(rec, Evidence(kind="screen", run="r", seq=snapshot.seq, rows=(2, 3), cols=(0, 7)))
    assert found is not None
    assert "screen #" in str(found.label) and "(answered)" in str(found.label) and "rows 2–2" in str(found.label)
    assert (
        found.body is not None and found.body.splitlines() == rows[0:4]
    )  # two rows either side, trailing blank rows dropped


def test_terminal_evidence_naming_no_stream_quotes_the_stream_with_bytes_as_the_matrix_does(tmp_path):
    path = new_recording(
        tmp_path / "r.sqlite",
        runs=[{"id": "r"}],
        terminal=[{"run_id": "r", "stream": "stderr", "offset": 0, "data": b"boom\n"}],
    )
    quoted = excerpt(load(path), Evidence(kind="terminal", run="r"))
    assert quoted.found and quoted.body == "boom" and quoted.label.startswith("stderr of run `r`")


def test_model_evidence_is_quoted_as_the_lines_of_the_cited_segment_with_its_request(tmp_path):
    text = "one\ntwo\nthree BCKCH-BODY-x\nfour"
    body = json.dumps({"messages": [{"role": "user", "content": text}]}).encode()
    row = {"run_id": "r", "api": "anthropic-messages", "method": "POST", "path": "/v1/messages", "request_body": body}
    rec = load(new_recording(tmp_path / "m.sqlite", runs=[{"id": "r"}], model_exchanges=[row]))
    seq = rec.model_exchanges[0].seq
    offset = text.index("BCKCH")
    cited = Evidence(
        kind="model", run="r", seq=seq, path="$.messages[0].content", offset=offset, length=12, note="bare"
    )
    quoted = excerpt(rec, cited)
    assert quoted.found and quoted.body == text.rsplit("\n", 1)[0]
    assert quoted.label.startswith(f"model request #{seq} of run `r` (anthropic")
    assert quoted.label.endswith(f"bytes {offset} to {offset + 12}: bare")
    missing = excerpt(rec, Evidence(kind="model", run="r", seq=seq + 5))
    assert not missing.found


def test_an_answer_is_quoted_as_the_question_and_what_the_person_said_with_its_screenshot_linked_or_refused(tmp_path):
    rec = load(answered_recording(tmp_path / "answered.sqlite"))
    png, hostile, jpeg, bare = rec.attestations
    quoted = [
        excerpt(rec, Evidence(kind="attestation", run=a.run_id, seq=a.seq, note="said")) for a in rec.attestations
    ]
    assert quoted[0].label == f"answer #{png.seq} of run `a` (a person): said"
    assert quoted[2].body == "Question: About nothing-opened-before-consent?\nAnswer: not sure"
    assert quoted[0].picture == f"![the screenshot given with answer #{png.seq}](screenshots/answer-{png.seq}.png)"
    assert quoted[2].picture == f"![the screenshot given with answer #{jpeg.seq}](screenshots/answer-{jpeg.seq}.jpg)"
    assert quoted[1].picture == "The screenshot given with this answer is not included: its bytes are not a PNG image."
    assert quoted[3].picture is None and bare.screenshot is None and hostile.screenshot is not None
    missing = excerpt(rec, Evidence(kind="attestation", run="a", seq=99))
    assert not missing.found and "is not in the recording" in missing.label
