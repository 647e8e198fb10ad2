"""hold: delay the response by `ms`, as plain JSON (no bytes until ready) or as SSE with keep-alives and progress.

`"as": "sse"` sends the request through the loopback relay (addons/hold.py), which answers SSE at once with `:`
comment lines every `keepaliveMs` and, when the request carried a progressToken and `progress` is on,
`notifications/progress` events, then the upstream's answer. `"as": "json"` holds the buffered response.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self

from backchannel.recordings.mutation_records import MutationRecord, Role

from .base import DeliveryStep, MutationKind, Relay, RequestStep, one_of, whole


@dataclass(frozen=True, slots=True, kw_only=True)
class HoldRecord(MutationRecord):
    """The response was held for ms: as plain JSON (no bytes until ready) or as SSE with keep-alives."""

    KIND: ClassVar[str] = "hold"
    ROLE: ClassVar[Role] = "delivery"
    index: int
    as_: Literal["json", "sse"]
    ms: int


@dataclass(frozen=True, slots=True)
class Hold(MutationKind):
    NAME: ClassVar[str] = "hold"
    RECORDS: ClassVar[tuple[type[MutationRecord], ...]] = (HoldRecord,)
    ms: int = 0
    as_: Literal["json", "sse"] = "json"
    keepalive_ms: int = 500
    progress: bool = True

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Self:
        return cls(
            ms=whole(raw, "ms", 0, minimum=0),
            as_=one_of(raw, "as", ("json", "sse"), "json"),
            keepalive_ms=whole(raw, "keepaliveMs", 500, minimum=1),
            progress=bool(raw.get("progress", True)),
        )

    def describe(self) -> str:
        if self.as_ == "json":
            return f"hold the JSON response {self.ms} ms: no bytes until then"
        extra = " and progress notifications" if self.progress else ""
        return f"hold the response {self.ms} ms as SSE, with keep-alives every {self.keepalive_ms} ms{extra}"

    def on_request(self, index: int, step: RequestStep) -> bool:
        if self.as_ == "json":
            return True  # held in on_delivery
        if step.relay is None:  # else another mutation already routes this request through the relay
            step.relay = Relay(hold_ms=self.ms, keepalive_ms=self.keepalive_ms, progress=self.progress)
            step.records.append(HoldRecord(index=index, as_="sse", ms=self.ms))
        return False  # the relay does the rest

    def on_delivery(self, index: int, step: DeliveryStep) -> None:
        if self.as_ == "json":
            step.wait_s = max(step.wait_s, self.ms / 1000)
            step.records.append(HoldRecord(index=index, as_="json", ms=self.ms))


KIND = Hold
