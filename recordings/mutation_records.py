"""Typed records of what the proxy did to one exchange: the `mutations` JSON column of an exchange row.

The proxy builds one record per mutation it applied (`to_json()` gives exactly the JSON it has always written, so
older recordings read and judge the same); the oracle reads them back with `parse_mutation_record`, which never
raises: a recording from elsewhere is untrusted input, and an object it cannot read is an UnknownMutationRecord.

Each record names its ROLE, which says what it did to the exchange's messages:
request (the client's request was changed), result (the text of the answer was changed), delivery (the answer
arrived differently: later, or reframed), answer (the proxy answered itself), fault (the answer never arrived
whole), decision (a choice was made, nothing changed on the wire).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self

Role = Literal["request", "result", "delivery", "answer", "fault", "decision"]


def _int(value: object) -> int | None:
    """A JSON integer (JSON has no booleans-as-numbers; Python's bool is not accepted as one)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _opt_str(obj: Mapping[str, Any], key: str) -> tuple[bool, str | None]:
    """(valid, value) of an optional string member: absent or null is (True, None)."""
    value = obj.get(key)
    return (value is None or isinstance(value, str)), (value if isinstance(value, str) else None)


@dataclass(frozen=True, slots=True, kw_only=True)
class InjectDecisionRecord:
    """Whether, and which, input request inject-input-requests chose for this request, and why."""

    KIND: ClassVar[str] = "inject-decision"
    ROLE: ClassVar[Role] = "decision"
    index: int
    protocol_version: Any  # the request's _meta protocolVersion as the client sent it (any JSON value)
    chosen: str | None  # "fixed", a capability name, or None: nothing injected
    out_of_spec: bool = False  # sent although the client did not declare the capability
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.KIND,
            "index": self.index,
            "protocolVersion": self.protocol_version,
            "chosen": self.chosen,
        }
        if self.out_of_spec:
            out["outOfSpec"] = True
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self | None:
        index, out_of_spec = _int(obj.get("index")), obj.get("outOfSpec", False)
        chosen_ok, chosen = _opt_str(obj, "chosen")
        reason_ok, reason = _opt_str(obj, "reason")
        if index is None or not chosen_ok or not reason_ok or not isinstance(out_of_spec, bool):
            return None
        version = obj.get("protocolVersion")
        return cls(index=index, protocol_version=version, chosen=chosen, out_of_spec=out_of_spec, reason=reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class InjectInputRequestsRecord:
    """The result became input_required with injected inputRequests and this minted requestState."""

    KIND: ClassVar[str] = "inject-input-requests"
    ROLE: ClassVar[Role] = "result"
    index: int
    request_state: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.KIND, "index": self.index, "requestState": self.request_state}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self | None:
        index, state = _int(obj.get("index")), obj.get("requestState")
        if index is None or not isinstance(state, str):
            return None
        return cls(index=index, request_state=state)


@dataclass(frozen=True, slots=True, kw_only=True)
class DropResultTypeRecord:
    """resultType was cut out of the upstream's text at [start, end) (removed: None when it had none)."""

    KIND: ClassVar[str] = "drop-result-type"
    ROLE: ClassVar[Role] = "result"
    index: int
    removed: str | None
    start: int | None = None
    end: int | None = None

    def to_json(self) -> dict[str, Any]:
        if self.removed is None:
            return {"kind": self.KIND, "index": self.index, "removed": None}
        return {"kind": self.KIND, "index": self.index, "removed": self.removed, "start": self.start, "end": self.end}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self | None:
        index, removed = _int(obj.get("index")), obj.get("removed")
        if index is None:
            return None
        if removed is None:
            return cls(index=index, removed=None)
        start, end = _int(obj.get("start")), _int(obj.get("end"))
        if not isinstance(removed, str) or start is None or end is None:
            return None
        return cls(index=index, removed=removed, start=start, end=end)


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerInputRequiredRecord:
    """A retry carrying our requestState: its inputResponses were recorded and the original call forwarded."""

    KIND: ClassVar[str] = "answer-input-required"
    ROLE: ClassVar[Role] = "request"
    input_responses: Any  # as the client sent them (any JSON value)
    request_state: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.KIND, "inputResponses": self.input_responses, "requestState": self.request_state}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self | None:
        state = obj.get("requestState")
        if not isinstance(state, str):
            return None
        return cls(input_responses=obj.get("inputResponses"), request_state=state)


