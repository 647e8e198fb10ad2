"""What a run's client showed at its terminal: the one place the oracle reads terminal text, piped or under a tty.

A piped run has two streams, `stdout` and `stderr`, read as recorded (byte for byte: every check and every
evidence offset of a piped run is what it always was). A run under a terminal (`--tty`) has one stream, `tty`: the
raw bytes the client wrote to its terminal. Here it is read as *plain text*: its escape sequences (colours,
cursor moves, titles) removed and each CR LF the terminal made of a newline turned back into LF, so the same small
script gives the same text piped (stdout, then stderr) and under a terminal. Evidence offsets into a tty stream are
offsets into that plain text (`stream_bytes(rec, run, "tty")`).

This module owns the terminal view of a recording: which streams a run has (`is_tty`, `stream_names`), their bytes
as recorded (`raw_bytes`) and as read (`stream_bytes`), and the run's screen snapshots (`screens_in`); the
recording model only holds the rows, so every reader (the checks, `show`, the matrix, a bug report) goes through here.

The screen snapshots (`Recording.screens`) are not part of this text: each repeats what the stream already holds,
and a snapshot may have scrolled a line's context (a fence, a label) off its top, which would judge the same output
differently piped and under a terminal. They are what a human sees (`backchannel show`), cited as `screen` evidence.
One exception: a full-screen terminal UI (Claude Code's) draws each word at a cursor position and writes no spaces,
so its stream holds no sentence whole; a text its stream never shows is looked for on its rendered screens
(`first_sighting`, `screen_text_until`): a snapshot is what was on the screen when it was taken, so a text on one
was shown by then.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from backchannel.recordings.model import Recording, ScreenSnapshot, TerminalChunk

from .model import Evidence

PIPED = ("stdout", "stderr")
TTY = "tty"

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), DCS/SOS/PM/APC strings, charset designations, other ESC pairs,
# and the 8-bit CSI and OSC as a UTF-8 terminal receives them (U+009B, U+009D: C2 9B, C2 9D); what is left is the
# text the client drew. A lone 0x9B byte is never a CSI here: in UTF-8 it is the last byte of a character (ě, ␛).
# An 8-bit OSC left open ends at the line's end: few terminals act on it at all (xterm does not reprocess C1 decoded
# from UTF-8), so a cut one must not hide every later line (a URL shown after it) from the checks
_ESCAPE = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]"
    rb"|\xc2\x9b[0-?]*[ -/]*[@-~]"
    rb"|\xc2\x9d(?:[^\x07\x1b\xc2\n]|\xc2[^\x9c])*(?:\x07|\x1b\\|\xc2\x9c)?"
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


def screens_in(rec: Recording, run_id: str) -> Iterator[ScreenSnapshot]:
    """The run's screen snapshots, in the order they were taken."""
    return (s for s in rec.screens if s.run_id == run_id)


def is_tty(rec: Recording, run_id: str) -> bool:
    """Whether the run's client ran under a terminal (its output is the one `tty` stream).

    A terminal run that printed nothing still has its exit screen; a piped run answered at its prompts
    (`--answer --no-tty`) has screens too, but always piped output (a prompt was read before each)."""
    names = {c.stream for c in rec.terminal if c.run_id == run_id}
    return TTY in names or (not names & set(PIPED) and any(screens_in(rec, run_id)))


def stream_names(rec: Recording, run_id: str) -> tuple[str, ...]:
    """The run's streams in the order they are read: stdout and stderr, or the one tty stream."""
    return (TTY,) if is_tty(rec, run_id) else PIPED


def chunks(rec: Recording, run_id: str, name: str) -> list[TerminalChunk]:
    """One stream's chunks by offset, as the harness read them (each with the time it was read)."""
    return sorted((c for c in rec.terminal if c.run_id == run_id and c.stream == name), key=lambda c: c.offset)


def raw_bytes(rec: Recording, run_id: str, name: str) -> bytes:
    """One stream as the client wrote it, reassembled by offset (a tty stream with its escape sequences)."""
    return b"".join(c.data for c in chunks(rec, run_id, name))


def streams(rec: Recording, run_id: str) -> tuple[TerminalStream, ...]:
    """The run's terminal streams, in the order they are read: stdout and stderr, or the one tty stream."""
    return tuple(TerminalStream(name, stream_bytes(rec, run_id, name)) for name in stream_names(rec, run_id))


def stream_bytes(rec: Recording, run_id: str, name: str) -> bytes:
    """One stream as the oracle reads it (a tty stream as plain text), so evidence offsets point into it."""
    data = raw_bytes(rec, run_id, name)
    return plain(data) if name == TTY else data


def terminal_text(rec: Recording, run_id: str) -> str:
    """Everything the client showed, as text: stdout then stderr piped; the terminal's plain text under a tty."""
    return b"".join(stream.data for stream in streams(rec, run_id)).decode("utf-8", "replace")


def error_text(rec: Recording, run_id: str) -> tuple[str, bytes]:
    """Where a failing client's complaint is: (`stderr`, its bytes) piped; (`terminal`, the plain text) under a tty,
    where stderr is not told apart from stdout."""
    if is_tty(rec, run_id):
        return "terminal", stream_bytes(rec, run_id, TTY)
    return "stderr", raw_bytes(rec, run_id, "stderr")


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


# a line break and the indentation or fence drawn after it: a URL the client wrapped across lines still reads whole
_GAP = re.compile(rb"[\r\n]+[ \t|>\xe2\x94\x82]*")  # \xe2\x94\x82 is U+2502, a box-drawing fence
_HIDDEN = re.compile(_ESCAPE.pattern + rb"|" + _GAP.pattern)


