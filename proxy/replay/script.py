"""What a replay serves: a recorded run turned into an ordered script of request → reply, and the ledger that
hands each reply out once, in order.

Two sides can be served. `client`: what the recorded client received (after the proxy's mutations), matched on
the request the client sent; this is `backchannel replay` on its own. `upstream`: what the upstream sent, matched
on what the proxy forwarded; this stands in for the original server behind a new proxy that re-applies the run's
plan (replay with `--out`), so the new recording holds the same mutations as the old one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from backchannel.proxy.replay.matchers import RequestView, differences, reported_differences
from backchannel.recordings.model import Exchange, Headers, Recording, Run

Side = Literal["client", "upstream"]
MAX_WAIT_S = 30.0  # one recorded wait, at most: a hostile recording must not hold a client for hours
FRAMING = frozenset({"content-length", "transfer-encoding", "connection", "keep-alive"})  # recomputed per response
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
# h11's field-value: no leading or trailing space or tab (an empty value is fine)
_FIELD_VALUE = re.compile(r"(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?")
BODILESS = (204, 304)  # statuses HTTP sends without a body, whatever the recording held


def servable_headers(headers: Headers) -> Headers:
    """The recorded headers HTTP can carry again: framing dropped (recomputed), and any a hostile recording made
    unsendable (a name that is not a token, a value with a line break) left out rather than sent broken."""
    return tuple(
        (k, v)
        for k, v in headers
        if k.lower() not in FRAMING and _TOKEN.fullmatch(k) and _FIELD_VALUE.fullmatch(v) and len(v) < 65536
    )


def servable_status(status: int | None) -> int | None:
    """A final status HTTP can send (200-599 or 1xx is not final); None, like no response, for anything else."""
    return status if status is not None and 200 <= status <= 599 else None


@dataclass(frozen=True, slots=True)
class SseItem:
    delay: float  # seconds after the previous item (or the response head) it was sent
    raw: bytes


@dataclass(frozen=True, slots=True)
class Reply:
    status: int | None  # None: the recorded exchange got no response (its error says why)
    headers: Headers
    body: bytes
    items: tuple[SseItem, ...] | None  # the SSE items of a streamed response, else None
    head_delay: float  # seconds between the request and the response head
    error: str | None


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int
    request: RequestView
    reply: Reply


def _delay(later: float | None, earlier: float | None) -> float:
    if later is None or earlier is None:
        return 0.0
    return min(MAX_WAIT_S, max(0.0, later - earlier))


def _items(rec: Recording, exchange: Exchange, side: Side) -> tuple[SseItem, ...] | None:
    if not exchange.streamed:
        return None
    events = sorted((e for e in rec.sse_events if e.flow_id == exchange.flow_id), key=lambda e: e.idx)
    if not events:
        return None
    items, previous = [], exchange.t_response
    for event in events:
        raw = event.client_raw if side == "client" else event.upstream_raw
        if raw is None:  # dropped on its way to the client, or added by the proxy: not this side's bytes
            continue
        items.append(SseItem(_delay(event.t, previous), raw))
        previous = event.t if event.t is not None else previous
    return tuple(items)


def entry_of(rec: Recording, exchange: Exchange, side: Side) -> Entry | None:
    """One exchange as a scripted entry; None when that side never saw it (the proxy answered it itself)."""
    if side == "upstream" and not exchange.forwarded:
        return None
    request_body = exchange.request_body if side == "client" else exchange.upstream_request_body
    body = exchange.response_body if side == "client" else exchange.upstream_response_body
    headers = exchange.response_headers if side == "client" else exchange.upstream_response_headers
    reply = Reply(
        status=servable_status(exchange.status),
        headers=servable_headers(headers),
        body=body or b"",
        items=_items(rec, exchange, side),
        head_delay=_delay(exchange.t_response, exchange.t_request),
        error=exchange.error,
    )
    return Entry(exchange.seq, RequestView.parse(exchange.method or "POST", request_body), reply)


def script_of(rec: Recording, run: Run, side: Side) -> tuple[Entry, ...]:
    """The run's exchanges in recorded order, as entries of one side."""
    entries = (entry_of(rec, x, side) for x in sorted(rec.exchanges_in(run.id), key=lambda x: x.seq))
    return tuple(e for e in entries if e is not None)


def pick_run(rec: Recording, wanted: str | None) -> Run:
    """The run named or numbered `wanted` (id, name or ordinal); by default the first run a client made requests in.

    Raises:
        LookupError: no such run, or the recording has no run with exchanges; the message lists the runs.
    """
    served = [r for r in rec.runs if any(True for _ in rec.exchanges_in(r.id))]
    if wanted is None:
        clients = [r for r in served if r.client_argv is not None] or served
        if not clients:
            raise LookupError(f"{rec.path} has no run with recorded exchanges: nothing to replay")
        return clients[0]
    for run in rec.runs:
        if wanted in (run.id, run.name, str(run.ordinal)):
            return run
    names = ", ".join(f"{r.name} ({r.id})" for r in rec.runs) or "none"
    raise LookupError(f"{rec.path} has no run {wanted!r}; its runs: {names}")


@dataclass(frozen=True, slots=True)
class Served:
    entry: Entry
    repeated: bool
    reported: tuple[str, ...]  # inputResponses fields that differ from the recorded client's


@dataclass(frozen=True, slots=True)
class Miss:
    closest: Entry | None
    differing: tuple[str, ...]

    def message(self, live: RequestView) -> str:
        if self.closest is None:
            return f"backchannel replay: the recording holds no request for this run to match {live.describe()}"
        fields = ", ".join(self.differing) or "none (every matching recorded reply was already used)"
        return (
            f"backchannel replay: no recorded request matches {live.describe()}; the closest is recorded exchange "
            f"#{self.closest.seq} ({self.closest.request.describe()}), differing in: {fields}"
        )


@dataclass
class Ledger:
    """Hands out each recorded reply once, the earliest unused match first; with `allow_repeats`, a request whose
    matches are all used gets the least-used one again (an SDK client that reconnects and starts over)."""

    entries: Sequence[Entry]
    allow_repeats: bool = False
    uses: dict[int, int] = field(default_factory=dict)

    def take(self, live: RequestView) -> Served | Miss:
        matching = [e for e in self.entries if not differences(live, e.request)]
        fresh = [e for e in matching if not self.uses.get(e.seq)]
        if fresh or (matching and self.allow_repeats):
            chosen = fresh[0] if fresh else min(matching, key=lambda e: self.uses.get(e.seq, 0))
            repeated = bool(self.uses.get(chosen.seq))
            self.uses[chosen.seq] = self.uses.get(chosen.seq, 0) + 1
            return Served(chosen, repeated, tuple(reported_differences(live, chosen.request)))
        if matching:
            return Miss(matching[-1], ())
        return self.closest(live)

    def closest(self, live: RequestView) -> Miss:
        best: Miss = Miss(None, ())
        for entry in self.entries:
            found = tuple(differences(live, entry.request))
            if best.closest is None or _distance(found) < _distance(best.differing):
                best = Miss(entry, found)
        return best

    def unused(self) -> list[Entry]:
        return [e for e in self.entries if not self.uses.get(e.seq)]


def _distance(fields: Sequence[str]) -> tuple[int, int]:
    # a different HTTP or JSON-RPC method is farther than any number of differing params
    methods = sum(1 for f in fields if f in ("http method", "method"))
    return methods, len(fields)
