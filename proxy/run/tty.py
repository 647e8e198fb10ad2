r"""Running a client under a real terminal: a pseudo-terminal of a chosen size, a rendered screen, typed answers.

The client's terminal is one stream (`tty`): everything it writes, stdout and stderr alike, is fed raw to
`on_output("tty", chunk)` and to a `pyte` screen of the same size. The screen is *snapshotted* (its rendered rows,
cursor, reason and time) at these points, and only these:

- `waiting`: the client wrote nothing for `quiet` seconds while its process lives (it is waiting for input, or
  thinking). One snapshot per quiet period: the next one needs new output first. At most MAX_SNAPSHOTS per run;
  past that, waiting snapshots are dropped (the exit one is always kept).
- `answered`: an answer's regex matched the rendered screen; the snapshot is the screen it answered, with the
  answer's pattern and text, taken as its first key is typed (its time is the user's step).
- `typed`: the lab typed keys of its own (proxy/run/ui_steps.py: an interactive agent's task, the keys that end
  it); the screen it typed them into, with the step's ready pattern and keys. Never a user's answer.
- `exit` (the client exited), `timeout` (it was killed at the deadline) or `ended` (the lab typed a UI's exit keys
  and it had not exited EXIT_GRACE seconds later, so it was killed): the screen as it was left.

Answers are expect-style (pexpect): after every chunk the screen is searched for each answer's regex (rows
right-stripped, joined with `\n`, `re.MULTILINE`; the cursor's row keeps its spaces up to the cursor, so `Name\? `
matches a prompt waiting after its space), skipping what earlier answers consumed; the earliest match wins (ties:
the first answer given). Its text is typed and the screen up to the match's end is consumed, so the same prompt is
never answered twice; text drawn below or after it is searched again at once (two prompts in one chunk are both
answered, in order). A full clear of the screen resets what is consumed (a redrawn prompt is a new prompt), and so
does a consumed row drawn anew with other text where it was consumed (a full-screen UI's dialog that changes in
place; text written after the consumed part, such as the answer's echo, changes nothing). At most
MAX_TYPED answers are typed per run. An answer is typed as keystroke groups, each once the screen has settled (see
_Keyboard): each Enter alone, because a terminal UI reading a burst as a paste takes an Enter in it as a new line,
not as "send". A control sequence pyte cannot apply (`ESC[1;2A`, a hostile server's text
passed on) is skipped on the screen, never an error; the raw stream has it.

Rendering is lazy and bounded: the screen is brought up to date only when it is needed (after each chunk when
answers are given, else at each snapshot), from at most the last RENDER_BACKLOG bytes written since it was last
brought up to date (a screen of 40 rows shows far less than that; a client printing megabytes without answers costs
at most one such render per snapshot). The raw stream (`on_output`) always has every byte.

`stdin` under a terminal: its bytes are typed once, right after the client starts (echoed like keystrokes, before
any prompt is drawn); no end-of-input follows, because a terminal has none unless the client reads a typed ^D.

The same screen and matcher answer a piped client at its prompts (`TtyOptions.piped`, `--answer --no-tty`):
proxy/run/prompts.py.
"""

from __future__ import annotations

import os
import re
import select
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pyte
from ptyprocess import PtyProcess

from backchannel.proxy.run.reaper import die_with_parent, kill_run, started_at
from backchannel.proxy.run.ui_steps import Gate, UiStep, key_groups, split_keys

TERM = "xterm-256color"
QUIET = 0.3  # seconds without output, the process alive: the client is taken to be waiting for input
MAX_SNAPSHOTS = 256  # waiting and answered snapshots per run; the exit (or timeout) snapshot is always taken
MAX_TYPED = 100  # answers typed per run
MAX_SIDE = 1000  # rows or columns: a terminal larger than this is refused
DRAIN_SECONDS = 2.0  # after the client exits: how long its last output may take to arrive, at most
DRAIN_TAIL = 0.1  # ... and how long a pause in it ends the wait (a process it left may hold the terminal open)
READ_SIZE = 65536
MATCH_EVERY = 1.0  # seconds: a client writing without a pause has its screen matched at least this often
RENDER_BACKLOG = 64 * 1024  # bytes kept for the screen between two renders; older ones are never rendered
SETTLE = 0.15  # seconds of quiet before a keystroke group is typed: a UI draws a prompt before it listens
SETTLE_MAX = 1.0  # ... at most this long after its prompt matched or the group before went (a spinner never pauses)
EXIT_GRACE = 10.0  # seconds a terminal UI may take to exit after the lab typed its exit keys; then it is killed
MATCH_SHARE = 4  # after a match, the next waits at least this many times what it cost: the screen's share is bounded
_SIZE = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*$")
_CONTROL = re.compile(rb"(?:\x1b\[|\xc2\x9b)[0-?]*[ -/]*[@-~]")  # a whole CSI, 7- or 8-bit: fed to pyte alone
_ESCAPES = {"n": "\r", "e": "\x1b", "t": "\t", "\\": "\\"}  # \n is Enter: a terminal sends CR for it

