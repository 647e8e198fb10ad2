"""truncate-sse: end an SSE stream before its response event.

Everything before the event answering the request goes out as it comes (notifications, comments); that event and
everything after it never reach the client, and the stream then ends cleanly (a well-formed end of the HTTP
response) without the answer. Each event's field lines are held until the event is complete, so not even the
`event:` line of the answer leaks. A JSON response is not a stream: nothing happens to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from backchannel.recordings.mutation_records import MutationRecord, Role

from .base import HeadersStep, MutationKind, ResultStep


@dataclass(frozen=True, slots=True, kw_only=True)
class TruncateSseRecord(MutationRecord):
    """The SSE stream ended before its response event (the item at `event`); the client never got the answer."""

    KIND: ClassVar[str] = "truncate-sse"
    ROLE: ClassVar[Role] = "fault"
    index: int
    event: int  # the stream's item index (sse_events.idx) of the response event that was held back


@dataclass(frozen=True, slots=True)
class TruncateSse(MutationKind):
    NAME: ClassVar[str] = "truncate-sse"
    RECORDS: ClassVar[tuple[type[MutationRecord], ...]] = (TruncateSseRecord,)

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Self:
        return cls()

    def describe(self) -> str:
        return "end the SSE stream before its response event: notifications only, then a clean close"

    def on_headers(self, index: int, step: HeadersStep) -> None:
        step.hold_events = True

    def on_result(self, index: int, text: str, step: ResultStep) -> str | None:
        if step.sse and step.cut is None:
            step.cut = self.NAME
            step.records.append(TruncateSseRecord(index=index, event=step.sse_idx))
        return None


KIND = TruncateSse
