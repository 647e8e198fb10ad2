"""A client under a real terminal: its size and TERM, snapshots when it waits and at exit, answers typed at prompts,
and the same guarantees as a piped run (timeout, nothing outlives it)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from backchannel.oracle.terminal import is_tty, raw_bytes, screens_in, terminal_text
from backchannel.proxy.run.lab import Lab, LabResult
from backchannel.proxy.run.tty import (
    MAX_SIDE,
    Answer,
    Snapshot,
    Terminal,
    TtyOptions,
    parse_answer,
    parse_tty_size,
)
from backchannel.recordings import load
from backchannel.recordings.model import Recording
from tests.factories import new_recording

URL = "http://127.0.0.1:1/r/x/mcp"
DEFAULT = TtyOptions()


def _run(
    code: str,
    tty: TtyOptions | None = DEFAULT,
    timeout: float = 20.0,
    stdin: bytes | None = None,
) -> tuple[LabResult, bytes, list[Snapshot], dict[str, bytes]]:
    lab = Lab("t")
    chunks: list[tuple[str, bytes]] = []
    shots: list[Snapshot] = []
    try:
        result = lab.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            lab.env(URL, tty=tty),
            lambda stream, data: chunks.append((stream, data)),
            timeout,
            stdin=stdin,
            tty=tty,
            on_snapshot=shots.append,
        )
    finally:
        lab.close()
    streams: dict[str, bytes] = {}
    for stream, data in chunks:
        streams[stream] = streams.get(stream, b"") + data
    return result, b"".join(d for _, d in chunks), shots, streams


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state != b"Z"


# ------------------------------------------------------------------------------------------------ parsers


def test_a_size_is_columns_x_rows():
    assert parse_tty_size("120x40") == (120, 40)
    assert parse_tty_size(" 80X24 ") == (80, 24)


@pytest.mark.parametrize(
    ("text", "said"),
    [("120", "give COLUMNSxROWS"), ("x40", "give COLUMNSxROWS"), ("0x40", "columns must be between 1"),
     (f"80x{MAX_SIDE + 1}", "rows must be between 1"), ("-1x2", "give COLUMNSxROWS")],
)  # fmt: skip
def test_a_bad_size_is_a_value_error_saying_what_to_give(text, said):
    with pytest.raises(ValueError, match=said):
        parse_tty_size(text)


def test_an_answer_is_a_regex_then_the_text_with_enter_and_escape_spelled_out():
    answer = parse_answer(r"Continue\? \[y/N\]=>y\n")
    assert answer == Answer(r"Continue\? \[y/N\]", "y\r")
    assert parse_answer(r"vim=>\e:q\n").text == "\x1b:q\r"
    assert parse_answer(r"a=>b\\n").text == "b\\n"
    assert parse_answer("a=>b=>c").text == "b=>c"  # the first => splits


@pytest.mark.parametrize(
    ("text", "said"),
    [("no arrow", "give REGEX=>TEXT"), ("=>y", "before => is empty"), ("(unclosed=>y", "'\\(unclosed'.*not a valid"),
     ("a*=>y", "matches an empty screen"), (r"a=>\q", r"unknown escape \\q")],
)  # fmt: skip
def test_a_bad_answer_is_a_value_error_naming_it(text, said):
    with pytest.raises(ValueError, match=said):
        parse_answer(text)


def test_a_terminal_of_a_silly_size_or_quiet_period_is_refused():
    with pytest.raises(ValueError, match="columns must be between"):
        TtyOptions(cols=0)
    with pytest.raises(ValueError, match="quiet period"):
        TtyOptions(quiet=0)


def test_the_env_names_a_real_terminal_only_under_a_tty():
    lab = Lab("t")
    try:
        assert lab.env(URL)["TERM"] == "dumb"
        assert lab.env(URL, tty=TtyOptions())["TERM"] == "xterm-256color"
    finally:
        lab.close()


# ------------------------------------------------------------------------------------------------ runs


@pytest.mark.live
def test_the_client_sees_a_terminal_of_the_size_asked_and_a_real_term():
    code = """
        import os, shutil, subprocess, sys
        print(sys.stdout.isatty(), sys.stdin.isatty(), os.environ['TERM'])
        print(subprocess.run(['stty', 'size'], capture_output=False).returncode)
        print('tput', subprocess.run(['tput', 'cols'], capture_output=True, text=True).stdout.strip())
        """
    result, raw, shots, streams = _run(code, TtyOptions(cols=120, rows=40))
    assert result.outcome == "exited" and result.exit_code == 0
    assert set(streams) == {"tty"}  # one stream: stdout and stderr are the same terminal
    lines = raw.decode().splitlines()
    assert lines[0] == "True True xterm-256color"
    assert lines[1] == "40 120"  # stty size: rows, then columns
    assert "tput 120" in lines
    assert shots[-1].reason == "exit" and (shots[-1].cols, shots[-1].rows) == (120, 40)


@pytest.mark.live
def test_a_prompt_is_snapshotted_while_the_client_waits_and_the_screen_again_at_exit():
    code = """
        import select, sys
        print('Welcome'); print('Name? ', end='', flush=True)
        ready, _, _ = select.select([sys.stdin], [], [], 3)
        print(); print('bye')
        """
    result, _, shots, _ = _run(code, TtyOptions(quiet=0.2))
    assert result.outcome == "exited"
    waiting = [s for s in shots if s.reason == "waiting"]
    assert waiting and waiting[0].lines[:2] == ("Welcome", "Name?")
    assert (waiting[0].cursor_row, waiting[0].cursor_col) == (1, 6)  # waiting after the prompt's space
    assert len(waiting) == 1  # one snapshot per quiet period, not one per tick
    assert shots[-1].reason == "exit" and shots[-1].lines[:4] == ("Welcome", "Name?", "bye", "")
    assert [s.seq for s in shots] == list(range(1, len(shots) + 1))


@pytest.mark.live
def test_an_answer_is_typed_when_its_regex_appears_and_recorded_with_the_screen_it_answered():
    code = """
        first = input('Name? ')
        second = input('Colour? ')
        print(f'got {first} and {second}')
        """
    options = TtyOptions(answers=(parse_answer(r"Name\? =>alice\n"), parse_answer(r"Colour\? =>blue\n")))
    result, raw, shots, _ = _run(code, options, timeout=10)
    assert result.outcome == "exited" and result.exit_code == 0, raw
    assert b"got alice and blue" in raw
    answered = [s for s in shots if s.reason == "answered"]
    assert [(s.answer_pattern, s.answer_text) for s in answered] == [(r"Name\? ", "alice\r"), (r"Colour\? ", "blue\r")]
    assert answered[0].lines[0] == "Name?"  # the screen it answered, before the text was typed
    assert answered[1].lines[:2] == ("Name? alice", "Colour?")


@pytest.mark.live
def test_the_same_prompt_is_answered_once_and_a_new_one_below_it_again():
    code = """
        for _ in range(2):
            print(input('Again? '))
        """
    options = TtyOptions(answers=(parse_answer(r"Again\? =>x\n"),), quiet=0.2)
    result, raw, shots, _ = _run(code, options, timeout=10)
    assert result.outcome == "exited", raw
    assert [s.reason for s in shots].count("answered") == 2
    assert raw.count(b"x\r\n") == 4  # each answer echoed, then printed back: no third one was typed


@pytest.mark.live
def test_a_client_that_never_prompts_has_only_its_exit_snapshot():
    result, raw, shots, _ = _run("print('\\n'.join(str(i) for i in range(200)))", TtyOptions(quiet=5))
    assert result.outcome == "exited" and result.exit_code == 0
    assert [s.reason for s in shots] == ["exit"]
    assert shots[0].lines[-2:] == ("199", "")  # the screen scrolled: its last rows are the last lines
    assert raw.count(b"\r\n") == 200


@pytest.mark.live
def test_stdin_is_typed_once_at_the_start_under_a_terminal():
    result, raw, _, _ = _run("print('read', input('? '))", stdin=b"typed\n", timeout=10)
    assert result.outcome == "exited", raw
    assert b"read typed" in raw


@pytest.mark.live
def test_the_timeout_kills_the_group_and_leaves_a_timeout_snapshot():
    code = """
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])
        print('child', child.pid, flush=True); time.sleep(60)
        """
    result, raw, shots, _ = _run(code, TtyOptions(quiet=0.2), timeout=1.5)
    assert result.outcome == "timeout" and result.exit_code is None
    assert result.seconds < 5, f"took {result.seconds:.1f} s"
    assert shots[-1].reason == "timeout"
    assert not _alive(int(raw.split()[1]))


@pytest.mark.live
def test_nothing_the_client_started_outlives_it_even_a_setsid_grandchild_holding_the_terminal():
    code = """
        import os, sys, time
        pid = os.fork()
        if pid == 0:
            os.setsid(); time.sleep(300); os._exit(0)
        print(pid, flush=True)
        """
    result, raw, shots, _ = _run(code, timeout=20)
    assert result.outcome == "exited" and result.exit_code == 0
    assert result.seconds < 5, f"took {result.seconds:.1f} s"
    assert not _alive(int(raw.split()[0]))
    assert shots[-1].reason == "exit"


@pytest.mark.live
def test_a_command_that_cannot_start_under_a_terminal_is_reported_not_raised():
    lab = Lab("t")
    try:
        result = lab.run(["/nonexistent/client"], lab.env(URL), lambda s, d: None, 5, tty=TtyOptions())
    finally:
        lab.close()
    assert result.outcome == "failed-to-start" and "/nonexistent/client" in result.detail


def _recorded(tmp_path: Path, name: str, code: str, tty: TtyOptions | None) -> Recording:
    """Run `code` in a lab and keep its output as a recording's terminal rows, as Capture.record_output does."""
    lab = Lab("t")
    rows: list[dict[str, object]] = []
    offsets: dict[str, int] = {}

    def keep(stream: str, data: bytes) -> None:
        rows.append({"run_id": "a", "stream": stream, "offset": offsets.get(stream, 0), "data": data})
        offsets[stream] = offsets.get(stream, 0) + len(data)

    shots: list[Snapshot] = []
    try:
        argv = [sys.executable, "-c", textwrap.dedent(code)]
        result = lab.run(argv, lab.env(URL, tty=tty), keep, 20, tty=tty, on_snapshot=shots.append)
    finally:
        lab.close()
    assert result.outcome == "exited"
    screens = [
        {"run_id": "a", "reason": s.reason, "cols": s.cols, "rows": s.rows, "cursor_row": s.cursor_row,
         "cursor_col": s.cursor_col, "text": s.text, "t": s.t}
        for s in shots
    ]  # fmt: skip
    return load(new_recording(tmp_path / f"{name}.sqlite", runs=[{"id": "a"}], terminal=rows, screens=screens))