Reason = Literal["waiting", "answered", "typed", "exit", "timeout", "ended"]


@dataclass(frozen=True)
class Answer:
    """Type `text` when `pattern` (a Python regex) matches the rendered screen."""

    pattern: str
    text: str
    regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            compiled = re.compile(self.pattern, re.MULTILINE)
        except re.error as exc:
            raise ValueError(f"--answer {self.pattern!r}: not a valid regular expression ({exc})") from None
        if compiled.match(""):
            raise ValueError(f"--answer {self.pattern!r}: it matches an empty screen, so it would answer anything")
        object.__setattr__(self, "regex", compiled)


@dataclass(frozen=True)
class TtyOptions:
    """The terminal a client runs under: its size, the answers typed at its prompts, and the quiet rule.

    `piped` (`--answer` with `--no-tty`): the client runs on pipes, not under a terminal; its output is rendered on
    a virtual screen of this size only to find its prompts, and answers are written to its stdin
    (proxy/run/prompts.py)."""

    cols: int = 120
    rows: int = 40
    answers: tuple[Answer, ...] = ()
    quiet: float = QUIET
    piped: bool = False
    react: float = 0.0  # seconds an answer waits after its prompt matched, at least (a UI that drops early keys)

    def __post_init__(self) -> None:
        for name, value in (("columns", self.cols), ("rows", self.rows)):
            if not 1 <= value <= MAX_SIDE:
                raise ValueError(f"terminal {name} must be between 1 and {MAX_SIDE}, not {value}")
        if not 0 < self.quiet <= 60:
            raise ValueError(f"the quiet period must be above 0 and at most 60 seconds, not {self.quiet}")


@dataclass(frozen=True)
class Snapshot:
    """The rendered screen at one point of a run."""

    seq: int  # 1, 2, ... within the run
    t: float  # seconds since the epoch
    reason: Reason
    cols: int
    rows: int
    cursor_row: int  # 0-based
    cursor_col: int
    lines: tuple[str, ...]  # each rendered row, right-stripped
    answer_pattern: str | None = None
    answer_text: str | None = None

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True)
class TtyResult:
    exit_code: int | None
    outcome: str  # exited | timeout | ended | failed-to-start
    detail: str
    snapshots: int


def parse_tty_size(text: str) -> tuple[int, int]:
    """`120x40` → (120, 40): columns first, like `stty size` prints them the other way round."""
    found = _SIZE.match(text)
    if not found:
        raise ValueError(f"--tty-size {text!r}: give COLUMNSxROWS, e.g. 120x40")
    cols, rows = int(found.group(1)), int(found.group(2))
    for name, value in (("columns", cols), ("rows", rows)):
        if not 1 <= value <= MAX_SIDE:
            raise ValueError(f"--tty-size {text!r}: {name} must be between 1 and {MAX_SIDE}")
    return cols, rows


def parse_answer(text: str) -> Answer:
    """`REGEX=>TEXT`: type TEXT when REGEX matches the screen. In TEXT, `\\n` is Enter, `\\e` Escape, `\\t` Tab."""
    pattern, sep, typed = text.partition("=>")
    if not sep:
        raise ValueError(f"--answer {text!r}: give REGEX=>TEXT, e.g. 'Continue\\? \\[y/N\\]=>y\\n'")
    if not pattern:
        raise ValueError(f"--answer {text!r}: the regular expression before => is empty")
    return Answer(pattern, unescape(typed))


