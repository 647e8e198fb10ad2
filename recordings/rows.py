"""Typed rows: everything written to a recording goes through one of these.

Each record names its TABLE and COLUMNS, taken from the table's declaration (tables.py: a whole row's columns, or
some picked by name, checked as the module loads), and gives `values()`, a tuple in COLUMNS order with JSON columns
already encoded but nothing redacted: the writer passes each value through its column's rule (cell_rules.py, derived
from the declarations) and binds the result, so no column is written unredacted whoever built the row. An exchange
row is written in parts: its request side (kept until the flow ends) with one outcome, then later outcomes as updates
keyed by the flow id. A run is inserted once, then changed.
Records are built on the proxy's hot path, so they validate nothing: the schema is checked once per record type.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, dataclass_transform

from . import tables
from .json_form import json_text
from .model import Direction
from .shapes import RunDetail

# (name, value) pairs in order, as text or as the raw bytes mitmproxy holds (decoded as Latin-1 when written)
HeaderPairs = Sequence[tuple[str, str]] | Sequence[tuple[bytes, bytes]]


@dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(field,))
def row_record[R](cls: type[R]) -> type[R]:
    """A row record: a keyword-only dataclass with slots, frozen to the type checker (mypy rejects any assignment).

    Not frozen at runtime: a frozen dataclass sets each field through object.__setattr__, which made a message row
    cost 3.0 µs instead of 0.9 µs to build, about 8 µs more per exchange on the proxy's hot path.
    """
    return dataclass(slots=True, kw_only=True)(cls)


class SupportsToJson(Protocol):
    def to_json(self) -> dict[str, Any]: ...


MutationEntries = Sequence[dict[str, Any] | SupportsToJson]  # what the proxy did to an exchange (mutation records)


def _mutations(entries: MutationEntries) -> str:
    return json_text([e if isinstance(e, dict) else e.to_json() for e in entries])


def _headers(pairs: HeaderPairs | None) -> list[tuple[str, str]] | None:
    """A header column's pairs as text (raw bytes decoded as Latin-1); its rule redacts and encodes them."""
    if pairs is None:
        return None
    return [(_latin1(n), _latin1(v)) for n, v in pairs]


def _latin1(value: str | bytes) -> str:
    return value if isinstance(value, str) else value.decode("latin-1")


# ---------------------------------------------------------------------------------------------- inserted rows


@row_record
class MessageRow:
    """One JSON-RPC message as it crossed the proxy; `text` is what the receiving side got."""

    TABLE: ClassVar[str] = tables.MESSAGES.name
    COLUMNS: ClassVar[tuple[str, ...]] = tables.MESSAGES.written()
    direction: Direction
    kind: str
    text: str
    run_id: str | None = None
    flow_id: str | None = None
    sse_idx: int | None = None
    jsonrpc_id: str | None = None  # the id as JSON text
    method: str | None = None
    upstream_text: str | None = None  # what the other side sent, when the proxy changed it
    mutation: str | None = None
    t: float | None = None

    def values(self) -> tuple[object, ...]:
        return (
            self.run_id, self.flow_id, self.sse_idx, self.direction, self.kind, self.jsonrpc_id, self.method,
            self.text, self.upstream_text, self.mutation, self.t,
        )  # fmt: skip


@row_record
class SseItemRow:
    """One SSE item (event, comment or truncated tail) as it passed, with both byte truths."""

    TABLE: ClassVar[str] = tables.SSE_EVENTS.name
    COLUMNS: ClassVar[tuple[str, ...]] = tables.SSE_EVENTS.written()
    flow_id: str
    idx: int
    kind: str  # event | comment | truncated
    origin: str  # upstream | proxy
    run_id: str | None = None
    upstream_raw: bytes | None = None
    client_raw: bytes | None = None
    t: float | None = None

    def values(self) -> tuple[object, ...]:
        return (self.run_id, self.flow_id, self.idx, self.kind, self.origin, self.upstream_raw, self.client_raw, self.t)


@row_record
class AnomalyRow:
    """Something on the wire that was not what the protocol allows, or a failure around it."""

    TABLE: ClassVar[str] = tables.ANOMALIES.name
    COLUMNS: ClassVar[tuple[str, ...]] = tables.ANOMALIES.written()
    kind: str
    detail: str
    run_id: str | None = None
    flow_id: str | None = None
    t: float | None = None

    def values(self) -> tuple[object, ...]:
        return (self.run_id, self.flow_id, self.kind, self.detail, self.t)