@pytest.mark.live
def test_the_oracle_reads_the_same_terminal_text_from_a_piped_and_a_tty_run_of_one_script(tmp_path):
    code = """
        import sys
        ok = '\\x1b[32mok\\x1b[0m' if sys.stdout.isatty() else 'ok'  # colour only at a terminal, as CLIs do
        for i in range(30):
            print(f'line {i}: {ok}', flush=True)
        print('done', file=sys.stderr, flush=True)
        """
    piped = _recorded(tmp_path, "piped", code, None)
    tty = _recorded(tmp_path, "tty", code, TtyOptions())
    assert not is_tty(piped, "a") and is_tty(tty, "a")
    assert terminal_text(tty, "a") == terminal_text(piped, "a")
    assert terminal_text(piped, "a").startswith("line 0: ok\n") and terminal_text(piped, "a").endswith("done\n")
    assert [s.reason for s in tty.screens] == ["exit"]


def _terminal(*answers: str, cols: int = 40, rows: int = 5) -> Terminal:
    return Terminal(TtyOptions(cols=cols, rows=rows, answers=tuple(parse_answer(a) for a in answers)))


def test_a_matched_prompt_is_consumed_so_it_is_not_answered_again_but_a_new_one_is():
    term = _terminal(r"ok\? =>y\n")
    term.feed(b"ok? ")
    answer, row, col = term.match() or (None, 0, 0)
    assert answer is not None and (row, col) == (0, 4)
    term.consume(row, col)
    term.feed(b"y\r\n")
    assert term.match() is None  # the same prompt, still on screen
    term.feed(b"ok? ")
    assert term.match() is not None and term.match()[1:] == (1, 4)  # type: ignore[index]