def unescape(text: str) -> str:
    out: list[str] = []
    chars = iter(text)
    for char in chars:
        if char != "\\":
            out.append(char)
            continue
        following = next(chars, "")
        if following not in _ESCAPES:
            raise ValueError(f"--answer text {text!r}: unknown escape \\{following} (use \\n, \\e, \\t or \\\\)")
        out.append(_ESCAPES[following])
    return "".join(out)


class _Screen(pyte.Screen):
    """A pyte screen that counts the rows scrolled off its top and the full clears (for what answers consumed).

    `newline`: a line feed also returns to the first column (LNM), kept through a reset (`ESC c`), which would
    otherwise restore pyte's default modes."""

    def __init__(self, cols: int, rows: int, *, newline: bool = False) -> None:
        self.newline = newline  # before super().__init__, which resets the screen
        super().__init__(cols, rows)
        if newline:  # pyte's __init__ sets its default modes again after its reset
            self.set_mode(pyte.modes.LNM)
        self.scrolled = 0
        self.clears = 0

    def reset(self) -> None:
        super().reset()
        if self.newline:
            self.set_mode(pyte.modes.LNM)

    def index(self) -> None:
        top, bottom = self.margins or (0, self.lines - 1)
        if self.cursor.y == bottom and top == 0:
            self.scrolled += 1
        super().index()

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        if how in (2, 3):
            self.clears += 1
        super().erase_in_display(how, *args, **kwargs)


def keep_last(buffer: bytearray, chunk: bytes, limit: int = RENDER_BACKLOG) -> int:
    """Append `chunk` to `buffer`, keeping only its last `limit` bytes; returns how many were dropped from its front."""
    buffer += chunk
    cut = max(0, len(buffer) - limit)
    del buffer[:cut]
    return cut


def under_terminal(options: TtyOptions | None) -> bool:
    """Whether a client run with these options runs under a pseudo-terminal (not piped, with or without answers)."""
    return options is not None and not options.piped


