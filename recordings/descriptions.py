"""What each table and column of a recording holds, in words.

Every recording carries them (the `descriptions` table, written by migration m003 with the words of the tool
that wrote it; m004 and m005 add the words for the `screens` and `opens` tables to a file they upgrade), so the
file explains itself to any SQLite browser. `backchannel explore` hands these words, the tool's own, to Datasette
rather than the file's: a recording from a stranger cannot show misleading ones there.
"""

from __future__ import annotations

from collections.abc import Mapping

TIME = "Seconds since the Unix epoch (float), on the machine that recorded."
RUN = "The run this row belongs to (runs.id)."
FLOW = "mitmproxy's flow id of the HTTP exchange (exchanges.flow_id)."

TABLES: Mapping[str, str] = {
    "meta": "Facts about the whole recording: format marker, tool and mitmproxy versions, nonce, stored reports.",
    "_sqlite_migrations": "The format migrations applied to this file (the recording format version).",
    "runs": "One client run (or a live session): its plan of mutations, its command, and how it ended.",
    "exchanges": "Every HTTP exchange through the proxy: the client's request and what the client got, and the "
    "upstream's side where the proxy changed it.",
    "messages": "Every JSON-RPC message, in the order the proxy saw it; `mutation` names what changed it.",
    "sse_events": "Every item of every Server-Sent Events stream, as the upstream sent it and as the client got it.",
    "terminal": "The client's stdout and stderr, in chunks, with their byte offsets.",
    "files": "Text files the client left under its lab HOME.",
    "anomalies": "Whatever was odd on the wire or in the harness (a cut body, a dead proxy, a batch...).",
    "url_hits": "Requests that reached the loopback servers behind URL-mode elicitations.",
    "descriptions": "What each table and column holds, in words (this table; written with the recording).",
    "screens": "Snapshots of the screen of a client run under a terminal (--tty): when it waited for input, when an "
    "answer was typed, and at its exit; for a piped client answered at its prompts (--answer --no-tty), its output "
    "rendered as a screen at each answer.",
    "opens": "Calls of the URL-opener stand-ins first on the client's PATH and in BROWSER (xdg-open, open, gio...): "
    "which one, its arguments, when. The stand-ins open nothing.",
}