def test_what_was_consumed_follows_the_screen_as_it_scrolls_and_a_full_clear_resets_it():
    term = _terminal(r"go\? =>y\n", rows=3)
    term.feed(b"go? ")
    found = term.match()
    assert found is not None
    term.consume(*found[1:])
    term.feed(b"y\r\n1\r\n2\r\n3\r\n")  # the prompt scrolled off the top
    assert term.match() is None
    term.feed(b"go? ")
    assert term.match() is not None
    term.consume(2, 4)
    term.feed(b"\x1b[2J\x1b[Hgo? ")  # cleared and drawn again at the top: a new prompt
    assert term.match() is not None


def test_the_earliest_match_on_screen_wins_and_ties_go_to_the_first_answer():
    term = _terminal(r"second=>2", r"first=>1", r"fir=>x")
    term.feed(b"first\r\nsecond")
    found = term.match()
    assert found is not None and found[0].text == "1"


@pytest.mark.live
def test_a_capture_records_a_tty_runs_raw_stream_and_every_snapshot_as_screens_rows(tmp_path):
    from backchannel.proxy.run.capture import Capture

    code = "import os; print(os.environ['TERM']); print('you said', input('Proceed? '))"
    options = TtyOptions(cols=100, rows=30, answers=(parse_answer(r"Proceed\? =>yes\n"),))
    with Capture(tmp_path / "rec.sqlite") as capture:
        run = capture.new_run("tty")
        result = capture.run_client(run, [sys.executable, "-c", code], timeout=20, tty=options)
    assert result.outcome == "exited" and result.exit_code == 0
    rec = load(tmp_path / "rec.sqlite")
    assert {c.stream for c in rec.terminal if c.run_id == run.id} == {"tty"}
    assert b"xterm-256color\r\nProceed? yes\r\nyou said yes" in raw_bytes(rec, run.id, "tty")
    shots = list(screens_in(rec, run.id))
    assert [s.reason for s in shots] == ["answered", "exit"]
    assert (shots[0].answer_pattern, shots[0].answer_text, shots[0].cols, shots[0].rows) == (
        r"Proceed\? ",
        "yes\r",
        100,
        30,
    )
    assert shots[-1].lines[:3] == ("xterm-256color", "Proceed? yes", "you said yes")
    assert terminal_text(rec, run.id).startswith("xterm-256color\nProceed? yes\nyou said yes\n")