class Terminal:
    """The screen, its stream, and the expect-style matcher over it.

    `newline`: a line feed also returns the cursor to the first column, as the text a piped client writes means
    (a terminal's own driver adds that carriage return; a pipe has no driver)."""

    def __init__(self, options: TtyOptions, *, newline: bool = False) -> None:
        self.options = options
        self.screen = _Screen(options.cols, options.rows, newline=newline)
        self.stream = pyte.ByteStream(self.screen)
        self.consumed = (0, 0, 0)  # (absolute row = scrolled + row, col, clears) up to which answers matched
        self.seen: dict[int, str] = {}  # absolute row -> what of it was consumed: one drawn anew since is fresh
        self.snapshots = 0
        self.typed = 0
        self.pending = bytearray()  # written, not yet rendered: pyte costs about 4 µs a byte
        self.dropped = 0  # bytes never rendered (see RENDER_BACKLOG)
        self.faults = 0  # control sequences pyte could not apply (skipped: see _feed)

    def feed(self, chunk: bytes) -> None:
        """Take what the client wrote; it is rendered when the screen is next needed (a match, a snapshot)."""
        self.dropped += keep_last(self.pending, chunk)

    def render(self) -> None:
        if self.pending:
            data = bytes(self.pending)
            self.pending.clear()
            self._feed(data)

    def _feed(self, data: bytes) -> None:
        """Feed pyte one piece at a time, each control sequence alone.

        pyte raises on sequences a client (or a server's text it passes on) can write: a parameter more than it
        expects (`ESC[1;2A`), a private marker where it takes none (`ESC[?L`). The raw stream keeps every byte
        anyway; here such a sequence is skipped, and the text after it still reaches the screen, so a prompt
        drawn after it is still found."""
        start = 0
        for found in _CONTROL.finditer(data):
            if found.start() > start:
                self._apply(data[start : found.start()])
            self._apply(found.group())
            start = found.end()
        if start < len(data):
            self._apply(data[start:])

    def _apply(self, piece: bytes) -> None:
        try:
            self.stream.feed(piece)
        except Exception:  # noqa: BLE001 - pyte's own errors on hostile input: the screen skips the sequence
            self.faults += 1

    def lines(self) -> tuple[str, ...]:
        return tuple(line.rstrip() for line in self.screen.display)

    def snapshot(self, reason: Reason, answer: Answer | None = None, step: UiStep | None = None) -> Snapshot:
        self.render()
        self.snapshots += 1
        pattern = answer.pattern if answer is not None else step.ready if step is not None else None
        text = answer.text if answer is not None else step.text() if step is not None else None
        return Snapshot(
            seq=self.snapshots,
            t=time.time(),
            reason=reason,
            cols=self.options.cols,
            rows=self.options.rows,
            cursor_row=int(self.screen.cursor.y),
            cursor_col=int(self.screen.cursor.x),
            lines=self.lines(),
            answer_pattern=pattern,
            answer_text=text,
        )

    def screen_text(self) -> str:
        """The rendered screen as one text: rows right-stripped, the cursor's row kept up to the cursor."""
        self.render()
        lines = list(self.lines())
        cursor = int(self.screen.cursor.y)
        if 0 <= cursor < len(lines):  # the cursor's row reaches the cursor: a prompt's trailing space is matched
            lines[cursor] = self.screen.display[cursor][: max(len(lines[cursor]), int(self.screen.cursor.x))]
        return "\n".join(lines)

    def match(self) -> tuple[Answer, int, int] | None:
        """The answer whose regex matches the unconsumed screen earliest, and the (row, col) its match ends at."""
        if not self.options.answers or self.typed >= MAX_TYPED:
            return None
        self.render()
        absolute, col, clears = self.consumed
        row = absolute - self.screen.scrolled if clears == self.screen.clears else 0
        col = col if clears == self.screen.clears else 0
        rendered = self.lines()
        lines = list(rendered)
        cursor = int(self.screen.cursor.y)
        if 0 <= cursor < len(lines):  # the cursor's row reaches the cursor: a prompt's trailing space is matched
            lines[cursor] = self.screen.display[cursor][: max(len(lines[cursor]), int(self.screen.cursor.x))]
        scrolled = self.screen.scrolled
        for index in range(min(row + 1, len(lines))):
            kept = self.seen.get(scrolled + index)
            if kept is not None and rendered[index][: len(kept)] != kept:
                continue  # redrawn since it was consumed (a full-screen UI's dialog, in place): a new prompt
            if index < row:
                lines[index] = ""
            else:
                lines[index] = " " * min(col, len(lines[index])) + lines[index][col:]
        text = "\n".join(lines)
        best: tuple[int, Answer, int] | None = None
        for answer in self.options.answers:
            found = answer.regex.search(text)
            if found and (best is None or found.start() < best[0]):
                best = (found.start(), answer, found.end())
        if best is None:
            return None
        end = best[2]
        end_row = text.count("\n", 0, end)
        end_col = end - (text.rfind("\n", 0, end) + 1)
        return best[1], end_row, end_col

    def answer_all(self, emit: Callable[[Snapshot], None] | None) -> list[Answer]:
        """Every answer the screen now asks for, in order: each match is snapshotted (`answered`, at most
        MAX_SNAPSHOTS; with no `emit`, the caller snapshots it when it types it) and consumed before the next is
        looked for."""
        answers = []
        while (found := self.match()) is not None:
            answer, row, col = found
            if emit is not None and self.snapshots < MAX_SNAPSHOTS:
                emit(self.snapshot("answered", answer))
            self.consume(row, col)
            answers.append(answer)
        return answers

    def consume(self, row: int, col: int) -> None:
        scrolled = self.screen.scrolled
        if self.consumed[2] != self.screen.clears:
            self.seen.clear()
        rendered = self.lines()
        self.seen = {at: text for at, text in self.seen.items() if at >= scrolled}  # rows scrolled off are gone
        for index in range(min(row + 1, len(rendered))):  # what was consumed of each row (an echo after it is not)
            self.seen[scrolled + index] = rendered[index] if index < row else rendered[index][:col]
        self.consumed = (scrolled + row, col, self.screen.clears)
        self.typed += 1


