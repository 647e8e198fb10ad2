"""Incremental, line-oriented SSE splitter and rewriter for a mitmproxy stream callable (pure, no I/O)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

_BOM = b"\xef\xbb\xbf"
_CR = 0x0D
_LF = 0x0A
_COLON = 0x3A
_BREAK = re.compile(rb"\r\n|\r|\n")
# what one held line costs beyond its bytes (the bytes object and the lists that point at it), charged against
# max_held so that an event of many tiny lines is bounded by the memory it takes, not by its length
LINE_COST = 64


@dataclass(frozen=True, slots=True)
class SseItem:
    """One reported unit of the stream: a comment line, a complete event, or an event cut off at EOF.

    ``data`` is always the upstream payload (what the transform was given); the rewrite is in client_raw.
    """

    kind: Literal["comment", "event", "truncated"]
    upstream_raw: bytes
    client_raw: bytes  # what the client got of it: b"" (or a prefix) when a mutation cut it off
    data: str | None
    event: str | None
    event_id: str | None
    changed: bool
    made_by: str | None = None  # the mutation kind, when the proxy made this item itself (a hold's keep-alive)
    cut_by: str | None = None  # the mutation kind that kept this item, or its tail, from the client
    client_data: str | None = None  # when changed: the data the client's SSE parser reads
    # when the item was too large to hold: its whole size in bytes. It went to the client as it arrived, unread and
    # unrewritten (data is None); upstream_raw and client_raw keep only its first bytes
    oversize: int = 0
    client_size: int = 0  # with oversize: how many of its bytes the client got


@dataclass(frozen=True, slots=True)
class StreamCut:
    """A transform's answer meaning: this event and everything after it never reach the client."""

    by: str  # the mutation kind that cut the stream


class SseLineSplitter:
    """Split a byte stream into lines, each keeping its own terminator (\\r\\n, \\n or \\r).

    A lone trailing \\r is held until the next chunk shows whether \\n follows.
    """

    __slots__ = ("_partial", "_cr")

    def __init__(self) -> None:
        # The pending partial line grows in place: a line arriving in many small chunks costs its bytes, not an object
        # per chunk, and is copied once when it ends.
        self._partial = bytearray()
        self._cr = False

    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:
            return []
        if not self._cr and b"\n" not in chunk and b"\r" not in chunk:
            self._partial += chunk
            return []
        if self._partial:
            self._partial += chunk
            data = bytes(self._partial)
        else:
            data = chunk
        # bytes.splitlines splits on exactly \r\n, \n and \r (unlike str.splitlines), in C.
        lines = data.splitlines(keepends=True)
        last = lines[-1]
        if last[-1] == _LF:
            self._partial = bytearray()
            self._cr = False
        else:
            # Either a partial line or one ending in \r that may yet turn out to be \r\n.
            lines.pop()
            self._partial = bytearray(last)
            self._cr = last[-1] == _CR
        return lines

    @property
    def size(self) -> int:
        """Bytes of the partial line held."""
        return len(self._partial)

    def peek(self, n: int) -> bytes:
        """The first n bytes of the partial line held, left held."""
        return bytes(self._partial[:n])

    def flush(self) -> bytes:
        rest = bytes(self._partial)
        self._partial = bytearray()
        self._cr = False
        return rest


