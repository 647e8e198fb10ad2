"""What a piece of evidence points at, cut out of the recording: the wire message, the terminal bytes, the file.

Every string leaves here neutralised (control, escape and bidi characters made visible); HTML escaping is the
template's job. Excerpts are bounded, so a recording of any size makes pages of a readable size.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property

from backchannel.oracle.model import Evidence
from backchannel.oracle.render.text import evidence_line
from backchannel.oracle.terminal import stream_bytes
from backchannel.recordings import redact
from backchannel.recordings.model import Recording
from backchannel.recordings.safe_text import neutralise

WIRE_CHARS = 4000  # of one message or body
CONTEXT_BYTES = 240  # shown either side of cited terminal or file bytes
CITED_BYTES = 2000  # of the cited bytes themselves


@dataclass(frozen=True, slots=True)
class Excerpt:
    """One evidence item: its one-line description and the text around it; `cited` is the part it points at."""

    label: str
    before: str = ""
    cited: str = ""
    after: str = ""

    @property
    def empty(self) -> bool:
        return not (self.before or self.cited or self.after)


def _bounded(text: str, limit: int = WIRE_CHARS) -> str:
    return text if len(text) <= limit else f"{text[:limit]}\n… ({len(text) - limit} more characters)"


def _decoded(data: bytes | None) -> str:
    return "" if data is None else data.decode("utf-8", errors="replace")


def _pretty(text: str) -> str:
    """JSON indented for reading (keys in their recorded order), secrets redacted again (the site is published, and
    the file may come from a recorder that missed one); anything else as it is, redacted."""
    text = redact.redact_json_text(text)
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return text


class Excerpter:
    """Looks evidence up in one recording (indexes built once: a page cites many items of the same recording)."""

    def __init__(self, rec: Recording) -> None:
        self.rec = rec

    @cached_property
    def _messages(self) -> dict[int, str]:
        return {m.seq: f"{m.direction} {m.kind} {m.method or ''}\n{_pretty(m.text)}" for m in self.rec.messages}

    @cached_property
    def _exchanges(self) -> dict[int, str]:
        out = {}
        for x in self.rec.exchanges:
            head = (
                f"{x.method or '?'} {x.path or '?'} → {x.status if x.status is not None else x.error or 'no response'}"
            )
            request = _bounded(_pretty(_decoded(x.request_body)))
            response = _bounded(_pretty(_decoded(x.response_body)))
            out[x.seq] = f"{head}\n\nrequest body:\n{request}\n\nresponse body (as the client saw it):\n{response}"
        return out

    @cached_property
    def _sse(self) -> dict[int, str]:
        return {
            e.seq: f"{e.kind} ({e.origin})\n{_decoded(redact.redact_json_bytes(e.client_raw))}"
            for e in self.rec.sse_events
        }

    @cached_property
    def _anomalies(self) -> dict[int, str]:
        return {a.seq: f"{a.kind}: {a.detail}" for a in self.rec.anomalies}

    def _wire(self, table: dict[int, str], seq: int | None) -> str:
        return "" if seq is None else _bounded(table.get(seq, f"(#{seq} is not in the recording)"))

    def _terminal(self, ev: Evidence, run: str | None) -> bytes:
        if run is None:
            return b""
        streams = (ev.stream,) if ev.stream else ("stdout", "stderr", "tty")  # none named: the one with bytes
        for stream in streams:
            data = stream_bytes(self.rec, run, stream)  # a tty stream as the oracle read it: plain text
            if data:
                return data
        return b""

    def _file(self, ev: Evidence, run: str | None) -> bytes:
        for f in self.rec.files:
            if f.path == ev.path and (run is None or f.run_id == run) and f.data is not None:
                return f.data
        return b""

    def _bytes_excerpt(self, label: str, data: bytes, ev: Evidence) -> Excerpt:
        data = redact.redact_output(data, "matrix")  # masked at the same length: the cited offsets stay true
        if ev.offset is None:  # the whole stream or file is the evidence: its start
            return Excerpt(label, cited=neutralise(_bounded(_decoded(data[:CITED_BYTES]), CITED_BYTES)))
        start = max(ev.offset, 0)
        end = start + min(ev.length if ev.length is not None else 0, CITED_BYTES)
        return Excerpt(
            label,
            before=neutralise(_decoded(data[max(start - CONTEXT_BYTES, 0) : start])),
            cited=neutralise(_decoded(data[start:end])),
            after=neutralise(_decoded(data[end : end + CONTEXT_BYTES])),
        )

    def excerpt(self, ev: Evidence, result_run: str | None) -> Excerpt:
        """The evidence's description and what it cites; an item citing nothing readable has a label only."""
        label = evidence_line(ev)
        run = ev.run or result_run
        if ev.kind == "message":
            return Excerpt(label, cited=neutralise(self._wire(self._messages, ev.seq)))
        if ev.kind == "exchange":
            return Excerpt(label, cited=neutralise(self._wire(self._exchanges, ev.seq)))
        if ev.kind == "sse":
            return Excerpt(label, cited=neutralise(self._wire(self._sse, ev.seq)))
        if ev.kind == "anomaly":
            return Excerpt(label, cited=neutralise(self._wire(self._anomalies, ev.seq)))
        if ev.kind == "terminal":
            return self._bytes_excerpt(label, self._terminal(ev, run), ev)
        if ev.kind == "file":
            return self._bytes_excerpt(label, self._file(ev, run), ev)
        return Excerpt(label)
