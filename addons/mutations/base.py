"""What every mutation kind is: typed parameters parsed once from the plan, and its behaviour at each step of a flow.

A kind module defines one frozen dataclass subclassing MutationKind and exports it as `KIND`, and declares beside
it the records it leaves in an exchange's `mutations` column (frozen dataclasses subclassing MutationRecord, whose
JSON recordings/mutation_records.py derives from their fields), listed in the kind's RECORDS. The Rewriter calls
the same methods on every active mutation, in plan order, at each step of a flow; a kind overrides only the steps
it acts on. The steps carry what a kind may read and what it may ask the Rewriter to do; none touches mitmproxy, so
every kind is tested without sockets.

    answer       the request hook, first: answer without contacting the upstream (error)
    on_request   the request hook: decide and record; False drops the mutation for this flow
    on_headers   the responseheaders hook: close the connection now, or cut the body after N bytes
    on_result    each JSON-RPC message answering the request (a JSON body or an SSE event's data): rewrite it
    on_delivery  a buffered (JSON) response before it goes out: hold it, reframe it as SSE
    on_end       the response hook, after the body: close the connection instead of ending the response
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from backchannel.recordings.errors import UserError
from backchannel.recordings.mutation_records import MutationRecord


class PlanError(UserError, ValueError):
    """A plan that cannot be applied; the message names the mutation and the field."""


# ---------------------------------------------------------------------------------------------- the steps


@dataclass(frozen=True, slots=True)
class Answer:
    """The proxy answers the request itself: nothing goes upstream."""

    status: int
    body: bytes
    record: MutationRecord


@dataclass(frozen=True, slots=True)
class Relay:
    """Send the request through the loopback relay (addons/hold.py) instead of straight to the upstream.

    hold_ms set: answer SSE at once with keep-alives (and progress) until the upstream's answer is ready and the
    hold is over. Otherwise relay the upstream's answer as it is, delay_ms after its head arrived, and pace its SSE
    events between_events_ms apart.
    """

    hold_ms: int | None = None
    keepalive_ms: int = 500
    progress: bool = True
    delay_ms: int = 0
    between_events_ms: int = 0


@dataclass(slots=True)
class RequestStep:
    """One client request, as the active mutations see it before it goes upstream."""

    request: dict[str, Any]
    records: list[MutationRecord]
    injections: dict[int, Any] = field(default_factory=dict)  # plan index -> the inputRequests chosen for this flow
    relay: Relay | None = None  # the first mutation that needs the relay claims it


@dataclass(slots=True)
class HeadersStep:
    """The upstream's response head has arrived; the body has not been sent to the client yet."""

    sse: bool
    records: list[MutationRecord]
    kill: bool = False  # close the client's connection now: it gets no status line at all
    cut_after: int | None = None  # the client gets this many body bytes, then its connection is closed
    hold_events: bool = False  # SSE: hold each event's field lines until it is complete, so a cut event leaks nothing


@dataclass(slots=True)
class ResultStep:
    """One JSON-RPC message answering the client's request (a JSON body or one SSE event's data)."""

    request: dict[str, Any]
    payload: dict[str, Any]  # the upstream's message, parsed once
    records: list[MutationRecord]
    mint: Callable[[int], str]  # a fresh requestState for the mutation at this plan index
    injections: Mapping[int, Any]
    sse: bool  # the message is an SSE event's data (False: the whole JSON body)
    sse_idx: int = 0  # the event's item index in its stream
    cut: str | None = None  # set by a kind that ends the stream here: this event and the rest never reach the client


@dataclass(slots=True)
class DeliveryStep:
    """A buffered JSON response about to go out."""

    records: list[MutationRecord]
    wait_s: float = 0.0  # send nothing until this many seconds have passed
    to_sse: bool = False  # deliver the body as one SSE message event


@dataclass(slots=True)
class EndStep:
    """A streamed response whose upstream body has ended."""

    records: list[MutationRecord]
    sent: int  # body bytes the client got
    kill: bool = False  # close the client's connection instead of ending the response cleanly


# ---------------------------------------------------------------------------------------------- the base


@dataclass(frozen=True, slots=True)
class MutationKind:
    """A kind's typed parameters and behaviour. Subclasses set NAME and override parse, describe and their steps."""

    NAME: ClassVar[str] = ""
    RECORDS: ClassVar[tuple[type[MutationRecord], ...]] = ()  # the records it leaves (declared in its own module)

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Self:
        """Validate this kind's members of one plan entry; PlanError names the field (the caller names the entry)."""
        raise NotImplementedError

    def describe(self) -> str:
        """One human line saying what this mutation does, for `show`."""
        raise NotImplementedError

    def answer(self, index: int, request: dict[str, Any]) -> Answer | None:
        return None

    def on_request(self, index: int, step: RequestStep) -> bool:
        return True

    def on_headers(self, index: int, step: HeadersStep) -> None:
        return None

    def on_result(self, index: int, text: str, step: ResultStep) -> str | None:
        return None

    def on_delivery(self, index: int, step: DeliveryStep) -> None:
        return None

    def on_end(self, index: int, step: EndStep) -> None:
        return None


# ---------------------------------------------------------------------------------------------- validation helpers


def require(cond: bool, what: str) -> None:
    if not cond:
        raise PlanError(what)


def whole(raw: Mapping[str, Any], key: str, default: int | None, *, minimum: int) -> int:
    """A whole-number member (booleans are not numbers here); absent means `default` (None: required)."""
    require(key in raw or default is not None, f"{key} is required: a whole number >= {minimum}")
    value = raw.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise PlanError(f"{key} must be a whole number >= {minimum}")
    return value


def one_of[T: str](raw: Mapping[str, Any], key: str, options: tuple[T, ...], default: T) -> T:
    """A member that must be one of a few strings."""
    value = raw.get(key, default)
    for option in options:
        if value == option:
            return option
    quoted = [f"'{o}'" for o in options]
    raise PlanError(f"{key} must be {', '.join(quoted[:-1])} or {quoted[-1]}" if len(quoted) > 1 else quoted[0])
