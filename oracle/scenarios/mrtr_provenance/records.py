"""The mutation records this scenario's checks judge by, as the oracle reads them.

The proxy's inject-input-requests and drop-result-type kinds write these records (addons/mutations/); the oracle
never imports an addon, so it declares its own typed reading of them here, through the generic record machinery of
recordings/ (the same JSON rule on both sides). tests/oracle/scenarios/mrtr_provenance/test_records.py holds each
reading equal to the writer's declaration, field for field, so the two cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from backchannel.recordings.mutation_records import MutationRecord, Role


@dataclass(frozen=True, slots=True, kw_only=True)
class InjectDecisionRecord(MutationRecord):
    """Whether, and which, input request inject-input-requests chose for this request, and why."""

    KIND: ClassVar[str] = "inject-decision"
    ROLE: ClassVar[Role] = "decision"
    index: int
    protocol_version: Any  # the request's _meta protocolVersion as the client sent it (any JSON value)
    chosen: str | None  # "fixed", a capability name, or None: nothing injected
    out_of_spec: bool = False  # sent although the client did not declare the capability
    reason: str | None = None


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
