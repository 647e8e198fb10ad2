"""drop-result-type: cut exactly the `resultType` member out of the upstream's result, every other byte kept."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from backchannel.recordings.mutation_records import MutationRecord, Role

from ..json_edit import remove_member
from .base import MutationKind, ResultStep


@dataclass(frozen=True, slots=True, kw_only=True)
class DropResultTypeRecord(MutationRecord):
    """resultType was cut out of the upstream's text at [start, end) (removed: None when it had none)."""

    KIND: ClassVar[str] = "drop-result-type"
    ROLE: ClassVar[Role] = "result"
    index: int
    removed: str | None
    start: int | None = None
    end: int | None = None

    def valid(self) -> bool:
        return self.removed is None or (self.start is not None and self.end is not None)


@dataclass(frozen=True, slots=True)
class DropResultType(MutationKind):
    NAME: ClassVar[str] = "drop-result-type"
    RECORDS: ClassVar[tuple[type[MutationRecord], ...]] = (DropResultTypeRecord,)

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Self:
        return cls()

    def describe(self) -> str:
        return "remove the result's resultType member, every other byte as the server sent it"

    def on_result(self, index: int, text: str, step: ResultStep) -> str | None:
        if not isinstance(step.payload.get("result"), dict):
            return None  # an error answer has no resultType to drop
        removal = remove_member(text, ("result", "resultType"))
        if removal is None:
            step.records.append(DropResultTypeRecord(index=index, removed=None))
            return None
        record = DropResultTypeRecord(index=index, removed=removal.removed(text), start=removal.start, end=removal.end)
        step.records.append(record)
        return removal.text


KIND = DropResultType