def run_tty(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    marker: str,
    on_output: Callable[[str, bytes], None],
    timeout: float,
    options: TtyOptions,
    stdin: bytes | None = None,
    on_snapshot: Callable[[Snapshot], None] | None = None,
    steps: Sequence[UiStep] = (),
) -> TtyResult:
    """Run argv to completion or timeout under a pseudo-terminal; nothing it started outlives the call.

    `steps` are keys the lab types itself, in order (proxy/run/ui_steps.py); one marked `ends` typed, the client
    has EXIT_GRACE seconds to exit before it is killed (outcome `ended`)."""
    try:
        proc = PtyProcess.spawn(
            list(argv),
            cwd=str(cwd),
            env=dict(env),
            dimensions=(options.rows, options.cols),
            preexec_fn=die_with_parent,  # the client dies with us even on kill -9; the pty made it a session leader
        )
    except OSError as exc:
        return TtyResult(None, "failed-to-start", f"{argv[0]}: {exc.strerror or exc}", 0)
    since = started_at(proc.pid)
    waiter = _Waiter(proc.pid)
    try:
        return _watch(proc, waiter, on_output, timeout, options, stdin, on_snapshot, steps)
    finally:
        kill_run(proc.pid, marker, since=since)  # an interruption still leaves nothing of the client running
        _kill_group(proc.pid)
        waiter.join(5)
        waiter.close()
        try:
            proc.fileobj.close()
        except OSError:
            pass
        proc.closed = True  # reaped and closed here: ptyprocess must not wait on it again


