"""What a run's client showed at its terminal: the one place the oracle reads terminal text, piped or under a tty.

A piped run has two streams, `stdout` and `stderr`, read as recorded (byte for byte: every check and every
evidence offset of a piped run is what it always was). A run under a terminal (`--tty`) has one stream, `tty`: the
raw bytes the client wrote to its terminal. Here it is read as *plain text*: its escape sequences (colours,
cursor moves, titles) removed and each CR LF the terminal made of a newline turned back into LF, so the same small
script gives the same text piped (stdout, then stderr) and under a terminal. Evidence offsets into a tty stream are
offsets into that plain text (`stream_bytes(rec, run, "tty")`).

The screen snapshots (`Recording.screens`) are not part of this text: each repeats what the stream already holds,
and a snapshot may have scrolled a line's context (a fence, a label) off its top, which would judge the same output
differently piped and under a terminal. They are what a human sees (`backchannel show`), cited as `screen` evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from backchannel.recordings.model import Recording, ScreenSnapshot

from .model import Evidence

PIPED = ("stdout", "stderr")
TTY = "tty"

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), DCS/SOS/PM/APC strings, charset designations, other ESC pairs,
# and the 8-bit CSI; what is left is the text the client drew
_ESCAPE = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]"
    rb"|\x9b[0-?]*[ -/]*[@-~]"
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    rb"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    rb"|\x1b[()*+][0-9A-Za-z]"
    rb"|\x1b[ -/]*[0-~]"
)


@dataclass(frozen=True, slots=True)
class TerminalStream:
    """One stream of a run's terminal: `stdout`/`stderr` as recorded, or `tty` as plain text."""

    name: str
    data: bytes


def plain(raw: bytes) -> bytes:
    """A terminal's raw bytes as plain text: escape sequences removed, CR LF back to LF."""
    return _ESCAPE.sub(b"", raw).replace(b"\r\n", b"\n")


def is_tty(rec: Recording, run_id: str) -> bool:
    return rec.is_tty(run_id)


def streams(rec: Recording, run_id: str) -> tuple[TerminalStream, ...]:
    """The run's terminal streams, in the order they are read: stdout and stderr, or the one tty stream."""
    if rec.is_tty(run_id):
        return (TerminalStream(TTY, plain(rec.terminal_bytes(run_id, TTY))),)
    return tuple(TerminalStream(name, rec.terminal_bytes(run_id, name)) for name in PIPED)


def stream_bytes(rec: Recording, run_id: str, name: str) -> bytes:
    """One stream as the oracle reads it (a tty stream as plain text), so evidence offsets point into it."""
    data = rec.terminal_bytes(run_id, name)
    return plain(data) if name == TTY else data


def terminal_text(rec: Recording, run_id: str) -> str:
    """Everything the client showed, as text: stdout then stderr piped; the terminal's plain text under a tty."""
    return b"".join(stream.data for stream in streams(rec, run_id)).decode("utf-8", "replace")


def error_text(rec: Recording, run_id: str) -> tuple[str, bytes]:
    """Where a failing client's complaint is: (`stderr`, its bytes) piped; (`terminal`, the plain text) under a tty,
    where stderr is not told apart from stdout."""
    if rec.is_tty(run_id):
        return "terminal", stream_bytes(rec, run_id, TTY)
    return "stderr", rec.terminal_bytes(run_id, "stderr")


def screen_evidence(snapshot: ScreenSnapshot, offset: int, length: int, note: str = "") -> Evidence:
    """`screen` evidence for `length` characters at `offset` in a snapshot's text: the rows and columns they span."""
    text = snapshot.text
    offset = max(0, min(offset, len(text)))
    end = max(offset, min(offset + max(length, 1), len(text)))
    first_row = text.count("\n", 0, offset)
    last_row = text.count("\n", 0, max(offset, end - 1))
    first_col = offset - (text.rfind("\n", 0, offset) + 1)
    last_col = end - (text.rfind("\n", 0, end - 1) + 1) if end > offset else first_col
    if first_row != last_row:  # a span over several rows: the columns are those of the whole screen
        first_col, last_col = 0, snapshot.cols
    return Evidence(
        kind="screen",
        run=snapshot.run_id,
        seq=snapshot.seq,
        rows=(first_row, last_row + 1),
        cols=(first_col, last_col),
        note=note,
    )
