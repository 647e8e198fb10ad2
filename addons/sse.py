"""Incremental, line-oriented SSE splitter and rewriter for a mitmproxy stream callable (pure, no I/O)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

_BOM = b"\xef\xbb\xbf"
_CR = 0x0D
_LF = 0x0A
_COLON = 0x3A


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


@dataclass(frozen=True, slots=True)
class StreamCut:
    """A transform's answer meaning: this event and everything after it never reach the client."""

    by: str  # the mutation kind that cut the stream


class SseLineSplitter:
    """Split a byte stream into lines, each keeping its own terminator (\\r\\n, \\n or \\r).

    A lone trailing \\r is held until the next chunk shows whether \\n follows.
    """

    __slots__ = ("_parts", "_cr")

    def __init__(self) -> None:
        # The pending partial line is kept as parts so a huge line arriving in many chunks is joined once.
        self._parts: list[bytes] = []
        self._cr = False

    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:
            return []
        if not self._cr and b"\n" not in chunk and b"\r" not in chunk:
            self._parts.append(chunk)
            return []
        if self._parts:
            self._parts.append(chunk)
            data = b"".join(self._parts)
        else:
            data = chunk
        # bytes.splitlines splits on exactly \r\n, \n and \r (unlike str.splitlines), in C.
        lines = data.splitlines(keepends=True)
        last = lines[-1]
        if last[-1] == _LF:
            self._parts = []
            self._cr = False
        else:
            # Either a partial line or one ending in \r that may yet turn out to be \r\n.
            lines.pop()
            self._parts = [last]
            self._cr = last[-1] == _CR
        return lines

    def flush(self) -> bytes:
        rest = b"".join(self._parts)
        self._parts = []
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
        "_held",
        "_held_other",
        "_data",
        "_data_term",
        "_event",
        "_id",
        "_hold_fields",
        "_cut",
        "_budget",
        "_budget_by",
        "_sink",
    )

    def __init__(
        self,
        transform: Callable[[str], str | StreamCut | None] | None = None,
        on_item: Callable[[SseItem], None] | None = None,
        *,
        hold_fields: bool = False,
        limit: int | None = None,
        limit_by: str = "disconnect",
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
        self._sink: list[bytes] = []  # where lines go once the stream is cut
        self._reset_event()

    def _reset_event(self) -> None:
        self._open = False  # the current event has at least one field line
        self._raw: list[bytes] = []  # upstream field lines of the event (no comments)
        self._sent: list[bytes] = []  # field lines forwarded before the first data line
        self._held: list[bytes] = []  # everything withheld from the client, in upstream order
        self._held_other: list[bytes] = []  # the non-data lines among _held (kept verbatim on rewrite)
        self._data: list[bytes] = []  # raw data values, leading space already stripped
        self._data_term = b"\n"
        self._event: bytes | None = None
        self._id: bytes | None = None

    @property
    def items(self) -> int:
        return self._count

    def __call__(self, chunk: bytes) -> list[bytes]:
        out: list[bytes] = []
        if chunk:
            for line in self._split.feed(chunk):
                self._line(line, out if self._cut is None else self._sink)
        else:
            # End of message: a leftover is either unterminated or ends in a \r that is now final.
            rest = self._split.flush()
            if rest:
                self._line(rest, out if self._cut is None else self._sink)
            if self._open:
                sink = out if self._cut is None else self._sink
                sink.extend(self._held)
                raw = b"".join(self._raw)
                self._report("truncated", raw, raw, self._joined_data(), False, sink)
            self._reset_event()
            self._first_line = True
        self._sink.clear()
        if not out:
            return []  # an empty list tells mitmproxy to write nothing yet
        frame = b"".join(out)  # one frame per call
        if self._budget is not None:
            if len(frame) >= self._budget:
                frame = frame[: self._budget]
                self._cut = self._cut or self._budget_by
            self._budget = max(0, self._budget - len(frame))
        return [frame] if frame else []

    def abandon(self) -> None:
        """The proxy ends the stream itself (its upstream went silent): an open event is reported as truncated with
        only the lines the client already got; its held lines and an unterminated line never reach the client."""
        rest = self._split.flush()
        if self._open or rest:
            raw = b"".join(self._raw) + rest
            self._report("truncated", raw, b"".join(self._sent), self._joined_data(), False, [])
        self._reset_event()

    def _line(self, line: bytes, out: list[bytes]) -> None:
        body = line.rstrip(b"\r\n")  # a line holds no \r or \n except its terminator
        term = line[len(body) :]
        if self._first_line:
            self._first_line = False
            if body.startswith(_BOM):  # the SSE spec ignores one leading BOM; raw bytes keep it
                body = body[3:]
        if not body:
            self._close(line, out)
            return
        if body[0] == _COLON:
            if self._data or (self._hold_fields and self._open):
                self._held.append(line)
                self._held_other.append(line)
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
            client, cut_by = b"", self._cut
        elif self._budget is not None:
            over = sum(map(len, out)) - self._budget  # this call's bytes past the limit: the tail of `out`
            if over > 0:
                client, cut_by = client[: max(0, len(client) - over)], self._budget_by
        self._on_item(SseItem(kind, up, client, data, ev, eid, changed, cut_by=cut_by, client_data=client_data))
