"""State shared by the three addons of one mitmdump process: the writer, the per-flow ledger, the run plans."""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from backchannel.recordings import redact
from backchannel.recordings.errors import RecordingError
from backchannel.recordings.mutation_records import MutationRecord
from backchannel.recordings.reader import read_run
from backchannel.recordings.rows import AnomalyRow, ExchangeRequest, HeaderPairs
from backchannel.recordings.store import RecordingWriter

from .plan import Mutation, Plan, PlanError, parse_plan

if TYPE_CHECKING:  # the types of FlowState's fields only
    from .mutations.disconnect import BodyCut
    from .unread_body import UnreadBody

RUN_PREFIX = re.compile(r"^/r/([A-Za-z0-9_-]{1,64})(/.*)?$")
# the line the addon prints once mitmdump listens (entry.py), which the launcher waits for: here, not in entry.py, so
# backchannel's own process knows it without importing mitmproxy
READY_MARKER = "BACKCHANNEL-READY"


MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """What one exchange may put into the recording, and how long an upstream may stay silent.

    Each is a mitmdump option of the addon (entry.py) and a flag of `record`/`check`; a hit is an anomaly, and the
    bytes are kept up to the limit (the client still gets all of them: the limits bound the recording, not the wire).
    """

    max_body: int = 16 * MIB  # bytes of each body stored per exchange (request, upstream's and client's response)
    max_sse_event: int = 1 * MIB  # bytes stored per SSE item and per message text
    # seconds an upstream may send nothing, before or inside its response, until the client gets a JSON-RPC error
    # (HTTP 504, or an SSE event ending a stream that owed a response); 0: off
    upstream_idle_timeout: float = 60.0

    @property
    def max_held(self) -> int:
        """The most bytes of one body or SSE event the proxy holds to read and rewrite it whole: past it, the body or
        event goes on as it arrives, unread. Raising either storage limit raises it; a lowered one never makes it
        smaller than the text stored per event."""
        return max(self.max_body, self.max_sse_event)


def limit_options(limits: Limits) -> list[str]:
    """The mitmdump `--set` arguments that hand these limits to the addon (entry.py declares the options)."""
    return [
        f"--set=backchannel_max_body={limits.max_body}",
        f"--set=backchannel_max_sse_event={limits.max_sse_event}",
        f"--set=backchannel_upstream_idle_timeout={limits.upstream_idle_timeout}",
    ]


@dataclass
class FlowState:
    """What the proxy knows about one flow beyond mitmproxy's own flow object."""

    run_id: str | None
    client_path: str
    client_request: bytes = b""
    request: dict[str, Any] | None = None  # the client's single JSON-RPC request, if it was one
    active: tuple[Mutation, ...] = ()  # the plan's mutations still to act on this flow's response
    applied: list[MutationRecord] = field(default_factory=list)  # what the proxy did, in order
    upstream_response_headers: HeaderPairs | None = None  # mitmproxy's raw fields, or the relay's text pairs
    upstream_response_body: bytes | None = None
    upstream_sse: bytearray = field(default_factory=bytearray)  # kept up to Limits.max_body
    client_sse: bytearray = field(default_factory=bytearray)  # kept up to Limits.max_body
    client_sse_bytes: int = 0  # every SSE byte the client got, kept or not
    upstream_sse_bytes: int = 0  # every SSE byte the upstream sent, kept or not
    sse_items: int = 0
    saw_final_response: bool = False
    answered_by_proxy: str | None = None
    exchange_row: ExchangeRequest | None = None  # the exchange's request side until the row is written
    exchange_flow_id: str = ""  # the mutation kind, when the proxy answered without the upstream
    injections: dict[int, Any] = field(default_factory=dict)  # plan index -> the inputRequests chosen for this flow
    hold_ticket: Any = None  # a HoldTicket while the loopback relay answers for this flow
    idle_timer: Any = None  # an asyncio.TimerHandle until the response is complete (Limits.upstream_idle_timeout)
    idle_since: float = 0.0  # time.monotonic() the current wait began (request sent, then response head)
    upstream_bytes_at: Any = None  # when the upstream last sent bytes: upstream_timeout.last_upstream_bytes
    finished: bool = False
    # once mitmproxy streams a body too large to hold (from its Content-Length): what passed of it
    unread_request: UnreadBody | None = None
    unread_response: UnreadBody | None = None
    body_cut: BodyCut | None = None  # a disconnect's cut of a JSON body: it counts what it did not keep
    sink: str | None = None  # the hold server's path that answers a request never forwarded (Router._to_sink)
    refused: str | None = None  # why the proxy answers this request itself: unknown-run or invalid-plan (Router)


