"""A piped client answered at its prompts (`--answer --no-tty`): answers written only once their prompt was read."""

import sys
import time

import pytest

from backchannel.oracle.terminal import is_tty, screens_in
from backchannel.proxy.run.lab import Lab
from backchannel.proxy.run.tty import Snapshot, TtyOptions, parse_answer
from backchannel.recordings.reader import load

# asks twice (on stdout, then on stderr), each time after printing what the answer is about; says what it read
ASKING = (
    "import sys\n"
    "print('URL: https://example.com/x', flush=True)\n"
    "sys.stdout.write('Open it? [y/n]: '); sys.stdout.flush()\n"
    "first = sys.stdin.readline()\n"
    "print('got', repr(first), flush=True)\n"
    "sys.stderr.write('Name? '); sys.stderr.flush()\n"
    "print('name', repr(sys.stdin.readline()), flush=True)\n"
)


def _piped(*answers: str, cols: int = 120, rows: int = 40) -> TtyOptions:
    return TtyOptions(cols=cols, rows=rows, answers=tuple(parse_answer(a) for a in answers), piped=True)


def _run(code: str, options: TtyOptions, *, stdin: bytes | None = None, timeout: float = 20.0):
    lab = Lab("p")
    chunks: list[tuple[str, bytes]] = []
    shots: list[Snapshot] = []
    try:
        env = lab.env("http://127.0.0.1:1/r/x/mcp", tty=options)
        result = lab.run(
            [sys.executable, "-c", code],
            env,
            lambda stream, data: chunks.append((stream, data)),
            timeout,
            stdin=stdin,
            tty=options,
            on_snapshot=shots.append,
        )
    finally:
        lab.close()
    return result, chunks, shots


def _out(chunks: list[tuple[str, bytes]], stream: str = "stdout") -> str:
    return b"".join(data for name, data in chunks if name == stream).decode()


def test_each_answer_is_written_once_its_prompt_was_read_and_enter_is_a_line_feed_on_a_pipe():
    result, chunks, shots = _run(ASKING, _piped(r"Open it\? \[y/n\]: =>y\n", r"Name\? =>ada\n"))
    assert result.outcome == "exited" and result.exit_code == 0
    assert "got 'y\\n'" in _out(chunks)
    assert "name 'ada\\n'" in _out(chunks)
    assert {name for name, _ in chunks} == {"stdout", "stderr"}  # piped: never one `tty` stream


def test_the_screen_each_answer_answered_is_an_answered_snapshot_with_lines_starting_at_the_left():
    _, _, shots = _run(ASKING, _piped(r"Open it\? \[y/n\]: =>y\n", r"Name\? =>ada\n", cols=60, rows=10))
    assert [s.reason for s in shots] == ["answered", "answered"]
    first = shots[0]
    assert (first.answer_pattern, first.answer_text, first.cols, first.rows) == (r"Open it\? \[y/n\]: ", "y\r", 60, 10)
    assert first.lines[:2] == ("URL: https://example.com/x", "Open it? [y/n]:")  # a line feed starts a new line
    assert "Name?" in shots[1].text  # stderr is on the same screen, in the order read


def test_a_prompt_is_answered_once_even_when_more_output_follows_on_the_same_screen():
    code = (
        "import sys\n"
        "sys.stdout.write('Go? '); sys.stdout.flush()\n"
        "print(repr(sys.stdin.readline()), flush=True)\n"
        "print('done', flush=True)\n"
        "sys.stdout.write('Go? '); sys.stdout.flush()\n"
        "print(repr(sys.stdin.readline()), flush=True)\n"
    )
    result, chunks, shots = _run(code, _piped(r"Go\? =>y\n"))
    assert result.exit_code == 0
    assert _out(chunks).count("'y\\n'") == 2  # the second prompt is new, so it is answered too
    assert len(shots) == 2


def test_stdin_is_written_first_and_then_stays_open_as_a_terminals_would():
    code = (
        "import sys, select\n"
        "print('first', repr(sys.stdin.readline()), flush=True)\n"
        "ready, _, _ = select.select([sys.stdin], [], [], 0.3)\n"
        "print('end of input' if ready and not sys.stdin.readline() else 'still open', flush=True)\n"
    )
    result, chunks, shots = _run(code, _piped(r"never shown=>x\n"), stdin=b"hello\n")
    assert result.exit_code == 0
    assert "first 'hello\\n'" in _out(chunks) and "still open" in _out(chunks)
    assert shots == []


def test_a_prompt_nothing_answers_waits_until_the_timeout_and_the_run_says_so():
    began = time.monotonic()
    result, chunks, shots = _run(
        "import sys; sys.stdout.write('Sure? '); sys.stdout.flush(); sys.stdin.readline()",
        _piped(r"Continue\?=>y\n"),
        timeout=1.5,
    )
    assert result.outcome == "timeout" and shots == []
    assert time.monotonic() - began < 10


def test_a_client_that_never_reads_its_stdin_is_neither_blocked_nor_blocking():
    code = "import sys\nfor i in range(2000): print('Go? ', i, flush=True)\nprint('finished', flush=True)\n"
    began = time.monotonic()
    result, chunks, shots = _run(code, _piped(r"Go\? =>" + "y" * 4000 + r"\n"), timeout=30)
    assert result.exit_code == 0 and "finished" in _out(chunks)
    assert 0 < len(shots) <= 256  # MAX_SNAPSHOTS
    assert time.monotonic() - began < 20