@row_record
class TerminalChunkRow:
    """Bytes the client process wrote to stdout or stderr, at a byte offset within that stream."""

    TABLE: ClassVar[str] = tables.TERMINAL.name
    COLUMNS: ClassVar[tuple[str, ...]] = tables.TERMINAL.written()
    run_id: str
    stream: str
    offset: int
    data: bytes
    t: float | None = None

    def values(self) -> tuple[object, ...]:
        return (self.run_id, self.stream, self.offset, self.data, self.t)


@row_record
class ScreenRow:
    """A snapshot of the screen of a client run under a terminal: its rendered rows, the cursor, why it was taken."""

    TABLE: ClassVar[str] = tables.SCREENS.name
    COLUMNS: ClassVar[tuple[str, ...]] = tables.SCREENS.written()
    run_id: str
    reason: str  # waiting | answered | typed | exit | timeout | ended
    cols: int
    rows: int
    cursor_row: int
    cursor_col: int
    text: str  # the rendered rows, right-stripped, joined by \n
    answer_pattern: str | None = None
    answer_text: str | None = None
    t: float | None = None

    def values(self) -> tuple[object, ...]:
        # SQLite takes only whole UTF-8: a lone surrogate the screen held is written as U+FFFD
        text = self.text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        typed = None
        if self.answer_text is not None:
            typed = self.answer_text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        return (
            self.run_id, self.t, self.reason, self.cols, self.rows, self.cursor_row, self.cursor_col, text,
            self.answer_pattern, typed,
        )  # fmt: skip


@row_record
class FileRow:
    """A text file the client left under its lab HOME, path relative to HOME."""

    TABLE: ClassVar[str] = tables.FILES.name
    COLUMNS: ClassVar[tuple[str, ...]] = tables.FILES.written()
    run_id: str
    path: str
    size: int
    data: bytes | None
    truncated: bool = False

    def values(self) -> tuple[object, ...]:
        return (self.run_id, self.path, self.size, self.data, int(self.truncated))


@row_record
class UrlHitRow:
    """A request that reached a loopback server standing behind a URL the server asked the client to open."""

    TABLE: ClassVar[str] = tables.URL_HITS.name
    COLUMNS: ClassVar[tuple[str, ...]] = tables.URL_HITS.written()
    server: str
    method: str
    path: str
    headers: HeaderPairs = ()
    run_id: str | None = None
    t: float | None = None

    def values(self) -> tuple[object, ...]:
        return (self.run_id, self.server, self.method, self.path, _headers(self.headers), self.t)


@row_record
class OpenRow:
    """A call of one of the URL-opener stand-ins a client lab puts first on PATH and in BROWSER (nothing opened)."""

    TABLE: ClassVar[str] = tables.OPENS.name
    COLUMNS: ClassVar[tuple[str, ...]] = tables.OPENS.written()
    run_id: str
    opener: str  # the stand-in's name: xdg-open, open, gio...
    argv: Sequence[str]  # its arguments, not its own name
    truncated: bool = False  # the arguments were cut (proxy/run/openers.py: MAX_ARGV_BYTES)
    t: float | None = None

    def values(self) -> tuple[object, ...]:
        return (self.run_id, self.t, self.opener, list(self.argv), int(self.truncated))


@row_record
class AttestationRow:
    """A person's answer to one question about a run (`check --by-hand`); `t` is taken where the answer was given."""

    TABLE: ClassVar[str] = tables.ATTESTATIONS.name
    COLUMNS: ClassVar[tuple[str, ...]] = tables.ATTESTATIONS.written()
    run_id: str
    question_id: str
    question: str
    answer: str  # y | n | ?
    who: str = "person"
    t: float | None = None
    screenshot: bytes | None = None
    screenshot_type: str | None = None  # image/png | image/jpeg

    def values(self) -> tuple[object, ...]:
        return (
            self.run_id, self.question_id, self.question, self.answer, self.who, self.t, self.screenshot,
            self.screenshot_type,
        )  # fmt: skip


