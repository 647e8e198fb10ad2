"""The one place the oracle reads terminal text: piped runs byte for byte, tty runs as plain text, screen evidence."""

from __future__ import annotations

from dataclasses import replace

from backchannel.oracle.detectors.carriers import carriers
from backchannel.oracle.harness import harness_problems
from backchannel.oracle.model import Evidence
from backchannel.oracle.terminal import (
    SCREEN,
    error_text,
    first_sighting,
    is_tty,
    plain,
    raw_bytes,
    screen_evidence,
    screen_text_until,
    stream_bytes,
    stream_names,
    streams,
    terminal_text,
)
from backchannel.recordings import load
from backchannel.recordings.model import ScreenSnapshot
from tests.factories import new_recording


def _chunk(run: str, stream: str, data: bytes, offset: int = 0) -> dict[str, object]:
    return {"run_id": run, "stream": stream, "offset": offset, "data": data}


def test_plain_text_drops_colours_cursor_moves_titles_and_turns_crlf_back_into_lf():
    raw = b"\x1b]0;title\x07\x1b[1;32mgreen\x1b[0m\r\n\x1b[2K\x1b[3Gmoved\x1b(B\r\nprogress\r50%\r\n\x1b[?2004h"
    assert plain(raw) == b"green\nmoved\nprogress\r50%\n"


def test_plain_text_drops_the_8_bit_csi_and_osc_a_utf8_terminal_receives():
    raw = "a\u009b2Kb\u009d0;title\u009cc\u009d2;t\u00e9\u00a9\u0007d".encode()
    assert plain(raw) == b"abcd"


def test_an_8_bit_osc_left_open_ends_at_the_line_so_later_lines_stay_readable():
    raw = "notice: \u009d0;cut title\r\nOpen this URL: https://example.com/x\r\n".encode()
    assert plain(raw) == b"notice: \nOpen this URL: https://example.com/x\n"


def test_plain_text_keeps_characters_whose_utf8_form_holds_the_byte_0x9b():
    text = "ěšč ␛[2K Ě[1A https://example.com/ě"  # ě is C4 9B, ␛ E2 90 9B: neither is a CSI
    assert plain(text.encode()) == text.encode()


def test_a_piped_run_reads_stdout_then_stderr_exactly_as_recorded(tmp_path):
    rec = load(
        new_recording(
            tmp_path / "r.sqlite",
            runs=[{"id": "a"}],
            terminal=[_chunk("a", "stdout", b"\x1b[1mout\r\n"), _chunk("a", "stderr", b"err\n")],
        )
    )
    assert [(s.name, s.data) for s in streams(rec, "a")] == [("stdout", b"\x1b[1mout\r\n"), ("stderr", b"err\n")]
    assert terminal_text(rec, "a") == "\x1b[1mout\r\nerr\n"  # piped bytes are never rewritten: verdicts stay
    assert [c.name for c in carriers(rec, "a")] == ["stdout", "stderr"]
    assert error_text(rec, "a") == ("stderr", b"err\n")


def test_a_tty_run_reads_one_stream_as_plain_text_and_evidence_offsets_point_into_it(tmp_path):
    rec = load(
        new_recording(
            tmp_path / "r.sqlite",
            runs=[{"id": "a"}],
            terminal=[_chunk("a", "tty", b"\x1b[31mhello\x1b[0m\r\n"), _chunk("a", "tty", b"world\r\n", 16)],
        )
    )
    assert [(s.name, s.data) for s in streams(rec, "a")] == [("tty", b"hello\nworld\n")]
    assert terminal_text(rec, "a") == "hello\nworld\n"
    assert stream_bytes(rec, "a", "tty").index(b"world") == 6
    assert [(c.name, c.data) for c in carriers(rec, "a")] == [("tty", b"hello\nworld\n")]
    assert error_text(rec, "a") == ("terminal", b"hello\nworld\n")