COLUMNS: Mapping[str, Mapping[str, str]] = {
    "meta": {"key": "What the entry is (format, tool_version, redactions:proxy, report...).", "value": "Its value."},
    "_sqlite_migrations": {
        "migration_set": "Always `backchannel` for this tool's format.",
        "name": "The migration applied.",
    },
    "runs": {
        "id": "The run's id (it appears in the proxy URL, /r/<id>/...).",
        "ordinal": "1 for the first run of the recording, 2 for the next...",
        "name": "What the scenario calls it (control, probe, absent, live...).",
        "scenario": "The scenario whose endpoint played the server, if any.",
        "upstream": "The server the proxy forwarded this run to.",
        "plan": "The mutation plan applied to this run (JSON).",
        "client_argv": "The client command, with the run URL substituted (JSON list); null for a live client.",
        "lab_home": "The client's temporary HOME (gone unless --keep-lab).",
        "started_at": TIME,
        "ended_at": TIME + " Null: the run never ended.",
        "exit_code": "The client's exit code.",
        "outcome": "How the run ended: exited, timeout, failed-to-start, interrupted, live-stopped...",
        "detail": "More about the run (JSON): its URL, scenario facts, lab environment names.",
    },
    "exchanges": {
        "seq": "Order of the exchange in the recording.",
        "run_id": RUN,
        "flow_id": "mitmproxy's flow id.",
        "method": "HTTP method.",
        "path": "Path and query as the client sent it (secrets redacted).",
        "status": "HTTP status the client got.",
        "request_headers": "The client's request headers (JSON list of [name, value]; secrets redacted).",
        "response_headers": "Response headers as the client got them.",
        "upstream_response_headers": "The upstream's response headers, when the proxy changed them.",
        "request_body": "The client's request body.",
        "upstream_request_body": "The request as forwarded, when the proxy changed it.",
        "upstream_response_body": "The upstream's response body.",
        "response_body": "The body the client got, when the proxy changed it (else the upstream's).",
        "t_request": TIME,
        "t_response": TIME,
        "t_end": TIME,
        "error": "Why the exchange failed, if it did.",
        "streamed": "1 when the response was a stream (SSE).",
        "mutations": "What the proxy did to this exchange: one JSON record per mutation applied.",
        "flow_state": "mitmproxy's own flow state (msgpack), with --flow-state only.",
        "forwarded": "0 when the proxy answered itself and the upstream never saw the request.",
    },
    "messages": {
        "seq": "Order of the message in the recording.",
        "run_id": RUN,
        "flow_id": FLOW,
        "sse_idx": "The SSE item that carried it (sse_events.idx), if it came in a stream.",
        "direction": "to-server or to-client.",
        "kind": "request, notification, response, error or invalid.",
        "jsonrpc_id": "The JSON-RPC id (JSON).",
        "method": "The method, or for a response the method it answers.",
        "text": "The message as the client saw it.",
        "upstream_text": "The message as the server sent it, when the proxy changed it.",
        "mutation": "The mutation kind that changed or made this message, if any.",
        "t": TIME,
    },
    "sse_events": {
        "seq": "Order in the recording.",
        "run_id": RUN,
        "flow_id": FLOW,
        "idx": "The item's index within its stream.",
        "kind": "event, comment, retry, truncated...",
        "origin": "upstream, or proxy when the proxy made the item.",
        "upstream_raw": "The item's bytes as the upstream sent them.",
        "client_raw": "The item's bytes as the client got them.",
        "t": TIME,
    },
    "terminal": {
        "seq": "Order in the recording.",
        "run_id": RUN,
        "stream": "stdout or stderr.",
        "offset": "Byte offset of this chunk in its stream (evidence cites these offsets).",
        "data": "The bytes (key-like secrets masked at their own length).",
        "t": TIME,
    },
    "files": {
        "seq": "Order in the recording.",
        "run_id": RUN,
        "path": "Path inside the lab HOME.",
        "size": "Size in bytes on disk.",
        "data": "Its content (up to the limit).",
        "truncated": "1 when only the start of the file is kept.",
    },
    "anomalies": {
        "seq": "Order in the recording.",
        "run_id": RUN,
        "flow_id": FLOW,
        "kind": "What kind of anomaly (body-over-limit, proxy-exit, upstream-idle-timeout...).",
        "detail": "What happened, in a sentence.",
        "t": TIME,
    },
    "url_hits": {
        "seq": "Order in the recording.",
        "run_id": RUN,
        "server": "Which loopback URL server was hit.",
        "method": "HTTP method.",
        "path": "Path and query (secrets redacted).",
        "headers": "Request headers (JSON; secrets redacted).",
        "t": TIME,
    },
    "screens": {
        "seq": "Order in the recording (evidence of kind screen cites it).",
        "run_id": RUN,
        "t": TIME,
        "reason": "Why the screen was taken: waiting (no output for a quiet period), answered, exit or timeout.",
        "cols": "The terminal's width in columns.",
        "rows": "The terminal's height in rows.",
        "cursor_row": "The cursor's row (0 is the top).",
        "cursor_col": "The cursor's column (0 is the left).",
        "text": "The rendered rows, right-stripped, joined by newlines (key-like secrets masked).",
        "answer_pattern": "For reason answered: the regular expression that matched this screen.",
        "answer_text": "For reason answered: the text typed in reply (key-like secrets masked).",
    },
    "opens": {
        "seq": "Order in the recording.",
        "run_id": RUN,
        "t": TIME + " Null: unknown.",
        "opener": "The stand-in called: xdg-open, open, sensible-browser, x-www-browser, www-browser, gio or wslview "
        "(BROWSER names the xdg-open one).",
        "argv": 'Its arguments, not its own name (JSON list; key-like values masked), e.g. ["https://..."] or, for '
        'gio, ["open", "https://..."].',
        "truncated": "1 when the arguments were cut at 4 KiB.",
    },
    "descriptions": {
        "table_name": "The table described.",
        "column_name": "The column described; empty for the table itself.",
        "description": "What it holds.",
    },
}


def rows() -> list[tuple[str, str, str]]:
    """(table, column or "", description) for every table and column, tables first: the `descriptions` rows."""
    found = [(table, "", text) for table, text in TABLES.items()]
    found += [(table, column, text) for table, columns in COLUMNS.items() for column, text in columns.items()]
    return found
