"""A client under a real terminal: its size and TERM, snapshots when it waits and at exit, answers typed at prompts,
and the same guarantees as a piped run (timeout, nothing outlives it)."""

from __future__ import annotations

import sys
import textwrap
import threading
import time
from collections.abc import Callable, Sequence
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
from backchannel.proxy.run.ui_steps import Gate, UiStep
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
    steps: Sequence[UiStep] = (),
    seen: Callable[[bytes, Snapshot | None], None] | None = None,
) -> tuple[LabResult, bytes, list[Snapshot], dict[str, bytes]]:
    """Run `code` in a lab; `seen(output so far, snapshot or None)` is told of every chunk and snapshot as it comes."""
    lab = Lab("t")
    chunks: list[tuple[str, bytes]] = []
    shots: list[Snapshot] = []
    so_far = bytearray()

    def output(stream: str, data: bytes) -> None:
        chunks.append((stream, data))
        if seen is not None:
            so_far.extend(data)
            seen(bytes(so_far), None)

    def shot(snapshot: Snapshot) -> None:
        shots.append(snapshot)
        if seen is not None:
            seen(bytes(so_far), snapshot)

    try:
        result = lab.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            lab.env(URL, tty=tty),
            output,
            timeout,
            stdin=stdin,
            tty=tty,
            on_snapshot=shot,
            steps=steps,
        )
    finally:
        lab.close()
    parts: dict[str, list[bytes]] = {}
    for stream, data in chunks:
        parts.setdefault(stream, []).append(data)  # joined once: adding 20 MB chunk by chunk is quadratic
    streams = {stream: b"".join(pieces) for stream, pieces in parts.items()}
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


def test_the_screens_backlog_keeps_only_the_last_bytes_and_says_how_many_it_dropped():
    from backchannel.proxy.run.tty import keep_last

    buffer = bytearray(b"abc")
    assert keep_last(buffer, b"def", limit=4) == 2 and buffer == b"cdef"
    assert keep_last(buffer, b"", limit=4) == 0 and buffer == b"cdef"


# ------------------------------------------------------------------------------------------------ keystroke groups

WAIT = 10.0  # seconds an event of a run is awaited at most (each run below takes about a second)

# A terminal UI's read loop: raw mode (every key as it comes), the text echoed, "\r" a line's end.
RAW_READS = r"""
    import os, tty
    tty.setraw(0)
    os.write(1, b"Name? ")
    reads = []
    while True:
        chunk = os.read(0, 1024)
        if not chunk:
            break
        reads.append(chunk)
        os.write(1, chunk.replace(b"\r", b"\r\n"))
        if b"\r" in chunk:
            break
    os.write(1, b"READS " + repr(reads).encode() + b"\r\n")
"""


@pytest.mark.live
def test_an_answer_ending_in_enter_reaches_a_raw_mode_client_as_its_text_then_enter_alone():
    options = TtyOptions(answers=(parse_answer(r"Name\? =>alice\n"),), quiet=0.2)
    result, raw, shots, _ = _run(RAW_READS, options, timeout=WAIT)
    assert result.outcome == "exited" and result.exit_code == 0, raw
    assert b"READS [b'alice', b'\\r']" in raw  # two reads: a UI reading a burst as a paste still gets "send"
    answered = [s for s in shots if s.reason == "answered"]
    assert [(s.answer_text, s.lines[0]) for s in answered] == [("alice\r", "Name?")]


# A prompt loop: "> " waits for a line; "/exit" ends it, anything else is echoed back as "got ...". SLOW: a banner
# shown that many seconds before the input box; IGNORE_EXIT: "/exit" is a line like another.
PROMPT_LOOP = r"""
    import os, select, time, tty
    tty.setraw(0)
    os.write(1, str(os.getpid()).encode() + b"\r\n")
    if SLOW:
        os.write(1, b"starting\r\n")
        time.sleep(SLOW)
        if select.select([0], [], [], 0)[0]:
            os.write(1, b"EARLY: keys typed before the input box was drawn\r\n")
    os.write(1, b"> ")
    line = b""
    while chunk := os.read(0, 1024):
        os.write(1, chunk.replace(b"\r", b""))
        line += chunk
        while b"\r" in line:
            typed, line = line.split(b"\r", 1)
            if typed == b"/exit" and not IGNORE_EXIT:
                os.write(1, b"\r\nbye\r\n")
                raise SystemExit(0)
            os.write(1, b"\r\ngot " + typed + b"\r\n> ")
"""


def _prompt_loop(slow: float = 0.0, ignore_exit: bool = False) -> str:
    return f"SLOW, IGNORE_EXIT = {slow!r}, {ignore_exit!r}\n{textwrap.dedent(PROMPT_LOOP)}"


READY = r"^> $"  # the empty input box (the cursor's row keeps its space up to the cursor)


def _opener(event: threading.Event, gate: Gate, opened: dict[str, float]) -> threading.Thread:
    """A thread that opens `gate` once `event` is set (as a run's server or model stand-in does from its own)."""

    def run() -> None:
        if event.wait(WAIT):
            opened[gate.name] = time.time()
            gate.open()

    thread = threading.Thread(target=run, name=f"open-{gate.name}")
    thread.start()
    return thread