class _Waiter:
    """Reaps the client in a thread and wakes the reading loop through a pipe: exit is an event, not a poll."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.status: int | None = None
        self.read_end, self._write_end = os.pipe()
        self._thread = threading.Thread(target=self._wait, name=f"tty-wait-{pid}", daemon=True)
        self._thread.start()

    def _wait(self) -> None:
        try:
            _, status = os.waitpid(self.pid, 0)
            self.status = status
        except ChildProcessError:
            pass
        finally:
            os.write(self._write_end, b"x")

    @property
    def exited(self) -> bool:
        return not self._thread.is_alive()

    def exit_code(self) -> int | None:
        if self.status is None:
            return None
        if os.WIFSIGNALED(self.status):
            return -os.WTERMSIG(self.status)
        return os.WEXITSTATUS(self.status)

    def join(self, seconds: float) -> None:
        self._thread.join(seconds)

    def close(self) -> None:
        """Close the wake-up pipe once the reaping thread is done (a thread still waiting keeps its end)."""
        if self._thread.is_alive():
            return
        for fd in (self.read_end, self._write_end):
            try:
                os.close(fd)
            except OSError:
                pass


def _watch(
    proc: PtyProcess,
    waiter: _Waiter,
    on_output: Callable[[str, bytes], None],
    timeout: float,
    options: TtyOptions,
    stdin: bytes | None,
    on_snapshot: Callable[[Snapshot], None] | None,
    steps: Sequence[UiStep] = (),
) -> TtyResult:
    term = Terminal(options)
    fd = proc.fd
    os.set_blocking(fd, False)  # typing never blocks on a client that does not read: what waits is in `keyboard`
    deadline = time.monotonic() + timeout
    last_output = time.monotonic()
    quiet_taken = False  # a waiting snapshot was taken since the last output
    eof = False
    keyboard = _Keyboard(stdin or b"", options.react)
    pacing = _MatchPacing()
    pending = list(steps)  # the lab's own steps still to type, in order
    ending: float | None = None  # when a UI that was told to exit is killed
    woken: set[Gate] = set()  # gates whose wake-up byte select reported (it stays: they are selected no more)

    def emit(snapshot: Snapshot) -> None:
        if on_snapshot is not None:
            on_snapshot(snapshot)

    def answer() -> None:
        began = time.monotonic()
        for found in term.answer_all(None):  # two prompts in one chunk: both answered, in order

            def typing(answer: Answer = found) -> None:  # its snapshot: the screen as its first key goes
                if term.snapshots < MAX_SNAPSHOTS:
                    emit(term.snapshot("answered", answer))

            keyboard.queue(split_keys(found.text), settle=True, on_start=typing)
        pacing.matched(began)

    def step() -> None:
        """Type the next step of the lab's own if its gate is open, the screen quiet and its ready pattern shown."""
        nonlocal ending
        if not pending or keyboard.busy or time.monotonic() - last_output < options.quiet:
            return
        due = pending[0]
        if due.gate is not None and not due.gate.is_open:
            return
        if due.regex is not None and not due.regex.search(term.screen_text()):
            return
        pending.pop(0)
        emit(term.snapshot("typed", step=due))
        keyboard.queue(key_groups(due.keys))
        if due.ends:
            ending = time.monotonic() + EXIT_GRACE

    def timed_out() -> TtyResult:
        _kill_group(proc.pid)
        emit(term.snapshot("timeout"))
        detail = f"still running after {timeout:g} s; it and every process it started was killed"
        return TtyResult(None, "timeout", detail, term.snapshots)

    def ended() -> TtyResult:
        _kill_group(proc.pid)
        emit(term.snapshot("ended"))
        detail = f"its task done, it had not exited {EXIT_GRACE:g} s after the lab typed its exit keys; it was killed"
        return TtyResult(None, "ended", detail, term.snapshots)

    while not waiter.exited and not eof:
        now = time.monotonic()
        if now >= deadline:
            return timed_out()
        if ending is not None and now >= ending:
            return ended()
        wait = deadline - now if quiet_taken else min(deadline - now, max(0.0, last_output + options.quiet - now))
        if pacing.owed:
            wait = min(wait, max(0.0, pacing.due() - now))
        if (released := keyboard.due(last_output)) is not None:
            wait = min(wait, max(0.0, released - now))
        if ending is not None:
            wait = min(wait, max(0.0, ending - now))
        # selected until its wake-up is seen, not while it is closed: one opened after step() looked at it and
        # before this line would otherwise go unnoticed until the next output (a quiet UI: until the deadline)
        gate = pending[0].gate if pending else None
        gates = [gate.fd] if gate is not None and gate not in woken else []
        ready, writable, _ = select.select([fd, waiter.read_end, *gates], [fd] if keyboard.current else [], [], wait)
        if writable:
            keyboard.write(fd)
        keyboard.release(time.monotonic(), last_output)
        if gate is not None and gates and gates[0] in ready:
            woken.add(gate)
            step()  # the gate opened (its byte stays: the gate is open from now on and no longer selected)
        if fd in ready:
            chunk = _read(fd, term, on_output)
            if chunk is None:
                eof = True
            elif chunk:
                keyboard.echoed()
                last_output, quiet_taken, pacing.owed = time.monotonic(), False, True
                if pacing.wants(time.monotonic(), paused=not select.select([fd], [], [], 0)[0]):
                    answer()
        elif pacing.owed and time.monotonic() >= pacing.due():  # the output paused: the screen is owed its match
            answer()
        elif not ready and not writable and not quiet_taken and time.monotonic() - last_output >= options.quiet:
            quiet_taken = True
            if term.snapshots < MAX_SNAPSHOTS:
                emit(term.snapshot("waiting"))
            step()
        elif quiet_taken and not keyboard.busy and pending:
            step()  # what was typed is written and the screen is quiet again: the next step may be due
    # the client exited (or closed its terminal): its last output, each read awaited at most DRAIN_TAIL
    drain_until = min(deadline, time.monotonic() + DRAIN_SECONDS)
    while not eof and (left := drain_until - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], min(left, DRAIN_TAIL))
        chunk = _read(fd, term, on_output) if ready else b""
        if chunk is None:
            eof = True
        elif not chunk:
            break
    if not waiter.exited:  # the terminal closed, the client lives on: its exit is awaited to the deadline, as piped
        limit = deadline if ending is None else min(deadline, ending)
        select.select([waiter.read_end], [], [], max(0.0, limit - time.monotonic()))
        if not waiter.exited:
            waiter.join(1)  # woken: the reaping thread is returning
        if not waiter.exited:
            return timed_out() if ending is None else ended()
    # then (in run_tty) whatever it left behind is killed, as after a piped run
    emit(term.snapshot("exit"))
    detail = "it exited after the lab typed its exit keys" if ending is not None else ""
    return TtyResult(waiter.exit_code(), "exited", detail, term.snapshots)


