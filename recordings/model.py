"""Plain, frozen records of one recording: runs, exchanges, messages, SSE events, terminal output and screens,
lab files, calls of the URL-opener stand-ins."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .meta import RecordingInfo
from .shapes import RunDetail

Direction = Literal["to-server", "to-client"]
Headers = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """One execution of the client under test against one mutation plan; reached at /r/<id>/mcp."""

    id: str
    ordinal: int
    name: str
    scenario: str | None
    upstream: str
    plan: Mapping[str, Any]
    client_argv: tuple[str, ...] | None = None
    lab_home: str | None = None
    started_at: float | None = None
    ended_at: float | None = None
    exit_code: int | None = None
    outcome: str | None = None
    detail: RunDetail = field(default_factory=RunDetail)

    @property
    def path_prefix(self) -> str:
        return f"/r/{self.id}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Exchange:
    """One HTTP request and its response, with the bytes both as the upstream saw them and as the client did."""

    seq: int
    run_id: str | None
    flow_id: str
    method: str | None
    path: str | None
    status: int | None
    request_headers: Headers
    response_headers: Headers
    upstream_response_headers: Headers
    request_body: bytes | None
    upstream_request_body: bytes | None
    upstream_response_body: bytes | None
    response_body: bytes | None
    t_request: float | None
    t_response: float | None
    t_end: float | None
    error: str | None
    streamed: bool
    mutations: tuple[Mapping[str, Any], ...]
    flow_state: bytes | None = None
    forwarded: bool = True  # False: the proxy answered itself; nothing went upstream, nothing came back

    def header(self, name: str, *, response: bool = False) -> str | None:
        """The first value of a header (case-insensitive), from the request or the response."""
        wanted = name.lower()
        for key, value in self.response_headers if response else self.request_headers:
            if key.lower() == wanted:
                return value
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """One JSON-RPC message as it crossed the proxy; `text` is what the receiving side got."""

    seq: int
    run_id: str | None
    flow_id: str | None
    sse_idx: int | None
    direction: Direction
    kind: str
    jsonrpc_id: str | None
    method: str | None
    text: str
    upstream_text: str | None
    mutation: str | None
    t: float | None = None
    # the parsed text, once: checks read a message's payload many times, and parsing was half the oracle's time
    _parsed: list[Any] = field(default_factory=list, init=False, repr=False, compare=False)
    _upstream_parsed: list[Any] = field(default_factory=list, init=False, repr=False, compare=False)

    @property
    def payload(self) -> Any:
        """The message parsed (parsed once; treat it as read-only); None if its text is not JSON (an anomaly)."""
        if not self._parsed:
            try:
                self._parsed.append(json.loads(self.text))
            except (ValueError, RecursionError):  # the reader bounds depth; a record made by hand may not be
                self._parsed.append(None)
        return self._parsed[0]

    @property
    def upstream_payload(self) -> Any:
        """The message as the other side sent it, before any rewrite."""
        if self.upstream_text is None:
            return self.payload
        if not self._upstream_parsed:  # parsed once, as `payload` is (the session facts read it for every answer)
            try:
                self._upstream_parsed.append(json.loads(self.upstream_text))
            except (ValueError, RecursionError):
                self._upstream_parsed.append(None)
        return self._upstream_parsed[0]

    @property
    def rpc_id(self) -> Any:
        return None if self.jsonrpc_id is None else json.loads(self.jsonrpc_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class SseEvent:
    """One SSE item (event, comment or truncated tail) as it passed, with both byte truths."""

    seq: int
    run_id: str | None
    flow_id: str
    idx: int
    kind: str
    origin: str
    upstream_raw: bytes | None
    client_raw: bytes | None
    t: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TerminalChunk:
    """Bytes the client process wrote to stdout or stderr, at a byte offset within that stream."""

    seq: int
    run_id: str
    stream: str
    offset: int
    data: bytes
    t: float | None = None


MAX_SCREEN_SIDE = 1000  # rows or columns of a snapshot; the reader refuses bigger
SCREEN_REASONS = ("waiting", "answered", "typed", "exit", "timeout", "ended")


@dataclass(frozen=True, slots=True, kw_only=True)
class ScreenSnapshot:
    """The rendered screen of a client run under a terminal, at one point: why (`reason`), cursor, rows of text."""

    seq: int
    run_id: str
    reason: str  # waiting | answered | typed | exit | timeout | ended
    cols: int
    rows: int
    cursor_row: int | None
    cursor_col: int | None
    text: str  # the rendered rows, right-stripped, joined by \n
    answer_pattern: str | None = None
    answer_text: str | None = None
    t: float | None = None

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(self.text.split("\n"))


@dataclass(frozen=True, slots=True, kw_only=True)
class LabFile:
    """A text file the client left under its lab HOME, path relative to HOME."""

    seq: int
    run_id: str
    path: str
    size: int
    data: bytes | None
    truncated: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Anomaly:
    """Something on the wire that was not what the protocol allows, or a failure around it."""

    seq: int
    run_id: str | None
    flow_id: str | None
    kind: str
    detail: str
    t: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class UrlHit:
    """A request that reached a loopback server standing behind a URL the server asked the client to open."""

    seq: int
    run_id: str | None
    server: str  # which URL server: e.g. "declined" or "accepted"
    method: str
    path: str
    headers: Headers
    t: float | None = None


OPENER_NAME_LIMIT = 64  # characters of an opener's name; the reader refuses longer ones, and odd characters


@dataclass(frozen=True, slots=True, kw_only=True)
class UrlOpen:
    """A call of one of the URL-opener stand-ins a client lab puts first on PATH and in BROWSER: the client asked to
    open something (`targets`), and nothing was opened. Empty in a recording older than m005_opens."""

    seq: int
    run_id: str
    opener: str  # xdg-open | open | sensible-browser | x-www-browser | www-browser | gio | wslview
    argv: tuple[str, ...]  # its arguments, not its own name: ("https://...",), for gio ("open", "https://...")
    truncated: bool = False  # the arguments were cut at 4 KiB (the last one kept may be cut short)
    t: float | None = None  # when it was called (seconds since the epoch); None: unknown

    @property
    def targets(self) -> tuple[str, ...]:
        """What it was asked to open: its arguments that are not options (after `--`, every one), for `gio` those
        after its `open` subcommand (a `gio` call of another subcommand opens nothing: none)."""
        args = self.argv
        if self.opener == "gio":
            if not args or args[0] != "open":
                return ()
            args = args[1:]
        out: list[str] = []
        options = True
        for arg in args:
            if options and arg == "--":
                options = False
            elif not options or not arg.startswith("-") or arg == "-":
                out.append(arg)
        return tuple(out)


MODEL_APIS = ("anthropic-messages", "openai-chat", "openai-responses", "gemini-generate", "gemini-stream", "unknown")


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelExchange:
    """One request a coding agent sent the lab's model stand-in (the context it built for its model) and the reply.
    Bodies are bytes as recorded (bounded, redacted); the oracle parses them per `api`. Empty in a recording older
    than m006_model_exchanges, and for runs of clients that are not coding agents."""

    seq: int
    run_id: str
    api: str  # one of MODEL_APIS
    method: str
    path: str
    request_headers: Headers = ()
    request_body: bytes | None = None
    request_truncated: bool = False
    streamed: bool = False
    status: int | None = None
    reply_body: bytes | None = None
    reply_truncated: bool = False
    step: Mapping[str, Any] | None = None  # what the scenario's model script did with it
    t: float | None = None


ANSWERS = ("y", "n", "?")  # yes, no, not sure
WHO = ("person",)
SCREENSHOT_TYPES = ("image/png", "image/jpeg")


@dataclass(frozen=True, slots=True, kw_only=True)
class Attestation:
    """A person's answer to one question about a run (`check --by-hand`): attested evidence, never the wire's. Empty
    in a recording older than m007_attestations."""

    seq: int
    run_id: str
    question_id: str
    question: str
    answer: str  # one of ANSWERS
    who: str = "person"
    t: float | None = None  # when it was answered, taken on the proxy side
    screenshot: bytes | None = None
    screenshot_type: str | None = None  # one of SCREENSHOT_TYPES when a screenshot is kept


@dataclass(frozen=True, slots=True, kw_only=True)
class Recording:
    """The whole file."""

    path: str
    meta: Mapping[str, str]
    format_version: str
    runs: tuple[Run, ...]
    exchanges: tuple[Exchange, ...]
    messages: tuple[Message, ...]
    sse_events: tuple[SseEvent, ...]
    terminal: tuple[TerminalChunk, ...]
    files: tuple[LabFile, ...]
    anomalies: tuple[Anomaly, ...]
    url_hits: tuple[UrlHit, ...] = ()
    screens: tuple[ScreenSnapshot, ...] = ()  # empty for piped runs, and in a recording older than m004_screens
    opens: tuple[UrlOpen, ...] = ()  # calls of the URL-opener stand-ins; empty in a recording older than m005_opens
    model_exchanges: tuple[ModelExchange, ...] = ()  # a coding agent's model requests; empty before m006
    attestations: tuple[Attestation, ...] = ()  # a person's answers (check --by-hand); empty before m007
    # a `-wal` with rows sat beside the file: the last process writing it stopped before it closed it
    left_open: bool = False

    @property
    def info(self) -> RecordingInfo:
        """Who made the recording, for which scenario, with which nonce (absent entries read as None)."""
        return RecordingInfo.read(self.meta)

    def run(self, run_id: str) -> Run:
        for run in self.runs:
            if run.id == run_id:
                return run
        raise KeyError(run_id)

    def messages_in(self, run_id: str) -> Iterator[Message]:
        return (m for m in self.messages if m.run_id == run_id)

    def exchanges_in(self, run_id: str) -> Iterator[Exchange]:
        return (x for x in self.exchanges if x.run_id == run_id)

    def opens_in(self, run_id: str) -> Iterator[UrlOpen]:
        return (o for o in self.opens if o.run_id == run_id)

    def attestations_in(self, run_id: str) -> Iterator[Attestation]:
        return (a for a in self.attestations if a.run_id == run_id)

    def model_exchanges_in(self, run_id: str) -> Iterator[ModelExchange]:
        return (x for x in self.model_exchanges if x.run_id == run_id)