@row_record
class ModelExchangeRow:
    """One request a coding agent sent the lab's model stand-in, and the stand-in's reply (bodies bounded by the
    stand-in before they get here; redacted on write like the wire's)."""

    TABLE: ClassVar[str] = tables.MODEL_EXCHANGES.name
    COLUMNS: ClassVar[tuple[str, ...]] = tables.MODEL_EXCHANGES.written()
    run_id: str
    api: str  # anthropic-messages | openai-chat | openai-responses | gemini-generate | gemini-stream | unknown
    method: str
    path: str
    request_headers: HeaderPairs = ()
    request_body: bytes | None = None
    request_truncated: bool = False
    streamed: bool = False
    status: int | None = None
    reply_body: bytes | None = None
    reply_truncated: bool = False
    step: Mapping[str, Any] | None = None  # what the model script did (JSON object)
    t: float | None = None

    def values(self) -> tuple[object, ...]:
        step = None if self.step is None else json_text(dict(self.step))
        return (
            self.run_id, self.t, self.api, self.method, self.path, _headers(self.request_headers), self.request_body,
            int(self.request_truncated), int(self.streamed), self.status, self.reply_body, int(self.reply_truncated),
            step,
        )  # fmt: skip


@row_record
class RunRow:
    """A run as registered, before any client reaches its URL; its plan is stored as given (validated first)."""

    TABLE: ClassVar[str] = tables.RUNS.name
    COLUMNS: ClassVar[tuple[str, ...]] = tables.RUNS.pick(
        "id", "ordinal", "name", "scenario", "upstream", "plan", "client_argv", "started_at", "detail"
    )
    id: str
    ordinal: int
    name: str
    upstream: str
    plan: Mapping[str, Any]
    scenario: str | None = None
    client_argv: Sequence[str] | None = None
    started_at: float | None = None
    detail: RunDetail = field(default_factory=RunDetail)

    def values(self) -> tuple[object, ...]:
        argv = None if self.client_argv is None else list(self.client_argv)
        return (
            self.id, self.ordinal, self.name, self.scenario, self.upstream, json_text(dict(self.plan)), argv,
            self.started_at, json_text(self.detail.to_json()),
        )  # fmt: skip


Row = (
    MessageRow
    | SseItemRow
    | AnomalyRow
    | TerminalChunkRow
    | ScreenRow
    | FileRow
    | UrlHitRow
    | OpenRow
    | AttestationRow
    | ModelExchangeRow
    | RunRow
)


# ---------------------------------------------------------------------------------------------- an exchange, in parts


@row_record
class ExchangeRequest:
    """The request side of an exchange row, built when the request passes and written with the first outcome."""

    TABLE: ClassVar[str] = tables.EXCHANGES.name
    COLUMNS: ClassVar[tuple[str, ...]] = tables.EXCHANGES.pick(
        "run_id", "flow_id", "method", "path", "request_headers", "request_body", "upstream_request_body", "t_request"
    )
    flow_id: str
    run_id: str | None = None
    method: str | None = None
    path: str | None = None  # the client's path, run prefix included
    request_headers: HeaderPairs = ()
    request_body: bytes | None = None
    upstream_request_body: bytes | None = None  # stored only when it differs from request_body
    t_request: float | None = None

    def values(self) -> tuple[object, ...]:
        return (
            self.run_id, self.flow_id, self.method, self.path, _headers(self.request_headers), self.request_body,
            self.upstream_request_body, self.t_request,
        )  # fmt: skip


@row_record
class ExchangeHead:
    """A streamed response's head, written as it starts to stream."""

    TABLE: ClassVar[str] = tables.EXCHANGES.name
    KEY: ClassVar[str] = "flow_id"
    COLUMNS: ClassVar[tuple[str, ...]] = tables.EXCHANGES.pick("status", "streamed", "t_response", "response_headers")
    status: int
    t_response: float | None
    response_headers: HeaderPairs

    def values(self) -> tuple[object, ...]:
        return (self.status, 1, self.t_response, _headers(self.response_headers))