@pytest.mark.live
def test_a_gated_task_is_typed_only_once_its_gate_opens_and_the_exit_step_ends_a_client_that_exits_on_its_keys():
    listed, done = Gate("tools-listed"), Gate("model-done")
    prompt_waits, task_answered = threading.Event(), threading.Event()
    opened: dict[str, float] = {}

    def seen(output: bytes, shot: Snapshot | None) -> None:
        if shot is not None and shot.reason == "waiting" and shot.lines[1:2] == (">",):
            prompt_waits.set()  # the client shows its prompt, quiet: the gate opens only now
        if b"got hello" in output:
            task_answered.set()

    steps = (
        UiStep("task", ("hello", "\r"), READY, listed),
        UiStep("exit", ("/exit", "\r"), READY, done, ends=True),
    )
    openers = [_opener(prompt_waits, listed, opened), _opener(task_answered, done, opened)]
    try:
        result, raw, shots, _ = _run(_prompt_loop(), TtyOptions(quiet=0.2), timeout=WAIT, steps=steps, seen=seen)
    finally:
        prompt_waits.set()
        task_answered.set()  # a failed run still lets each opener return
        for thread in openers:
            thread.join(WAIT)
        listed.close()
        done.close()
    assert result.outcome == "exited" and result.exit_code == 0, raw
    assert "exit keys" in result.detail
    assert raw.count(b"got ") == 1 and b"got hello" in raw and b"bye" in raw
    reasons = [s.reason for s in shots]
    assert "answered" not in reasons and reasons.count("typed") == 2 and reasons[-1] == "exit"
    task, exit_step = (s for s in shots if s.reason == "typed")
    assert (task.answer_pattern, task.answer_text) == (READY, "hello\r")
    assert (exit_step.answer_pattern, exit_step.answer_text) == (READY, "/exit\r")
    first_wait = next(s for s in shots if s.reason == "waiting")
    assert first_wait.seq < task.seq and first_wait.lines[1] == ">"  # it waited at its prompt, nothing typed
    assert task.t >= opened["tools-listed"] and task.lines[1] == ">"
    assert exit_step.t >= opened["model-done"] and exit_step.lines[1:4] == ("> hello", "got hello", ">")


@pytest.mark.live
def test_a_task_step_whose_gate_is_open_waits_for_its_ready_pattern_on_the_screen():
    listed = Gate("tools-listed")
    listed.open()
    steps = (UiStep("task", ("hello", "\r"), READY, listed), UiStep("exit", ("/exit", "\r"), READY, ends=True))
    try:
        result, raw, shots, _ = _run(_prompt_loop(slow=0.8), TtyOptions(quiet=0.2), timeout=WAIT, steps=steps)
    finally:
        listed.close()
    assert result.outcome == "exited" and result.exit_code == 0, raw
    assert b"EARLY" not in raw and b"got hello" in raw
    waiting = [s for s in shots if s.reason == "waiting"]
    assert waiting[0].lines[1] == "starting"  # quiet, its gate open, but no input box yet: nothing typed
    task = next(s for s in shots if s.reason == "typed")
    assert task.seq > waiting[0].seq and task.lines[1:3] == ("starting", ">")


@pytest.mark.live
def test_a_client_that_ignores_its_exit_keys_is_killed_its_grace_after_them_and_the_run_ended(monkeypatch):
    monkeypatch.setattr("backchannel.proxy.run.tty.EXIT_GRACE", 1.0)
    steps = (UiStep("exit", ("/exit", "\r"), READY, ends=True),)
    began = time.monotonic()
    result, raw, shots, _ = _run(_prompt_loop(ignore_exit=True), TtyOptions(quiet=0.2), timeout=WAIT, steps=steps)
    took = time.monotonic() - began
    assert result.outcome == "ended" and result.exit_code is None, raw
    assert "exit keys" in result.detail and "killed" in result.detail
    assert b"got /exit" in raw  # it read them and went on
    typed = next(s for s in shots if s.reason == "typed")
    assert shots[-1].reason == "ended" and shots[-1].t - typed.t >= 1.0
    assert took < 5, f"took {took:.1f} s"
    assert not _alive(int(raw.split()[0]))


def test_a_consumed_prompt_redrawn_in_place_with_other_text_is_a_new_prompt_but_its_echo_is_not():
    term = _terminal(r"[a-z]+\? =>y\n")
    term.feed(b"ok? ")
    found = term.match()
    assert found is not None and found[1:] == (0, 4)
    term.consume(0, 4)
    term.feed(b"yes please")  # the answer's echo, after the consumed part of the row
    assert term.match() is None
    term.feed(b"\x1b[1;1Hok? ")  # the same dialog drawn again in place: still the prompt that was answered
    assert term.match() is None
    term.feed(b"\x1b[1;1Hgo? ")  # a full-screen UI's dialog changed where it was consumed: a new prompt
    found = term.match()
    assert found is not None and found[1:] == (0, 4)


@pytest.mark.live
def test_an_answer_waits_at_least_its_react_time_after_its_prompt_appeared():
    react = 0.8
    shown: list[float] = []

    def seen(output: bytes, shot: Snapshot | None) -> None:
        if not shown and b"Name? " in output:
            shown.append(time.time())

    options = TtyOptions(answers=(parse_answer(r"Name\? =>bob\n"),), quiet=0.2, react=react)
    began = time.monotonic()
    result, raw, shots, _ = _run("print('got', input('Name? '))", options, timeout=WAIT, seen=seen)
    took = time.monotonic() - began
    assert result.outcome == "exited" and b"got bob" in raw, raw
    answered = next(s for s in shots if s.reason == "answered")
    assert react <= answered.t - shown[0] < react + 2
    assert took >= react