class SseRewriter:
    """The stream callable core: forwards lines as soon as allowed, holding only an event's data lines.

    ``transform(data)`` is called once per complete event that has data; returning None (or the same
    string) keeps the upstream bytes, a new string replaces the data lines, a StreamCut withholds this
    event and everything after it from the client (the items are still reported, with client_raw b"" and
    cut_by set). If ``transform`` raises an Exception the event passes unchanged with changed=False, so a
    buggy rewrite never breaks the stream. Exceptions from ``on_item`` propagate: it is the caller's own
    recorder and must not raise.
    Once a data line is held, later lines of the same event (including comments) are held behind it,
    because forwarding them early would reorder the bytes; comments are still reported at once.
    ``hold_fields`` holds every field line of an event until it is complete (so a cut event leaks nothing).
    ``limit`` is how many bytes the client gets in all; past it nothing goes out, and the item straddling it
    is reported with the prefix the client got (a comment held inside an event counts where it was reported).
    At end of stream any open event (even one with only event:/id: lines) is reported as "truncated".
    ``max_held`` bounds what an upstream can make the proxy hold: a line that would take an event's bytes in memory
    (or a comment line's own) past it sends what was held on in upstream order, and the rest of that event (or
    line) goes to the client as it arrives: never given to the transform, reported once it ends as one item with
    ``oversize`` set and data None, keeping only its first ``keep`` bytes (default ``max_held``).
    """

    __slots__ = (
        "_transform",
        "_on_item",
        "_split",
        "_count",
        "_first_line",
        "_open",
        "_raw",
        "_sent",
        "_sent_marks",
        "_sent_given",
        "_held",
        "_held_other",
        "_data",
        "_data_term",
        "_event",
        "_id",
        "_size",
        "_hold_fields",
        "_cut",
        "_budget",
        "_budget_by",
        "_limit",
        "_emitted",
        "_sink",
        "_max_held",
        "_keep",
        "_passing",
        "_pass_len",
        "_pass_cr",
        "_pass_ending",
        "_pass_kept",
        "_pass_total",
        "_pass_given",
        "_pass_cut_by",
    )

    def __init__(
        self,
        transform: Callable[[str], str | StreamCut | None] | None = None,
        on_item: Callable[[SseItem], None] | None = None,
        *,
        hold_fields: bool = False,
        limit: int | None = None,
        limit_by: str = "disconnect",
        max_held: int | None = None,
        keep: int | None = None,
    ) -> None:
        self._transform = transform
        self._on_item = on_item
        self._split = SseLineSplitter()
        self._count = 0
        self._first_line = True
        self._hold_fields = hold_fields
        self._cut: str | None = None  # set once nothing more may reach the client: the mutation that cut it
        self._budget = limit  # bytes the client may still get (None: no limit)
        self._budget_by = limit_by
        self._limit = limit  # bytes the client gets in all
        self._emitted = 0  # bytes the client would have got before this call, were there no limit
        self._sink: list[bytes] = []  # where lines go once the stream is cut
        self._max_held = max_held  # the most bytes of one event (or line) held in memory; None: no bound
        self._keep = (max_held or 0) if keep is None else keep  # bytes of a too-large item kept for its report
        self._passing: Literal["event", "comment"] | None = None  # what is passing through unheld, if anything
        self._pass_len = 0  # bytes of the current line so far, while passing
        self._pass_cr = False  # the bytes passed so far ended in a \\r that a \\n may yet join
        self._pass_ending = False  # the passing item ended in that \\r
        self._pass_kept = bytearray()
        self._pass_total = 0
        self._pass_given = 0  # bytes of the passing item the client got
        self._pass_cut_by: str | None = None
        self._reset_event()

    def _reset_event(self) -> None:
        self._open = False  # the current event has at least one field line
        self._raw: list[bytes] = []  # upstream field lines of the event (no comments)
        self._sent: list[bytes] = []  # field lines forwarded before the first data line
        self._sent_marks: list[int] = []  # with a limit: where in this call's output the _sent lines of this call are
        self._sent_given = 0  # with a limit: bytes of _sent lines from earlier calls that reached the client
        self._held: list[bytes] = []  # everything withheld from the client, in upstream order
        self._held_other: list[bytes] = []  # the non-data lines among _held (kept verbatim on rewrite)
        self._data: list[bytes] = []  # raw data values, leading space already stripped
        self._data_term = b"\n"
        self._event: bytes | None = None
        self._id: bytes | None = None
        self._size = 0  # what the event holds in memory: its field lines and the comments held behind its data

    @property
    def items(self) -> int:
        return self._count

    @property
    def held(self) -> int:
        """Bytes of the stream held in memory now (each held line charged LINE_COST more), beyond what a too-large
        item keeps for its report."""
        return self._size + self._split.size

    def __call__(self, chunk: bytes) -> list[bytes]:
        out: list[bytes] = []
        if chunk:
            self._take(chunk, out)
        else:
            self._finish(out)
        self._sink.clear()
        if self._sent_marks:
            self._sent_given += self._given_at(out, self._sent_marks)
            self._sent_marks = []
        if not out:
            return []  # an empty list tells mitmproxy to write nothing yet
        frame = b"".join(out)  # one frame per call
        self._emitted += len(frame)
        if self._budget is not None:
            if len(frame) > self._budget:  # bytes withheld: from here on nothing reaches the client
                frame = frame[: self._budget]
                self._cut = self._cut or self._budget_by
            self._budget -= len(frame)
        return [frame] if frame else []

    def _to(self, out: list[bytes]) -> list[bytes]:
        return out if self._cut is None else self._sink

    def _given(self, at: int, size: int) -> int:
        """How many of `size` bytes that would start at client offset `at` reach the client under the limit."""
        return size if self._limit is None else max(0, min(size, self._limit - at))

    def _given_at(self, out: list[bytes], marks: list[int]) -> int:
        """Bytes of the pieces of this call's output at these indexes that reach the client."""
        chosen, at, given = set(marks), self._emitted, 0
        for index, piece in enumerate(out):
            if index in chosen:
                given += self._given(at, len(piece))
            at += len(piece)
        return given

    def _take(self, data: bytes, out: list[bytes]) -> None:
        while data:
            if self._passing is not None:
                data = self._pass(data, out)
                continue
            data = self._lines(self._split.feed(data), out)
            bound, size = self._max_held, self._split.size
            if data or bound is None or not size or self._size + size + LINE_COST <= bound:
                continue
            head = self._split.peek(4)
            if self._decided(head):
                data = self._split.flush()  # a line that does not end yet takes what is held past the bound
                self._start_pass(self._passes_as(head), out)

    def _lines(self, lines: list[bytes], out: list[bytes]) -> bytes:
        """Handle complete lines; at one that takes what is held past the bound, start passing and return it and the
        rest."""
        bound = self._max_held  # read once: this loop runs for every line of every stream
        for n, line in enumerate(lines):
            if bound is not None and self._size + len(line) + LINE_COST > bound and self._unbom(line).rstrip(b"\r\n"):
                rest = b"".join(lines[n:]) + self._split.flush()
                self._start_pass(self._passes_as(line), out)
                return rest
            self._line(line, out if self._cut is None else self._sink)
        return b""

    def _passes_as(self, head: bytes) -> Literal["event", "comment"]:
        """What passes once a line (or its start) takes what is held past max_held: a comment line the event would
        not hold passes alone (the event is still read), any other line takes its event with it."""
        if self._unbom(head)[:1] == b":" and not (self._data or (self._hold_fields and self._open)):
            return "comment"
        return "event"

    def _decided(self, head: bytes) -> bool:
        """Whether the start of a partial line shows what it is: a lone \\r (a blank line, or the start of one) and a
        BOM with nothing after it do not."""
        if self._first_line and _BOM.startswith(head[:3]):
            head = head[3:] if len(head) >= 3 else b""
        return head not in (b"", b"\r")

    def _unbom(self, line: bytes) -> bytes:
        """The line as the SSE parser reads it: the stream's one leading BOM ignored (the raw bytes keep it)."""
        return line[3:] if self._first_line and line.startswith(_BOM) else line

    def _finish(self, out: list[bytes]) -> None:
        """End of message: a leftover is either unterminated or ends in a \\r that is now final."""
        if self._passing is None:
            rest = self._split.flush()
            if rest:
                rest = self._lines([rest], out)
                if rest:
                    self._pass(rest, out)
        if self._passing is not None:
            self._end_pass(self._kind_at_end())
        if self._open:
            sink = self._to(out)
            sink.extend(self._held)
            raw = b"".join(self._raw)
            self._report("truncated", raw, raw, self._joined_data(), False, sink)
        self._reset_event()
        self._first_line = True
        self._pass_cr = False

    def _start_pass(self, kind: Literal["event", "comment"], out: list[bytes]) -> None:
        """A line outgrew max_held: for an event, what it held goes out in upstream order; the rest of the item passes
        as it comes (the caller hands it to _pass), unread, reported once it ends. A comment line the event would not
        have held passes on its own, and the event it sits in carries on."""
        self._first_line = False
        self._passing = kind
        self._pass_kept, self._pass_total, self._pass_given = bytearray(), 0, 0
        self._pass_len, self._pass_cr, self._pass_ending = 0, False, False
        sink = self._to(out)
        self._pass_cut_by = self._cut if sink is self._sink else None
        if kind == "comment":
            return
        # the client's share of the event so far: its lines sent before its data, then its held field lines
        if self._limit is None:
            given = 0 if sink is self._sink else sum(map(len, self._sent))
        else:
            given = self._sent_given + (self._given_at(out, self._sent_marks) if self._sent_marks else 0)
        if sink is not self._sink:
            at = self._emitted + sum(map(len, out))
            for line in self._held:
                if line[:1] != b":":  # a held comment was reported as its own item
                    given += self._given(at, len(line))
                at += len(line)
        sink.extend(self._held)
        raw = b"".join(self._raw)
        self._pass_kept = bytearray(raw[: self._keep])
        self._pass_total, self._pass_given = len(raw), given
        event, event_id = self._event, self._id
        self._reset_event()  # the held lines are the client's now: nothing of the event stays in memory
        self._event, self._id = event, event_id

    def _pass(self, data: bytes, out: list[bytes]) -> bytes:
        """Forward bytes of the passing item until it ends (a blank line ends an event, a line end a comment); return
        the bytes after it."""
        pos = 0
        if self._pass_cr:
            self._pass_cr = False
            if data[:1] == b"\n":
                pos = 1  # the \\n of a \\r\\n split across chunks: the same line end
        end = -1
        last = None
        if self._pass_ending:
            end = pos  # the item ended in a \\r last time: its \\n, if this is one, was all it still had
        else:
            for last in _BREAK.finditer(data, pos):
                length = self._pass_len + last.start() - pos
                pos = last.end()
                self._pass_len = 0
                if self._passing == "comment" or length == 0:
                    end = pos
                    break
        piece = data if end < 0 else data[:end]
        if piece:
            target = self._to(out)
            if target is not self._sink:
                self._pass_given += self._given(self._emitted + sum(map(len, out)), len(piece))
            target.append(piece)
            room = self._keep - len(self._pass_kept)
            if room > 0:
                self._pass_kept += piece[:room]
            self._pass_total += len(piece)
        self._pass_cr = last is not None and last.end() == len(data) and last.group() == b"\r"
        self._pass_ending = end >= 0
        if self._pass_ending and not (self._pass_cr and end == len(data)):
            self._end_pass(self._kind_at_end())
            return data[end:]
        # the item goes on, or ends in a \\r that a \\n in the next bytes would still belong to
        if end < 0:
            self._pass_len += len(data) - pos
        return b""

    def _kind_at_end(self) -> Literal["comment", "event", "truncated"]:
        """What a passing item is when its bytes stop: a comment line is a comment however it ended (it carries no
        message); an event its blank line ended is an event; any other event was cut off."""
        if self._passing == "comment":
            return "comment"
        return "event" if self._pass_ending else "truncated"

    def _end_pass(self, kind: Literal["comment", "event", "truncated"]) -> None:
        self._count += 1
        if self._on_item is not None:
            kept = bytes(self._pass_kept)
            client, cut_by = kept, None
            if self._pass_given < self._pass_total:
                client, cut_by = kept[: self._pass_given], self._pass_cut_by or self._budget_by
            ev, eid = self._names() if self._passing == "event" else (None, None)
            size, given = self._pass_total, self._pass_given
            self._on_item(
                SseItem(kind, kept, client, None, ev, eid, False, cut_by=cut_by, oversize=size, client_size=given)
            )
        if self._passing == "event":
            self._reset_event()
        self._passing = None
        self._pass_ending = False
        self._pass_kept = bytearray()
        self._pass_total = self._pass_given = 0
        self._pass_cut_by = None

    def abandon(self) -> None:
        """The proxy ends the stream itself (its upstream went silent): an open event is reported as truncated with
        only the lines the client already got; its held lines and an unterminated line never reach the client."""
        if self._passing is not None:
            self._end_pass(self._kind_at_end())  # its bytes have all gone out
        rest = self._split.flush()
        if self._open or rest:
            raw = b"".join(self._raw) + rest
            self._report("truncated", raw, b"".join(self._sent), self._joined_data(), False, [])
        self._reset_event()

    def _line(self, line: bytes, out: list[bytes]) -> None:
        body = line.rstrip(b"\r\n")  # a line holds no \r or \n except its terminator
        term = line[len(body) :]
        if self._first_line:
            body = self._unbom(body)  # the SSE spec ignores one leading BOM; raw bytes keep it
            self._first_line = False
        if not body:
            self._close(line, out)
            return
        if body[0] == _COLON:
            if self._data or (self._hold_fields and self._open):
                self._held.append(line)
                self._held_other.append(line)
                self._size += len(line) + LINE_COST
            else:
                out.append(line)
            self._count += 1
            if self._on_item is not None:
                self._emit("comment", line, line, None, None, None, False, out)
            return
        colon = body.find(b":")
        name = body if colon < 0 else body[:colon]
        self._open = True
        self._raw.append(line)
        self._size += len(line) + LINE_COST
        if name == b"data" or name == b"event" or name == b"id":
            value = b"" if colon < 0 else body[colon + 1 :]
            if value[:1] == b" ":
                value = value[1:]
            if name == b"data":
                if not self._data:
                    self._data_term = term
                self._data.append(value)
                self._held.append(line)
                return
            if name == b"event":
                self._event = value
            else:
                self._id = value
        if self._data or self._hold_fields:
            self._held.append(line)
            self._held_other.append(line)
        else:
            out.append(line)
            self._sent.append(line)
            if self._limit is not None and out is not self._sink:
                self._sent_marks.append(len(out) - 1)  # where it went, to count what of it the limit let through

    def _close(self, blank: bytes, out: list[bytes]) -> None:
        if not self._open:
            out.append(blank)  # a stray blank line dispatches nothing
            return
        upstream = b"".join(self._raw) + blank
        data = self._joined_data()
        new: str | None = None
        if data is not None and self._transform is not None:
            try:
                result = self._transform(data)
            except Exception:
                result = None
            # Returning the input unchanged must not re-serialise (it would lose invalid bytes / CR style).
            if isinstance(result, str) and result != data:
                new = result
            elif isinstance(result, StreamCut):
                self._cut = result.by  # this event's held lines and everything after go nowhere
                self._count += 1
                if self._on_item is not None:
                    ev, eid = self._names()
                    sent = b"".join(self._sent)
                    self._on_item(SseItem("event", upstream, sent, data, ev, eid, False, cut_by=result.by))
                self._reset_event()
                return
        if new is None:
            out.extend(self._held)
            out.append(blank)
            self._report("event", upstream, upstream, data, False, out)
        else:
            term = self._data_term
            # \r and \r\n cannot appear inside an SSE data value; as line breaks they become separate lines.
            client_data = new.replace("\r\n", "\n").replace("\r", "\n")
            payload = client_data.encode("utf-8", "replace")
            enc = b"data: " + (term + b"data: ").join(payload.split(b"\n")) + term
            # Held non-data lines go first so a \r-ended one can never fuse with a following \n.
            out.extend(self._held_other)
            out.append(enc)
            out.append(term)
            fields = [x for x in self._held_other if x[:1] != b":"]  # comments are their own items
            client = b"".join(self._sent) + b"".join(fields) + enc + term
            self._report("event", upstream, client, data, True, out, client_data)
        self._reset_event()

    def _joined_data(self) -> str | None:
        return b"\n".join(self._data).decode("utf-8", "replace") if self._data else None

    def _names(self) -> tuple[str | None, str | None]:
        ev = None if self._event is None else self._event.decode("utf-8", "replace")
        eid = None if self._id is None else self._id.decode("utf-8", "replace")
        return ev, eid

    def _report(
        self,
        kind: Literal["event", "truncated"],
        up: bytes,
        client: bytes,
        data: str | None,
        changed: bool,
        out: list[bytes],
        client_data: str | None = None,
    ) -> None:
        self._count += 1
        if self._on_item is not None:
            ev, eid = self._names()
            self._emit(kind, up, client, data, ev, eid, changed, out, client_data)

    def _emit(
        self,
        kind: Literal["comment", "event", "truncated"],
        up: bytes,
        client: bytes,
        data: str | None,
        ev: str | None,
        eid: str | None,
        changed: bool,
        out: list[bytes],
        client_data: str | None = None,
    ) -> None:
        """Report an item whose last client byte was just added to `out`, with what the client gets of it."""
        assert self._on_item is not None
        cut_by = None
        if out is self._sink:
            # an event's lines sent before its data (a prefix of what it reports) went out in earlier calls, as far as
            # the limit let them; of anything else the client got nothing
            client, cut_by = (b"" if kind == "comment" else client[: self._sent_given]), self._cut
        elif self._budget is not None:
            over = sum(map(len, out)) - self._budget  # this call's bytes past the limit: the tail of `out`
            if over > 0:
                client, cut_by = client[: max(0, len(client) - over)], self._budget_by
        self._on_item(SseItem(kind, up, client, data, ev, eid, changed, cut_by=cut_by, client_data=client_data))