@dataclass
class RunInfo:
    """A run as the proxy knows it: its typed plan, parsed once, or why its stored plan does not parse."""

    run_id: str
    plan: Plan | None  # None: the stored plan does not parse, and every request of the run is refused
    upstream: str
    plan_error: str | None = None
    target: tuple[str, str, int] = field(init=False)  # (scheme, host, port) of the upstream, split once per run
    scheme_bytes: bytes = field(init=False)  # the scheme as mitmproxy's request data holds it

    def __post_init__(self) -> None:
        parts = urlsplit(self.upstream)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        self.target = (parts.scheme or "http", parts.hostname or "127.0.0.1", port)
        self.scheme_bytes = self.target[0].encode("ascii", "replace")


class Session:
    """One per mitmdump process."""

    def __init__(
        self, recording: str, limits: Limits | None = None, redaction: redact.Policy = redact.DEFAULT_POLICY
    ) -> None:
        self.recording = recording
        self.limits = limits or Limits()
        self.writer = RecordingWriter(recording, redact.Redactor(redaction))  # the proxy's side of the tally
        self.key = secrets.token_bytes(32)
        self.flows: dict[str, FlowState] = {}
        self.runs: dict[str, RunInfo] = {}
        self.applied_counts: dict[tuple[str, int], int] = {}
        self.used_states: set[str] = set()
        # every requestState this proxy minted -> the params of the call it was minted for (a retry forwards them)
        self.minted: dict[str, dict[str, Any]] = {}
        # binds a minted state to this recording (the session key already keeps other processes' states out)
        self.recording_id = hashlib.sha256(os.path.abspath(recording).encode("utf-8", "replace")).hexdigest()[:16]

    def run_for(self, run_id: str) -> RunInfo | None:
        """The run's plan, read from the recording the first time the run is seen (runs are self-describing)."""
        if run_id not in self.runs:
            try:
                run = read_run(self.recording, run_id)
            except RecordingError:
                return None
            if run is None:
                return None
            try:
                self.runs[run_id] = RunInfo(run_id, parse_plan(dict(run.plan)), run.upstream)
            except PlanError as exc:
                # never a silent empty plan: the run was meant to be mutated, so forwarding it untouched would
                # record a run that looks like it was tested and was not
                self.runs[run_id] = RunInfo(run_id, None, run.upstream, plan_error=str(exc))
                detail = f"run {run_id!r}: its stored plan does not parse ({exc}); every request is refused"
                self.anomaly(None, run_id, "invalid-plan", detail, time.time())
        return self.runs[run_id]

    def take(self, run_id: str, mutation: Mutation) -> bool:
        """Count one application of a mutation; False once its `times` are used up."""
        key = (run_id, mutation.index)
        used = self.applied_counts.get(key, 0)
        if mutation.times is not None and used >= mutation.times:
            return False
        self.applied_counts[key] = used + 1
        return True

    def anomaly(self, flow_id: str | None, run_id: str | None, kind: str, detail: str, t: float) -> None:
        self.writer.insert(AnomalyRow(run_id=run_id, flow_id=flow_id, kind=kind, detail=detail, t=t))


def split_run_path(path: str) -> tuple[str | None, str]:
    """('abc', '/mcp') for '/r/abc/mcp'; (None, path) when the path carries no run prefix."""
    m = RUN_PREFIX.match(path)
    if not m:
        return None, path
    return m.group(1), m.group(2) or "/"


def header_pairs(headers: Any) -> list[tuple[str, str]]:
    """mitmproxy headers as (name, value) text pairs, in order, duplicates kept."""
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in headers.fields]


def origin_of(url: str) -> str:
    """scheme://host:port of an upstream URL."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{parts.hostname}:{port}"