@dataclass(frozen=True, slots=True)
class Sighting:
    """Where and when the user could first see a text: its offset and length in the stream as evidence cites it
    (a tty stream's plain text), and the time the harness read the chunk holding its last byte (the same clock as
    the proxy's message times; a read is a little after the client's write, never before)."""

    stream: str
    offset: int
    length: int
    t: float | None
    screen: ScreenSnapshot | None = None  # seen on this rendered screen (offset, length: into its text), no stream

    def evidence(self, run_id: str, note: str) -> Evidence:
        """Where it was seen, as evidence: the span of the stream, or the rows and columns of the screen."""
        if self.screen is not None:
            return screen_evidence(self.screen, self.offset, self.length, note)
        return Evidence(
            kind="terminal", run=run_id, stream=self.stream, offset=self.offset, length=self.length, note=note
        )


def _visible(raw: bytes) -> tuple[bytes, list[tuple[int, int]]]:
    """The raw bytes with escape sequences and line gaps removed, and (visible start, raw start) per kept piece."""
    kept, pieces, at, pos = bytearray(), [], 0, 0
    for match in _HIDDEN.finditer(raw):
        if match.start() > pos:
            pieces.append((at, pos))
            kept += raw[pos : match.start()]
            at += match.start() - pos
        pos = match.end()
    if pos < len(raw):
        pieces.append((at, pos))
        kept += raw[pos:]
    return bytes(kept), pieces


def _raw_offset(pieces: list[tuple[int, int]], visible: int) -> int:
    starts = [start for start, _ in pieces]
    index = bisect_right(starts, visible) - 1
    start, raw = pieces[index]
    return raw + visible - start


def first_sighting(rec: Recording, run_id: str, needle: str) -> Sighting | None:
    """When `needle` first appeared in what the run's client showed (any stream; escapes and line wraps ignored);
    under a terminal, on its rendered screens when no stream holds it whole."""
    found: Sighting | None = None
    for name in stream_names(rec, run_id):
        sighting = sighting_in(rec, run_id, name, needle)
        if sighting is not None and (
            found is None or (sighting.t is not None and (found.t is None or sighting.t < found.t))
        ):
            found = sighting
    if found is None and is_tty(rec, run_id):
        found = screen_sighting(rec, run_id, needle)
    return found


SCREEN = "screen"  # a Sighting's stream when it was seen on a rendered screen


def screen_sighting(rec: Recording, run_id: str, needle: str) -> Sighting | None:
    """The first screen snapshot showing `needle` (a line wrap and its indentation ignored), with its time."""
    wanted = needle.encode("utf-8", "surrogatepass")  # a peer's lone surrogate: bytes no screen shows
    if not wanted:
        return None
    for snapshot in screens_in(rec, run_id):
        text = snapshot.text.encode("utf-8")
        visible, pieces = _visible(text)
        index = visible.find(wanted)
        if index >= 0:
            first, last = _raw_offset(pieces, index), _raw_offset(pieces, index + len(wanted) - 1)
            start = len(text[:first].decode("utf-8", "replace"))
            length = len(text[first : last + 1].decode("utf-8", "replace"))
            return Sighting(SCREEN, start, length, snapshot.t, snapshot)
    return None


def screen_text_until(rec: Recording, run_id: str, until: float | None) -> str:
    """The text of every screen snapshot taken by a moment, in order (what a full-screen UI showed by then)."""
    return "\n".join(s.text for s in screens_in(rec, run_id) if until is None or s.t is None or s.t <= until)


def sighting_in(rec: Recording, run_id: str, name: str, needle: str) -> Sighting | None:
    """Where `needle` first appeared in one stream (escapes and line wraps ignored), and when its last byte was read."""
    wanted = needle.encode("utf-8", "surrogatepass")  # a peer's lone surrogate: bytes no screen shows
    if not wanted:
        return None
    read = chunks(rec, run_id, name)
    raw = b"".join(c.data for c in read)
    visible, pieces = _visible(raw)
    index = visible.find(wanted)
    if index < 0:
        return None
    first, last = _raw_offset(pieces, index), _raw_offset(pieces, index + len(wanted) - 1)
    t = next((c.t for c in read if c.offset <= last < c.offset + len(c.data)), None)
    if name == TTY:  # evidence offsets into a tty stream are offsets into its plain text (stream_bytes)
        first, last = len(plain(raw[:first])), len(plain(raw[: last + 1])) - 1
    return Sighting(name, first, last + 1 - first, t)


SCREEN_WINDOW = 512  # characters before a text on a screen in which a name counts as naming it (as in a stream)


def screen_names_body(rec: Recording, run_id: str, body: str, names: list[str]) -> ScreenSnapshot | None:
    """The first screen snapshot showing `body` with one of `names` in the SCREEN_WINDOW characters above it (a
    terminal UI's rendered order, which its stream need not follow), if any."""
    for snapshot in screens_in(rec, run_id):
        at = snapshot.text.find(body)
        if at >= 0 and any(name and name in snapshot.text[max(0, at - SCREEN_WINDOW) : at] for name in names):
            return snapshot
    return None


# moving the cursor to a place (CUP/HVP row;col, CHA column, VPA row) or switching to the alternate screen: a client
# that does either draws its screen in an order its stream does not keep
_ADDRESSING = re.compile(rb"\x1b\[[0-9;]*[HfGd]|\x1b\[\?(?:1049|1047|47)h")


def draws_at_cursor(rec: Recording, run_id: str) -> bool:
    """Whether the run's terminal UI places text by cursor address (its stream's order is not its screen's)."""
    return is_tty(rec, run_id) and _ADDRESSING.search(raw_bytes(rec, run_id, TTY)) is not None
