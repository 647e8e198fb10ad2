"""delay: the upstream's answer reaches the client `ms` late: all of it ("response"), or each SSE event after the
first ("between-events").

Both go through the loopback relay (addons/hold.py), which fetches the upstream's answer as it streams and passes
it on unchanged: "response" waits `ms` after the upstream's head arrives before sending anything; "between-events"
sends the head and the first event at once and waits `ms` before each later event (comment lines outside events
pass at once; a JSON answer passes unpaced). mitmproxy's stream callable is synchronous, so pacing cannot happen
inside the proxy's own stream without stalling every other flow.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self

from backchannel.recordings.mutation_records import MutationRecord, Role

from .base import MutationKind, Relay, RequestStep, one_of, whole


@dataclass(frozen=True, slots=True, kw_only=True)
class DelayRecord(MutationRecord):
    """The response was delayed by ms: before it went out ("response"), or before each SSE event after the first."""

    KIND: ClassVar[str] = "delay"
    ROLE: ClassVar[Role] = "delivery"
    index: int
    where: Literal["response", "between-events"]
    ms: int


@dataclass(frozen=True, slots=True)
class Delay(MutationKind):
    NAME: ClassVar[str] = "delay"
    RECORDS: ClassVar[tuple[type[MutationRecord], ...]] = (DelayRecord,)
    ms: int
    where: Literal["response", "between-events"] = "response"

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Self:
        return cls(
            ms=whole(raw, "ms", None, minimum=0), where=one_of(raw, "where", ("response", "between-events"), "response")
        )

    def describe(self) -> str:
        if self.where == "response":
            return f"delay the response {self.ms} ms after the upstream answered"
        return f"delay each SSE event after the first by {self.ms} ms"

    def on_request(self, index: int, step: RequestStep) -> bool:
        if step.relay is not None:
            return False  # another mutation already routes this request through the relay
        if self.where == "response":
            step.relay = Relay(delay_ms=self.ms)
        else:
            step.relay = Relay(between_events_ms=self.ms)
        step.records.append(DelayRecord(index=index, where=self.where, ms=self.ms))
        return False  # the relay does it all; nothing left for the later steps


KIND = Delay