@row_record
class ExchangeResponse:
    """A whole (not streamed) response. Upstream headers and the client's body are stored only when they differ."""

    TABLE: ClassVar[str] = tables.EXCHANGES.name
    KEY: ClassVar[str] = "flow_id"
    COLUMNS: ClassVar[tuple[str, ...]] = tables.EXCHANGES.pick(
        "status",
        "t_response",
        "t_end",
        "mutations",
        "response_headers",
        "upstream_response_headers",
        "upstream_response_body",
        "response_body",
        "flow_state",
        "forwarded",
    )
    status: int | None = None
    t_response: float | None = None
    t_end: float | None = None
    mutations: MutationEntries = ()
    response_headers: HeaderPairs = ()
    upstream_response_headers: HeaderPairs | None = None
    upstream_response_body: bytes | None = None
    response_body: bytes | None = None
    flow_state: bytes | None = None  # mitmproxy's own flow state, msgpack (opt-in)
    forwarded: bool = True  # False: the proxy answered itself

    def values(self) -> tuple[object, ...]:
        return (
            self.status, self.t_response, self.t_end, _mutations(self.mutations), _headers(self.response_headers),
            _headers(self.upstream_response_headers), self.upstream_response_body, self.response_body, self.flow_state,
            int(self.forwarded),
        )  # fmt: skip


@row_record
class ExchangeStreamEnd:
    """A streamed response's end: both byte truths of the whole stream."""

    TABLE: ClassVar[str] = tables.EXCHANGES.name
    KEY: ClassVar[str] = "flow_id"
    COLUMNS: ClassVar[tuple[str, ...]] = tables.EXCHANGES.pick(
        "t_end", "mutations", "upstream_response_headers", "upstream_response_body", "response_body", "flow_state"
    )
    t_end: float | None
    mutations: MutationEntries = ()
    upstream_response_headers: HeaderPairs | None = None
    upstream_response_body: bytes | None = None
    response_body: bytes | None = None
    flow_state: bytes | None = None

    def values(self) -> tuple[object, ...]:
        return (
            self.t_end, _mutations(self.mutations), _headers(self.upstream_response_headers),
            self.upstream_response_body, self.response_body, self.flow_state,
        )  # fmt: skip


@row_record
class ExchangeFailure:
    """The flow failed (client gone, upstream unreachable, stream broken)."""

    TABLE: ClassVar[str] = tables.EXCHANGES.name
    KEY: ClassVar[str] = "flow_id"
    COLUMNS: ClassVar[tuple[str, ...]] = tables.EXCHANGES.pick("error", "t_end", "mutations")
    error: str
    t_end: float | None
    mutations: MutationEntries = ()

    def values(self) -> tuple[object, ...]:
        return (self.error, self.t_end, _mutations(self.mutations))


ExchangeOutcome = ExchangeHead | ExchangeResponse | ExchangeStreamEnd | ExchangeFailure


# ---------------------------------------------------------------------------------------------- changes to a run


@row_record
class RunLaunch:
    """The client command a run started, and the lab HOME it ran in."""

    TABLE: ClassVar[str] = tables.RUNS.name
    KEY: ClassVar[str] = "id"
    COLUMNS: ClassVar[tuple[str, ...]] = tables.RUNS.pick("client_argv", "lab_home")
    client_argv: Sequence[str]
    lab_home: str

    def values(self) -> tuple[object, ...]:
        return (list(self.client_argv), self.lab_home)


@row_record
class RunNote:
    """New facts about a run: its whole detail, as it now stands."""

    TABLE: ClassVar[str] = tables.RUNS.name
    KEY: ClassVar[str] = "id"
    COLUMNS: ClassVar[tuple[str, ...]] = tables.RUNS.pick("detail")
    detail: RunDetail

    def values(self) -> tuple[object, ...]:
        return (json_text(self.detail.to_json()),)


@row_record
class RunEnd:
    """How a run ended, and its detail as it then stands."""

    TABLE: ClassVar[str] = tables.RUNS.name
    KEY: ClassVar[str] = "id"
    COLUMNS: ClassVar[tuple[str, ...]] = tables.RUNS.pick("ended_at", "exit_code", "outcome", "detail")
    ended_at: float
    exit_code: int | None
    outcome: str  # exited | timeout | failed-to-start | planted | ...
    detail: RunDetail

    def values(self) -> tuple[object, ...]:
        return (
            self.ended_at,
            self.exit_code,
            self.outcome,
            json_text(self.detail.to_json()),
        )


RunChange = RunLaunch | RunNote | RunEnd
