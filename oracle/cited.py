"""What a piece of evidence points at in a recording: the one lookup the matrix's excerpts and a bug report's share.

Each kind is found the way a reader would look it up: a message, exchange, SSE item, anomaly or screen by its
sequence number, a run by its id, terminal bytes by run and stream (as the oracle reads them: a tty stream as plain
text, so the cited offsets are true), a lab file by path and run, a model request by its sequence number and the
text of one of its segments by the JSON path the evidence names (read as the oracle reads it, so offsets are true),
a person's answer (`check --by-hand`) by its sequence number.
How much of it to show, and how, is the caller's.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property

from backchannel.recordings.model import (
    Anomaly,
    Attestation,
    Exchange,
    LabFile,
    Message,
    ModelExchange,
    Recording,
    Run,
    ScreenSnapshot,
    SseEvent,
)

from .detectors.model_context import ModelContext, context_of
from .terminal import PIPED, TTY, TerminalStream, stream_bytes


class Cited:
    """Looks evidence up in one recording; each index is built once, when first asked (a page cites many items)."""

    def __init__(self, rec: Recording) -> None:
        self.rec = rec

    @cached_property
    def _messages(self) -> Mapping[int, Message]:
        return {m.seq: m for m in self.rec.messages}

    @cached_property
    def _exchanges(self) -> Mapping[int, Exchange]:
        return {x.seq: x for x in self.rec.exchanges}

    @cached_property
    def _sse(self) -> Mapping[int, SseEvent]:
        return {e.seq: e for e in self.rec.sse_events}

    @cached_property
    def _anomalies(self) -> Mapping[int, Anomaly]:
        return {a.seq: a for a in self.rec.anomalies}

    @cached_property
    def _screens(self) -> Mapping[int, ScreenSnapshot]:
        return {s.seq: s for s in self.rec.screens}

    @cached_property
    def _model(self) -> Mapping[int, ModelExchange]:
        return {x.seq: x for x in self.rec.model_exchanges}

    @cached_property
    def _attestations(self) -> Mapping[int, Attestation]:
        return {a.seq: a for a in self.rec.attestations}

    def model(self, seq: int | None) -> ModelExchange | None:
        return None if seq is None else self._model.get(seq)

    def model_text(self, seq: int | None, path: str | None) -> str | None:
        """The text of the segment at JSON `path` in model request `seq`, as the oracle read it; None when the
        request is not there, was not read, or has no segment at that path."""
        exchange = self.model(seq)
        context = context_of(exchange) if exchange is not None else None
        if not isinstance(context, ModelContext):
            return None
        return next((s.text for s in context.segments if s.path == path), None)

    def message(self, seq: int | None) -> Message | None:
        return None if seq is None else self._messages.get(seq)

    def exchange(self, seq: int | None) -> Exchange | None:
        return None if seq is None else self._exchanges.get(seq)

    def sse(self, seq: int | None) -> SseEvent | None:
        return None if seq is None else self._sse.get(seq)

    def anomaly(self, seq: int | None) -> Anomaly | None:
        return None if seq is None else self._anomalies.get(seq)

    def screen(self, seq: int | None) -> ScreenSnapshot | None:
        return None if seq is None else self._screens.get(seq)

    def attestation(self, seq: int | None) -> Attestation | None:
        return None if seq is None else self._attestations.get(seq)

    def run(self, run_id: str | None) -> Run | None:
        return next((r for r in self.rec.runs if r.id == run_id), None)

    def terminal(self, run_id: str | None, stream: str | None) -> TerminalStream | None:
        """The named stream of the run as the oracle reads it, or, none named, the first that holds bytes; None
        when the run wrote nothing there."""
        if run_id is None:
            return None
        for name in (stream,) if stream else (*PIPED, TTY):
            data = stream_bytes(self.rec, run_id, name)
            if data:
                return TerminalStream(name, data)
        return None

    def file(self, path: str | None, run_id: str | None) -> LabFile | None:
        """The lab file at `path` of the run (of any run when none is named)."""
        if path is None:
            return None
        return next((f for f in self.rec.files if f.path == path and run_id in (None, f.run_id)), None)
