"""A recording's exchanges as mitmproxy flows, as the client saw them, redacted: what the HAR and .mitm exports hold.

Each flow carries the client's request and the response the client got (after every mutation; an SSE body whole),
with the recorded status, headers and times. A flow backchannel changed is marked, and its comment lists what
was changed, so mitmweb and HAR viewers show it. Redaction applies the export's policy (see redaction.py), which
the caller puts in force around client_flows (redact.applying).
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from mitmproxy import connection, flow, http
from mitmproxy.net.http import status_codes

from backchannel.recordings import redact
from backchannel.recordings.model import Exchange, Recording, Run
from backchannel.recordings.safe_text import neutralise

MARK = ":pencil2:"  # mitmweb shows it as ✏️ beside a flow backchannel changed
LATEST = 253402300799.0  # 9999-12-31: later (or not finite) and no date library can print it
SCHEME_PORTS = {"http": 80, "https": 443}


def _time(value: float | None, fallback: float) -> float:
    if value is None or not math.isfinite(value):
        return fallback
    return min(max(value, 0.0), LATEST)


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _headers(pairs: Sequence[tuple[str, str]]) -> http.Headers:
    return http.Headers([(_encoded(name), _encoded(value)) for name, value in redact.redact_headers(pairs)])


def _origin(exchange: Exchange, run: Run | None) -> tuple[str, str, int]:
    """Scheme, host and port the request went to: the Host header, else the run's upstream, else loopback."""
    scheme = "http"
    if run is not None:
        scheme = urlsplit(run.upstream).scheme if urlsplit(run.upstream).scheme in SCHEME_PORTS else "http"
    candidates = [exchange.header("host") or ""]
    if run is not None:
        candidates.append(urlsplit(run.upstream).netloc)
    for netloc in candidates:
        try:
            parts = urlsplit(f"//{netloc}")
            if parts.hostname:
                return scheme, parts.hostname, parts.port or SCHEME_PORTS[scheme]
        except ValueError:  # a hostile Host header: not a host at all
            continue
    return scheme, "127.0.0.1", SCHEME_PORTS[scheme]


def mutation_comment(mutations: Sequence[Mapping[str, Any]]) -> str:
    """One line per mutation: its kind and its recorded parameters (redacted, control characters neutralised)."""
    lines = []
    for entry in mutations:
        rest = {k: v for k, v in entry.items() if k != "kind"}
        detail = redact.redact_json_text(json.dumps(rest, ensure_ascii=False, sort_keys=True, default=str))
        lines.append(f"backchannel mutation {entry.get('kind', '?')}: {detail}")
    return neutralise("\n".join(lines))


def exchange_flow(exchange: Exchange, run: Run | None) -> http.HTTPFlow:
    """One exchange as a mitmproxy flow, as the client saw it."""
    scheme, host, port = _origin(exchange, run)
    started = _time(exchange.t_request, 0.0)
    client = connection.Client(peername=("127.0.0.1", 0), sockname=("127.0.0.1", 0), timestamp_start=started)
    server = connection.Server(address=(host, port))
    made = http.HTTPFlow(client, server)
    made.request = http.Request(
        host=host,
        port=port,
        method=_encoded(exchange.method or "GET"),
        scheme=_encoded(scheme),
        authority=b"",
        path=_encoded(redact.redact_path(exchange.path) or "/"),
        http_version=b"HTTP/1.1",
        headers=_headers(exchange.request_headers),
        content=redact.redact_json_bytes(exchange.request_body) or b"",
        trailers=None,
        timestamp_start=started,
        timestamp_end=started,
    )
    status = exchange.status
    if status is not None and 100 <= status <= 999:
        answered = _time(exchange.t_response, started)
        made.response = http.Response(
            http_version=b"HTTP/1.1",
            status_code=status,
            reason=_encoded(status_codes.RESPONSES.get(status, "")),
            headers=_headers(exchange.response_headers),
            content=redact.redact_json_bytes(exchange.response_body) or b"",
            trailers=None,
            timestamp_start=answered,
            timestamp_end=_time(exchange.t_end, answered),
        )
    if exchange.error is not None:
        made.error = flow.Error(neutralise(exchange.error), _time(exchange.t_end, started))
    if exchange.mutations:
        made.marked = MARK
        made.comment = mutation_comment(exchange.mutations)
    return made


def client_flows(rec: Recording, run_ids: Collection[str] | None = None) -> list[http.HTTPFlow]:
    """Every exchange of the chosen runs (None: all, runless ones too) as a flow, in recorded order."""
    runs = {run.id: run for run in rec.runs}
    return [
        exchange_flow(x, runs.get(x.run_id) if x.run_id else None)
        for x in rec.exchanges
        if run_ids is None or x.run_id in run_ids
    ]