def test_the_lab_env_of_a_piped_answered_run_names_no_real_terminal():
    lab = Lab("p")
    try:
        assert lab.env("u", tty=_piped(r"x=>y"))["TERM"] == "dumb"
        assert lab.env("u", tty=TtyOptions())["TERM"] == "xterm-256color"
    finally:
        lab.close()


@pytest.mark.live
def test_a_capture_keeps_a_piped_runs_streams_and_answered_screens_and_reads_it_as_piped(tmp_path):
    from backchannel.proxy.run.capture import Capture

    with Capture(tmp_path / "rec.sqlite") as capture:
        run = capture.new_run("piped")
        result = capture.run_client(
            run,
            [sys.executable, "-c", ASKING],
            timeout=20,
            tty=_piped(r"Open it\? \[y/n\]: =>y\n", r"Name\? =>ada\n"),
        )
    assert result.exit_code == 0
    rec = load(tmp_path / "rec.sqlite")
    assert {c.stream for c in rec.terminal if c.run_id == run.id} == {"stdout", "stderr"}
    assert [s.reason for s in screens_in(rec, run.id)] == ["answered", "answered"]
    assert not is_tty(rec, run.id)
    shown = next(c for c in rec.terminal if c.run_id == run.id and b"URL:" in c.data)
    answered = next(iter(screens_in(rec, run.id)))
    assert shown.t is not None and answered.t is not None and shown.t <= answered.t


def test_no_tty_with_answers_answers_on_pipes_and_alone_changes_nothing():
    from backchannel.proxy.cli_options import tty_options

    piped = tty_options(False, None, [r"Go\?=>y\n"])
    assert piped is not None and piped.piped and [a.pattern for a in piped.answers] == [r"Go\?"]
    assert tty_options(False, None, None) is None
    assert tty_options(None, None, [r"Go\?=>y\n"]) == TtyOptions(answers=(parse_answer(r"Go\?=>y\n"),))  # as before
    with pytest.raises(ValueError, match="--no-tty"):
        tty_options(False, "80x24", None)


def test_a_control_sequence_pyte_cannot_apply_loses_neither_output_nor_the_prompt_after_it():
    code = (
        "import sys\n"
        "sys.stdout.write('notice: \\x1b[1;2A moved \\x1b[?L \\x1b[5;1P\\n'); sys.stdout.flush()\n"
        "for i in range(3000): print('line', i, 'x' * 60)\n"
        "sys.stdout.write('Name? '); sys.stdout.flush()\n"
        "print('got', sys.stdin.readline().strip(), flush=True)\n"
    )
    result, chunks, shots = _run(code, _piped(r"Name\? =>bob\n"))
    assert result.outcome == "exited" and "got bob" in _out(chunks)
    assert _out(chunks).count("\n") == 3002  # every line recorded


def test_two_prompts_read_at_once_are_both_answered_in_order_though_a_pipe_echoes_nothing():
    code = (
        "import sys\n"
        "sys.stdout.write('Name?\\nColour? '); sys.stdout.flush()\n"
        "a = sys.stdin.readline(); b = sys.stdin.readline(); print('got', a.strip(), b.strip(), flush=True)\n"
    )
    # a row above the cursor is matched right-stripped (as under --tty): `Name\?`, not `Name\? `
    result, chunks, shots = _run(code, _piped(r"Name\?=>bob\n", r"Colour\? =>red\n"))
    assert result.outcome == "exited" and "got bob red" in _out(chunks)
    assert [s.answer_text for s in shots] == ["bob\r", "red\r"]


def test_a_terminal_reset_keeps_line_feeds_starting_new_lines_on_the_virtual_screen():
    code = (
        "import sys\n"
        "sys.stdout.write('\\x1bcbanner\\nContinue? '); sys.stdout.flush()\n"
        "print('got', sys.stdin.readline().strip(), flush=True)\n"
    )
    result, chunks, shots = _run(code, _piped(r"^Continue\? =>y\n"))
    assert result.outcome == "exited" and "got y" in _out(chunks)
    assert shots[0].lines[:2] == ("banner", "Continue?")


def test_a_client_printing_megabytes_before_its_prompt_is_read_as_fast_as_piped_and_still_answered():
    code = (
        "import sys\n"
        "line = 'x' * 79 + '\\n'\n"
        "sys.stdout.write(line * 250_000); sys.stdout.flush()\n"  # 20 MB
        "sys.stdout.write('Name? '); sys.stdout.flush()\n"
        "print('got', sys.stdin.readline().strip(), flush=True)\n"
    )
    began = time.monotonic()
    result, chunks, shots = _run(code, _piped(r"Name\? =>bob\n"), timeout=60)
    assert result.outcome == "exited" and _out(chunks).endswith("got bob\n")
    assert time.monotonic() - began < 15  # rendering 20 MB at pyte's 4 µs a byte would take 80 s


def test_closing_returns_promptly_even_when_something_else_holds_the_clients_stdin_and_never_reads(tmp_path):
    import os
    import threading

    from backchannel.proxy.run.prompts import PipedPrompts

    read_end, write_end = os.pipe()  # nobody reads read_end: the pipe fills and stays full
    prompts = PipedPrompts(_piped(r"Name\? =>" + "x" * 300_000 + r"\n"), os.fdopen(write_end, "wb"))
    prompts.output(b"Name? ")
    began = time.monotonic()
    prompts.close()
    assert time.monotonic() - began < 2
    assert not [t for t in threading.enumerate() if t.name == "piped-answers"]
    os.close(read_end)