class _Keyboard:
    """What is still to be typed: the keystroke group being written, then the groups waiting their turn.

    A terminal UI draws a dialog a moment before the dialog listens to the keyboard, and it may redraw a spinner
    all the while, so a key is typed when the screen has settled: an answer's first group once the output has been
    quiet for SETTLE since its prompt matched, each later group once the one before was written whole, echoed
    (output after it) and the output quiet again for SETTLE. SETTLE_MAX after its anchor a group goes anyway (a
    client that echoes nothing, a spinner that never pauses)."""

    def __init__(self, first: bytes, react: float = 0.0) -> None:
        self.react = react  # an answer's first group waits at least this long (TtyOptions.react)
        self.reacting = False  # the next group is an answer's first
        self.current = bytearray(first)  # `stdin` under a terminal: typed at once, as one group
        self.waiting: deque[tuple[bytes, Callable[[], None] | None]] = deque()  # a group, and what its going starts
        self.anchor: float | None = None  # since when the next group waits (None: it goes at once)
        self.echo = False  # the one before it is written whole and output arrived since

    @property
    def busy(self) -> bool:
        return bool(self.current or self.waiting)

    def queue(self, groups: Sequence[str], *, settle: bool = False, on_start: Callable[[], None] | None = None) -> None:
        """Queue keystroke groups; `on_start` is called just before the first of them is typed."""
        if not self.busy:
            self.anchor, self.echo = (time.monotonic(), True) if settle else (None, False)
            self.reacting = settle
        kept = [group.encode("utf-8") for group in groups if group]
        self.waiting.extend((group, on_start if index == 0 else None) for index, group in enumerate(kept))

    def write(self, fd: int) -> None:
        had = bool(self.current)
        self.current = _type(fd, self.current)
        if had and not self.current:
            self.anchor, self.echo = time.monotonic(), False

    def echoed(self) -> None:
        if not self.current:
            self.echo = True

    def due(self, last_output: float) -> float | None:
        """When the next waiting group goes if nothing else happens (None: nothing waits, or one is being typed)."""
        if self.current or not self.waiting:
            return None
        if self.anchor is None:
            return 0.0
        floor = self.anchor + (self.react if self.reacting else 0.0)
        latest = self.anchor + max(SETTLE_MAX, floor - self.anchor)
        return max(floor, min(latest, last_output + SETTLE)) if self.echo else latest

    def release(self, now: float, last_output: float) -> None:
        if self.current or not self.waiting:
            return
        if self.anchor is not None:
            waited = now - self.anchor
            if self.reacting and waited < self.react:
                return
            if waited < max(SETTLE_MAX, self.react if self.reacting else 0.0) and (
                not self.echo or now - last_output < SETTLE
            ):
                return
        self.reacting = False
        group, on_start = self.waiting.popleft()
        if on_start is not None:
            on_start()
        self.current = bytearray(group)


class _MatchPacing:
    """When the screen is matched against the answers: when the output pauses, and at least every MATCH_EVERY
    seconds of a client that never pauses; but never sooner after a match than MATCH_SHARE times what it cost.

    Mid-burst the screen waits because rendering costs about 4 µs a byte. A pause is only what a select of 0 s
    sees: on a loaded machine the writer is merely not scheduled yet after each read, and matching at every such
    pause rendered every byte (80 s for 20 MB, past the run's timeout). The bound keeps the screen's share of the
    loop at most 1/(MATCH_SHARE + 1) whatever the scheduler does; a cheap match (a prompt on a quiet screen costs
    microseconds) is not delayed at all."""

    def __init__(self) -> None:
        self.at = time.monotonic()  # when the screen was last matched
        self.cost = 0.0  # what that match took
        self.owed = False  # output arrived since then

    def due(self) -> float:
        return self.at + self.cost * MATCH_SHARE

    def wants(self, now: float, paused: bool) -> bool:
        return now - self.at >= MATCH_EVERY or (paused and now >= self.due())

    def matched(self, began: float) -> None:
        self.at = time.monotonic()
        self.cost, self.owed = self.at - began, False


def _type(fd: int, pending: bytearray) -> bytearray:
    """Write what the terminal takes now of what is to be typed; the rest waits for the next turn."""
    try:
        written = os.write(fd, pending[:READ_SIZE])
    except BlockingIOError:
        return pending
    except OSError:  # the client closed its terminal: nothing more can be typed
        return bytearray()
    return pending[written:]


def _read(fd: int, term: Terminal, on_output: Callable[[str, bytes], None]) -> bytes | None:
    """One read from the terminal into the screen and `on_output`: the bytes, b"" if none yet, None at end of file."""
    try:
        chunk = os.read(fd, READ_SIZE)
    except BlockingIOError:
        return b""
    except OSError:  # EIO: every process holding the terminal's other side closed it
        return None
    if not chunk:
        return None
    term.feed(chunk)
    on_output("tty", chunk)
    return chunk


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