def test_a_streams_raw_bytes_are_its_chunks_by_offset_and_a_run_with_only_screens_is_a_tty_run(tmp_path):
    shot = {
        "run_id": "b",
        "reason": "exit",
        "rows": 1,
        "cols": 4,
        "cursor_row": 0,
        "cursor_col": 0,
        "text": "",
        "t": 1.0,
    }
    rec = load(
        new_recording(
            tmp_path / "r.sqlite",
            runs=[{"id": "a"}, {"id": "b"}],
            terminal=[_chunk("a", "tty", b"\x1b[1mdef", 3), _chunk("a", "tty", b"abc")],
            screens=[shot],
        )
    )
    assert raw_bytes(rec, "a", "tty") == b"abc\x1b[1mdef" and stream_bytes(rec, "a", "tty") == b"abcdef"
    assert stream_names(rec, "a") == stream_names(rec, "b") == ("tty",) and is_tty(rec, "b")
    assert stream_names(rec, "c") == ("stdout", "stderr") and raw_bytes(rec, "c", "stdout") == b""


def test_a_tty_client_that_failed_early_is_quoted_from_its_terminal(tmp_path):
    rec = load(
        new_recording(
            tmp_path / "r.sqlite",
            runs=[{"id": "a", "client_argv": ["c"], "started_at": 1.0}],
            terminal=[_chunk("a", "tty", b"\x1b[31mboom: no config\x1b[0m\r\n")],
        )
    )
    ended = replace(rec, runs=(replace(rec.runs[0], ended_at=2.0, outcome="exited", exit_code=2),))
    (problem,) = harness_problems(ended)
    assert problem.message.endswith("; its terminal begins: boom: no config")


def test_screen_evidence_names_the_snapshot_and_the_rows_and_columns_of_the_span():
    shot = ScreenSnapshot(seq=7, run_id="a", reason="exit", cols=80, rows=24, cursor_row=2, cursor_col=0,
                          text="first\nsay TOKEN here\n")  # fmt: skip
    evidence = screen_evidence(shot, shot.text.index("TOKEN"), 5, "TOKEN appears")
    assert evidence.as_dict() == {
        "kind": "screen", "run": "a", "seq": 7, "rows": [1, 2], "cols": [4, 9], "note": "TOKEN appears",
    }  # fmt: skip
    across = screen_evidence(shot, 0, len("first\nsay"))
    assert (across.rows, across.cols) == ((0, 2), (0, 80))


def test_evidence_of_the_existing_kinds_renders_as_it_always_did():
    evidence = Evidence(kind="terminal", run="a", stream="stdout", offset=3, length=2, note="n")
    assert evidence.as_dict() == {"kind": "terminal", "run": "a", "stream": "stdout", "offset": 3, "length": 2,
                                  "note": "n"}  # fmt: skip


def _screen(run: str, text: str, t: float, seq_rows: int = 3) -> dict[str, object]:
    return {
        "run_id": run,
        "reason": "waiting",
        "rows": seq_rows,
        "cols": 40,
        "cursor_row": 0,
        "cursor_col": 0,
        "text": text,
        "t": t,
    }


def test_a_text_a_full_screen_ui_never_wrote_whole_is_sighted_on_its_first_screen_showing_it(tmp_path):
    """Such a UI writes each word at a cursor position and no spaces: the stream reads `Openthedoor`."""
    rec = load(
        new_recording(
            tmp_path / "r.sqlite",
            runs=[{"id": "a"}],
            terminal=[_chunk("a", "tty", b"\x1b[1GOpen\x1b[6Gthe\x1b[10Gdoor")],
            screens=[_screen("a", "title", 1.0), _screen("a", "title\n  Open the door now", 2.0)],
        )
    )
    sighting = first_sighting(rec, "a", "Open the door")
    assert sighting is not None and sighting.stream == SCREEN and sighting.t == 2.0
    evidence = sighting.evidence("a", "shown")
    assert evidence.kind == "screen" and evidence.rows == (1, 2) and evidence.cols == (2, 15)
    assert screen_text_until(rec, "a", 1.5) == "title"


def test_a_text_the_stream_holds_is_sighted_there_not_on_a_screen(tmp_path):
    rec = load(
        new_recording(
            tmp_path / "r.sqlite",
            runs=[{"id": "a"}],
            terminal=[_chunk("a", "tty", b"Open the door\r\n")],
            screens=[_screen("a", "Open the door", 0.5)],
        )
    )
    sighting = first_sighting(rec, "a", "Open the door")
    assert sighting is not None and sighting.stream == "tty" and sighting.evidence("a", "").kind == "terminal"