@dataclass(frozen=True, slots=True, kw_only=True)
class RejectRequestStateRecord:
    """A retry whose requestState was tampered with, minted for another run, or already used: -32602."""

    KIND: ClassVar[str] = "reject-request-state"
    ROLE: ClassVar[Role] = "answer"
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.KIND, "reason": self.reason}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self | None:
        reason = obj.get("reason")
        return cls(reason=reason) if isinstance(reason, str) else None


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorRecord:
    """The proxy answered with a JSON-RPC error and this HTTP status, without contacting the upstream."""

    KIND: ClassVar[str] = "error"
    ROLE: ClassVar[Role] = "answer"
    index: int
    status: int
    code: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.KIND, "index": self.index, "status": self.status, "code": self.code}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self | None:
        index, status, code = _int(obj.get("index")), _int(obj.get("status")), _int(obj.get("code"))
        if index is None or status is None or code is None:
            return None
        return cls(index=index, status=status, code=code)


@dataclass(frozen=True, slots=True, kw_only=True)
class HoldRecord:
    """The response was held for ms: as plain JSON (no bytes until ready) or as SSE with keep-alives."""

    KIND: ClassVar[str] = "hold"
    ROLE: ClassVar[Role] = "delivery"
    index: int
    as_: Literal["json", "sse"]
    ms: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.KIND, "index": self.index, "as": self.as_, "ms": self.ms}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self | None:
        index, as_, ms = _int(obj.get("index")), obj.get("as"), _int(obj.get("ms"))
        if index is None or ms is None:
            return None
        if as_ == "json":
            return cls(index=index, as_="json", ms=ms)
        if as_ == "sse":
            return cls(index=index, as_="sse", ms=ms)
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class JsonToSseRecord:
    """The JSON response was delivered as one SSE message event."""

    KIND: ClassVar[str] = "json-to-sse"
    ROLE: ClassVar[Role] = "delivery"
    index: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.KIND, "index": self.index}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self | None:
        index = _int(obj.get("index"))
        return None if index is None else cls(index=index)


@dataclass(frozen=True, slots=True, kw_only=True)
class DelayRecord:
    """The response was delayed by ms: before it went out ("response"), or before each SSE event after the first."""

    KIND: ClassVar[str] = "delay"
    ROLE: ClassVar[Role] = "delivery"
    index: int
    where: Literal["response", "between-events"]
    ms: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.KIND, "index": self.index, "where": self.where, "ms": self.ms}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self | None:
        index, where, ms = _int(obj.get("index")), obj.get("where"), _int(obj.get("ms"))
        if index is None or ms is None:
            return None
        if where == "response":
            return cls(index=index, where="response", ms=ms)
        if where == "between-events":
            return cls(index=index, where="between-events", ms=ms)
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class DisconnectRecord:
    """The proxy closed the client's connection: before the response ("before-response") or after `sent` body bytes."""

    KIND: ClassVar[str] = "disconnect"
    ROLE: ClassVar[Role] = "fault"
    index: int
    where: Literal["body", "before-response"]
    after_bytes: int | None  # as the plan asked (None: before the response)
    sent: int  # response body bytes the client got before the close

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.KIND,
            "index": self.index,
            "where": self.where,
            "afterBytes": self.after_bytes,
            "sent": self.sent,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self | None:
        index, where, sent = _int(obj.get("index")), obj.get("where"), _int(obj.get("sent"))
        after, raw_after = _int(obj.get("afterBytes")), obj.get("afterBytes")
        if index is None or sent is None or (raw_after is not None and after is None):
            return None
        if where == "body":
            return cls(index=index, where="body", after_bytes=after, sent=sent)
        if where == "before-response":
            return cls(index=index, where="before-response", after_bytes=after, sent=sent)
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class MalformedRecord:
    """The answer's text was replaced by one that is not valid JSON-RPC, of this shape."""

    KIND: ClassVar[str] = "malformed"
    ROLE: ClassVar[Role] = "result"
    index: int
    shape: str  # not-json, no-jsonrpc-field, wrong-id or body

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.KIND, "index": self.index, "shape": self.shape}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self | None:
        index, shape = _int(obj.get("index")), obj.get("shape")
        if index is None or not isinstance(shape, str):
            return None
        return cls(index=index, shape=shape)