@pytest.mark.live
def test_typing_more_than_a_client_that_never_reads_takes_never_blocks_past_the_timeout():
    result, _, shots, _ = _run("import time; time.sleep(60)", stdin=b"y" * 1_000_000, timeout=1.5)
    assert result.outcome == "timeout" and result.seconds < 5, f"took {result.seconds:.1f} s"
    assert shots[-1].reason == "timeout"


@pytest.mark.live
def test_a_client_that_closes_its_terminal_and_lives_on_is_awaited_to_the_timeout_like_a_piped_one():
    code = """
        import os, time
        print('detaching', flush=True)
        for fd in (0, 1, 2):
            os.close(fd)
        time.sleep(60)
        """
    result, raw, shots, _ = _run(code, timeout=1.5)
    assert b"detaching" in raw
    assert result.outcome == "timeout" and result.seconds < 5, f"took {result.seconds:.1f} s"
    assert shots[-1].reason == "timeout"


@pytest.mark.live
def test_a_client_printing_megabytes_keeps_every_byte_and_its_exit_screen_shows_the_last_lines():
    code = "for i in range(40000): print(f'line {i}: the quick brown fox jumps over the lazy dog')"
    result, raw, shots, _ = _run(code, timeout=60)
    assert result.outcome == "exited" and result.exit_code == 0
    assert raw.count(b"\r\n") == 40000  # the raw stream has it all; only the screen is rendered from its tail
    assert [s.reason for s in shots] == ["exit"]
    assert shots[0].lines[-2] == "line 39999: the quick brown fox jumps over the lazy dog"
    assert result.seconds < 20, f"took {result.seconds:.1f} s"


def test_sequences_pyte_cannot_apply_are_skipped_and_the_text_after_them_still_reaches_the_screen():
    term = _terminal(r"Name\? =>bob\n")
    term.feed(b"a\x1b[1;2Ab \x1b[?L\x1b[2;3C\x1b[5;1Pc\r\nName? ")
    assert term.match() is not None
    assert term.lines()[0].replace(" ", "") == "abc" and term.faults >= 3


@pytest.mark.live
def test_a_client_writing_sequences_pyte_cannot_apply_is_still_answered_under_a_terminal():
    code = """
        import sys
        sys.stdout.write("notice: \\x1b[1;2A moved \\x1b[?L\\n"); sys.stdout.flush()
        print("got", input("Name? "))
    """
    result, raw, shots, _ = _run(code, TtyOptions(answers=(parse_answer(r"Name\? =>bob\n"),)))
    assert result.outcome == "exited" and b"got bob" in raw
    assert [s.reason for s in shots][:1] == ["answered"]


@pytest.mark.live
def test_a_client_printing_megabytes_before_its_prompt_is_still_answered_without_rendering_every_byte():
    code = """
        import sys
        sys.stdout.write(("x" * 79 + "\\n") * 250_000); sys.stdout.flush()
        print("got", input("Name? "))
    """
    result, raw, shots, _ = _run(code, TtyOptions(answers=(parse_answer(r"Name\? =>bob\n"),)), timeout=60)
    assert result.outcome == "exited" and b"got bob" in raw[-200:]
    assert len(raw) > 20_000_000  # every byte recorded; the screen is matched when the output pauses
