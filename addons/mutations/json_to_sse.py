"""json-to-sse: deliver a JSON response as one SSE `message` event."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from backchannel.recordings.mutation_records import MutationRecord, Role

from .base import DeliveryStep, MutationKind


@dataclass(frozen=True, slots=True, kw_only=True)
class JsonToSseRecord(MutationRecord):
    """The JSON response was delivered as one SSE message event."""

    KIND: ClassVar[str] = "json-to-sse"
    ROLE: ClassVar[Role] = "delivery"
    index: int


@dataclass(frozen=True, slots=True)
class JsonToSse(MutationKind):
    NAME: ClassVar[str] = "json-to-sse"
    RECORDS: ClassVar[tuple[type[MutationRecord], ...]] = (JsonToSseRecord,)

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Self:
        return cls()

    def describe(self) -> str:
        return "deliver the JSON response as one SSE message event"

    def on_delivery(self, index: int, step: DeliveryStep) -> None:
        step.to_sse = True
        step.records.append(JsonToSseRecord(index=index))


KIND = JsonToSse