@dataclass(frozen=True, slots=True, kw_only=True)
class TruncateSseRecord:
    """The SSE stream ended before its response event (the item at `event`); the client never got the answer."""

    KIND: ClassVar[str] = "truncate-sse"
    ROLE: ClassVar[Role] = "fault"
    index: int
    event: int  # the stream's item index (sse_events.idx) of the response event that was held back

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.KIND, "index": self.index, "event": self.event}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self | None:
        index, event = _int(obj.get("index")), _int(obj.get("event"))
        if index is None or event is None:
            return None
        return cls(index=index, event=event)


@dataclass(frozen=True, slots=True, kw_only=True)
class UnknownMutationRecord:
    """A record this version cannot read: an unknown kind, or a known kind with members of the wrong shape."""

    ROLE: ClassVar[Role] = "decision"
    kind: str | None  # the kind it claims, if it names one as a string
    raw: object  # the JSON value as it was stored

    def to_json(self) -> object:
        return self.raw


MutationRecord = (
    InjectDecisionRecord
    | InjectInputRequestsRecord
    | DropResultTypeRecord
    | AnswerInputRequiredRecord
    | RejectRequestStateRecord
    | ErrorRecord
    | HoldRecord
    | JsonToSseRecord
    | DelayRecord
    | DisconnectRecord
    | MalformedRecord
    | TruncateSseRecord
)

_CLASSES = (
    InjectDecisionRecord,
    InjectInputRequestsRecord,
    DropResultTypeRecord,
    AnswerInputRequiredRecord,
    RejectRequestStateRecord,
    ErrorRecord,
    HoldRecord,
    JsonToSseRecord,
    DelayRecord,
    DisconnectRecord,
    MalformedRecord,
    TruncateSseRecord,
)
_PARSERS: dict[str, Callable[[Mapping[str, Any]], MutationRecord | None]] = {
    cls.KIND: cls.from_json for cls in _CLASSES
}
RECORD_KINDS = tuple(_PARSERS)


def parse_mutation_record(obj: object) -> MutationRecord | UnknownMutationRecord:
    """Read one stored record; anything that is not a well-formed record of a known kind is Unknown (never raises).

    A record that is already typed is returned as it is, so callers need not know whether it was parsed before.
    """
    if isinstance(obj, (*_CLASSES, UnknownMutationRecord)):
        return obj
    if not isinstance(obj, Mapping):
        return UnknownMutationRecord(kind=None, raw=obj)
    kind = obj.get("kind")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    found = None
    if parser is not None:
        try:
            found = parser(obj)
        except (TypeError, ValueError, KeyError, AttributeError):  # a Mapping from elsewhere may misbehave
            found = None
    return found if found is not None else UnknownMutationRecord(kind=kind if isinstance(kind, str) else None, raw=obj)


def parse_mutation_records(objs: object) -> tuple[MutationRecord | UnknownMutationRecord, ...]:
    """Every record of an exchange's mutations column (a non-list is one Unknown record)."""
    if isinstance(objs, list | tuple):
        return tuple(parse_mutation_record(obj) for obj in objs)
    return (UnknownMutationRecord(kind=None, raw=objs),)
