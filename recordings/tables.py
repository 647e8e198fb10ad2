"""Every table of a recording, declared once: its columns in order, each one's kind and words, and how it is shared.

The migrations (migrations.py) are frozen history: they made these tables, and a test holds the schema they produce
equal to these declarations. The rest is derived from here: the guard's known columns (guard.py), the words every
recording carries (descriptions.py), the writers' column lists (rows.py), the reader's records (table_rows.py) and
trim's policy (trim.py). Changing a table is a migration, its declaration here and the code that fills it.
"""

from __future__ import annotations

from collections.abc import Mapping

from .table_kinds import (
    BODY,
    COMMAND_LINE,
    DROPPED,
    FLOW_STATE,
    HEADERS,
    IMAGE,
    JSON,
    PATH,
    URL,
    Cell,
    Column,
    Null,
    Redaction,
    Table,
)

TEXT, INTEGER, REAL, BLOB, FLAG = Cell.TEXT, Cell.INTEGER, Cell.REAL, Cell.BLOB, Cell.FLAG
REFUSED, EMPTY = Null.REFUSED, Null.EMPTY
TERMINAL_OUTPUT = Redaction.output("terminal")

TIME = "Seconds since the Unix epoch (float), on the machine that recorded."
RUN = "The run this row belongs to (runs.id)."
FLOW = "mitmproxy's flow id of the HTTP exchange (exchanges.flow_id)."
ORDER = "Order in the recording."

META = Table(
    "meta",
    "Facts about the whole recording: format marker, tool and mitmproxy versions, nonce, stored reports.",
    (
        Column("key", TEXT, "What the entry is (format, tool_version, redactions:proxy, report...).", REFUSED),
        Column("value", TEXT, "Its value.", REFUSED, COMMAND_LINE),
    ),
    created_by="m001_initial",
    key="key",
    order=None,
    run_column=None,
)
MIGRATIONS = Table(  # sqlite-utils makes and keeps it; the reader reads the two columns it needs
    "_sqlite_migrations",
    "The format migrations applied to this file (the recording format version).",
    (
        Column("id", INTEGER, "", read=False),
        Column("migration_set", TEXT, "Always `backchannel` for this tool's format."),
        Column("name", TEXT, "The migration applied."),
        Column("applied_at", TEXT, "", read=False),
    ),
    created_by="m001_initial",
    key="name",
    order=None,
    run_column=None,
)
RUNS = Table(
    "runs",
    "One client run (or a live session): its plan of mutations, its command, and how it ended.",
    (
        Column("id", TEXT, "The run's id (it appears in the proxy URL, /r/<id>/...).", REFUSED),
        Column("ordinal", INTEGER, "1 for the first run of the recording, 2 for the next...", REFUSED),
        Column("name", TEXT, "What the scenario calls it (control, probe, absent, live...).", REFUSED),
        Column("scenario", TEXT, "The scenario whose endpoint played the server, if any."),
        Column("upstream", TEXT, "The server the proxy forwarded this run to.", REFUSED, redacted=URL),
        Column("plan", Cell.JSON_OBJECT, "The mutation plan applied to this run (JSON)."),
        Column(
            "client_argv",
            Cell.ARGV,
            "The client command, with the run URL substituted (JSON list); null for a live client.",
            redacted=COMMAND_LINE,
        ),
        Column("lab_home", TEXT, "The client's temporary HOME (gone unless --keep-lab)."),
        Column("started_at", REAL, TIME),
        Column("ended_at", REAL, TIME + " Null: the run never ended."),
        Column("exit_code", INTEGER, "The client's exit code."),
        Column("outcome", TEXT, "How the run ended: exited, timeout, failed-to-start, interrupted, live-stopped..."),
        Column(
            "detail",
            Cell.DETAIL,
            "More about the run (JSON): its URL, scenario facts, lab environment names.",
            redacted=Redaction("key-like", "run-detail"),
        ),
    ),
    created_by="m001_initial",
    key="id",
    order="ordinal",
    run_column="id",
)
EXCHANGES = Table(
    "exchanges",
    "Every HTTP exchange through the proxy: the client's request and what the client got, and the "
    "upstream's side where the proxy changed it.",
    (
        Column("seq", INTEGER, "Order of the exchange in the recording.", REFUSED),
        Column("run_id", TEXT, RUN),
        Column("flow_id", TEXT, "mitmproxy's flow id.", REFUSED),
        Column("method", TEXT, "HTTP method."),
        Column("path", TEXT, "Path and query as the client sent it (secrets redacted).", redacted=PATH),
        Column("status", INTEGER, "HTTP status the client got."),
        Column(
            "request_headers",
            Cell.HEADERS,
            "The client's request headers (JSON list of [name, value]; secrets redacted).",
            redacted=HEADERS,
        ),
        Column("response_headers", Cell.HEADERS, "Response headers as the client got them.", redacted=HEADERS),
        Column(
            "upstream_response_headers",
            Cell.HEADERS,
            "The upstream's response headers, when the proxy changed them.",
            redacted=HEADERS,
        ),
        Column("request_body", BLOB, "The client's request body.", redacted=BODY),
        Column("upstream_request_body", BLOB, "The request as forwarded, when the proxy changed it.", redacted=BODY),
        Column("upstream_response_body", BLOB, "The upstream's response body.", redacted=BODY),
        Column(
            "response_body",
            BLOB,
            "The body the client got, when the proxy changed it (else the upstream's).",
            redacted=BODY,
        ),
        Column("t_request", REAL, TIME),
        Column("t_response", REAL, TIME),
        Column("t_end", REAL, TIME),
        Column("error", TEXT, "Why the exchange failed, if it did.", redacted=Redaction.output("exchange-error")),
        Column("streamed", FLAG, "1 when the response was a stream (SSE)."),
        Column(
            "mutations", Cell.JSON_OBJECTS, "What the proxy did to this exchange: one JSON record per mutation applied."
        ),
        # mitmproxy's own flow state (opt-in): its headers and path redacted as written, bodies left out (they have
        # their columns); not shared all the same, since no rule vets every field of a format mitmproxy may change
        Column(
            "flow_state",
            BLOB,
            "mitmproxy's own flow state (msgpack), with --flow-state only.",
            redacted=FLOW_STATE,
            shared=DROPPED,
        ),
        Column("forwarded", FLAG, "0 when the proxy answered itself and the upstream never saw the request."),
    ),
    created_by="m001_initial",
)
MESSAGES = Table(
    "messages",
    "Every JSON-RPC message, in the order the proxy saw it; `mutation` names what changed it.",
    (
        Column("seq", INTEGER, "Order of the message in the recording.", REFUSED),
        Column("run_id", TEXT, RUN),
        Column("flow_id", TEXT, FLOW),
        Column("sse_idx", INTEGER, "The SSE item that carried it (sse_events.idx), if it came in a stream."),
        Column("direction", TEXT, "to-server or to-client.", REFUSED),
        Column("kind", TEXT, "request, notification, response, error or invalid.", REFUSED),
        Column("jsonrpc_id", Cell.JSON_ID, "The JSON-RPC id (JSON)."),
        Column("method", TEXT, "The method, or for a response the method it answers."),
        Column("text", Cell.JSON, "The message as the client saw it.", EMPTY, JSON),
        Column(
            "upstream_text", Cell.JSON, "The message as the server sent it, when the proxy changed it.", redacted=JSON
        ),
        Column("mutation", TEXT, "The mutation kind that changed or made this message, if any."),
        Column("t", REAL, TIME),
    ),
    created_by="m001_initial",
)
SSE_EVENTS = Table(
    "sse_events",
    "Every item of every Server-Sent Events stream, as the upstream sent it and as the client got it.",
    (
        Column("seq", INTEGER, ORDER, REFUSED),
        Column("run_id", TEXT, RUN),
        Column("flow_id", TEXT, FLOW, REFUSED),
        Column("idx", INTEGER, "The item's index within its stream.", REFUSED),
        Column("kind", TEXT, "event, comment, retry, truncated...", REFUSED),
        Column("origin", TEXT, "upstream, or proxy when the proxy made the item.", REFUSED),
        Column("upstream_raw", BLOB, "The item's bytes as the upstream sent them.", redacted=BODY),
        Column("client_raw", BLOB, "The item's bytes as the client got them.", redacted=BODY),
        Column("t", REAL, TIME),
    ),
    created_by="m001_initial",
)
TERMINAL = Table(
    "terminal",
    "The client's stdout and stderr, in chunks, with their byte offsets.",
    (
        Column("seq", INTEGER, ORDER, REFUSED),
        Column("run_id", TEXT, RUN, REFUSED),
        Column("stream", TEXT, "stdout or stderr.", REFUSED),
        Column("offset", INTEGER, "Byte offset of this chunk in its stream (evidence cites these offsets).", REFUSED),
        Column("data", BLOB, "The bytes (key-like secrets masked at their own length).", EMPTY, TERMINAL_OUTPUT),
        Column("t", REAL, TIME),
    ),
    created_by="m001_initial",
)
FILES = Table(
    "files",
    "Text files the client left under its lab HOME.",
    (
        Column("seq", INTEGER, ORDER, REFUSED),
        Column("run_id", TEXT, RUN, REFUSED),
        Column("path", TEXT, "Path inside the lab HOME.", REFUSED),
        Column("size", INTEGER, "Size in bytes on disk.", REFUSED),
        Column("data", BLOB, "Its content (up to the limit).", redacted=Redaction.output("file")),
        Column("truncated", FLAG, "1 when only the start of the file is kept."),
    ),
    created_by="m001_initial",
)
ANOMALIES = Table(
    "anomalies",
    "Whatever was odd on the wire or in the harness (a cut body, a dead proxy, a batch...).",
    (
        Column("seq", INTEGER, ORDER, REFUSED),
        Column("run_id", TEXT, RUN),
        Column("flow_id", TEXT, FLOW),
        Column("kind", TEXT, "What kind of anomaly (body-over-limit, proxy-exit, upstream-idle-timeout...).", REFUSED),
        Column("detail", TEXT, "What happened, in a sentence.", REFUSED, Redaction.output("anomaly")),
        Column("t", REAL, TIME),
    ),
    created_by="m001_initial",
)
URL_HITS = Table(
    "url_hits",
    "Requests that reached the loopback servers behind URL-mode elicitations.",
    (
        Column("seq", INTEGER, ORDER, REFUSED),
        Column("run_id", TEXT, RUN),
        Column("server", TEXT, "Which loopback URL server was hit.", REFUSED),
        Column("method", TEXT, "HTTP method.", REFUSED),
        Column("path", TEXT, "Path and query (secrets redacted).", REFUSED, PATH),
        Column("headers", Cell.HEADERS, "Request headers (JSON; secrets redacted).", redacted=HEADERS),
        Column("t", REAL, TIME),
    ),
    created_by="m002_url_hits",
)
DESCRIPTIONS = Table(
    "descriptions",
    "What each table and column holds, in words (this table; written with the recording).",
    (
        Column("table_name", TEXT, "The table described."),
        Column("column_name", TEXT, "The column described; empty for the table itself."),
        Column("description", TEXT, "What it holds."),
    ),
    created_by="m003_descriptions",
    key="table_name",
    order=None,
    run_column=None,
)
SCREENS = Table(
    "screens",
    "Snapshots of the screen of a client run under a terminal (--tty): when it waited for input, when an "
    "answer was typed, and at its exit; for a piped client answered at its prompts (--answer --no-tty), its output "
    "rendered as a screen at each answer.",
    (
        Column("seq", INTEGER, "Order in the recording (evidence of kind screen cites it).", REFUSED),
        Column("run_id", TEXT, RUN, REFUSED),
        Column("t", REAL, TIME),
        Column(
            "reason",
            TEXT,
            "Why the screen was taken: waiting (no output for a quiet period), answered (an --answer typed), typed"
            " (the lab typed its own keys: an agent UI's task or exit keys), exit, timeout or ended (killed after it"
            " was given its exit keys).",
            REFUSED,
        ),
        Column("cols", INTEGER, "The terminal's width in columns.", REFUSED),
        Column("rows", INTEGER, "The terminal's height in rows.", REFUSED),
        Column("cursor_row", INTEGER, "The cursor's row (0 is the top)."),
        Column("cursor_col", INTEGER, "The cursor's column (0 is the left)."),
        Column(
            "text",
            TEXT,
            "The rendered rows, right-stripped, joined by newlines (key-like secrets masked).",
            REFUSED,
            TERMINAL_OUTPUT,
        ),
        Column("answer_pattern", TEXT, "For reason answered: the regular expression that matched this screen."),
        Column(
            "answer_text",
            TEXT,
            "For reason answered: the text typed in reply (key-like secrets masked).",
            redacted=TERMINAL_OUTPUT,
        ),
    ),
    created_by="m004_screens",
)
OPENS = Table(
    "opens",
    "Calls of the URL-opener stand-ins first on the client's PATH and in BROWSER (xdg-open, open, gio...): "
    "which one, its arguments, when. The stand-ins open nothing.",
    (
        Column("seq", INTEGER, ORDER, REFUSED),
        Column("run_id", TEXT, RUN, REFUSED),
        Column("t", REAL, TIME + " Null: unknown."),
        Column(
            "opener",
            TEXT,
            "The stand-in called: xdg-open, open, sensible-browser, x-www-browser, www-browser, gio or wslview "
            "(BROWSER names the xdg-open one).",
            REFUSED,
        ),
        Column(
            "argv",
            Cell.ARGV,
            'Its arguments, not its own name (JSON list; key-like values masked), e.g. ["https://..."] or, for '
            'gio, ["open", "https://..."].',
            REFUSED,
            COMMAND_LINE,
        ),
        Column("truncated", FLAG, "1 when the arguments were cut at 4 KiB.", REFUSED),
    ),
    created_by="m005_opens",
)

MODEL_EXCHANGES = Table(
    "model_exchanges",
    "Requests a coding agent sent the lab's model stand-in (the context the agent built for its model) and the "
    "stand-in's replies, one row per request; bodies bounded and redacted like the wire's.",
    (
        Column("seq", INTEGER, "Order in the recording (evidence of kind model cites it).", REFUSED),
        Column("run_id", TEXT, RUN, REFUSED),
        Column("t", REAL, TIME + " When the request arrived."),
        Column(
            "api",
            TEXT,
            "The provider API the request spoke, by its path: anthropic-messages, openai-chat, openai-responses, "
            "gemini-generate, gemini-stream, or unknown (a shape the stand-in does not know: answered 404, unread).",
            REFUSED,
        ),
        Column("method", TEXT, "HTTP method.", REFUSED),
        Column("path", TEXT, "Path and query (secrets redacted).", REFUSED, PATH),
        Column("request_headers", Cell.HEADERS, "Request headers (JSON; secrets redacted).", redacted=HEADERS),
        Column("request_body", BLOB, "The request body as the agent sent it (up to the limit).", redacted=BODY),
        Column("request_truncated", FLAG, "1 when only the start of the request body is kept."),
        Column("streamed", FLAG, "1 when the reply was streamed (SSE), 0 for one JSON document."),
        Column("status", INTEGER, "The HTTP status the stand-in answered."),
        Column("reply_body", BLOB, "The reply's bytes as sent (SSE events or JSON; up to the limit).", redacted=BODY),
        Column("reply_truncated", FLAG, "1 when only the start of the reply is kept."),
        Column(
            "step",
            Cell.JSON_OBJECT,
            "What the scenario's model script did with this request (JSON: its action, e.g. call-tool with the "
            "tool's name, answer, follow-directive, refuse-unknown-api).",
        ),
    ),
    created_by="m006_model_exchanges",
)

ATTESTATIONS = Table(
    "attestations",
    "A person's answers to the questions the wire cannot answer (check --by-hand): what they were asked about a "
    "run, what they answered and when. Attested evidence: it rests on the person's word, never on the wire.",
    (
        Column("seq", INTEGER, ORDER, REFUSED),
        Column("run_id", TEXT, RUN, REFUSED),
        Column(
            "question_id", TEXT, "The question's id (e.g. names-requesting-server): the check that reads it.", REFUSED
        ),
        Column("question", TEXT, "The question as the person read it.", REFUSED),
        Column("answer", TEXT, "y (yes), n (no) or ? (not sure).", REFUSED),
        Column("who", TEXT, "Who answered: person.", REFUSED),
        Column("t", REAL, TIME + " Taken by the proxy side when the answer was given."),
        Column(
            "screenshot",
            BLOB,
            "An optional screenshot the person gave with the answer (PNG or JPEG bytes), kept whole: left out when its"
            " bytes hold text redaction would change.",
            redacted=IMAGE,
        ),
        Column("screenshot_type", TEXT, "image/png or image/jpeg when a screenshot is kept; null otherwise."),
    ),
    created_by="m007_attestations",
)

# in the order their words have always been written (descriptions.rows), the migrations' order but for meta
TABLES: tuple[Table, ...] = (
    META, MIGRATIONS, RUNS, EXCHANGES, MESSAGES, SSE_EVENTS, TERMINAL, FILES, ANOMALIES, URL_HITS, DESCRIPTIONS,
    SCREENS, OPENS, MODEL_EXCHANGES, ATTESTATIONS,
)  # fmt: skip
BY_NAME: Mapping[str, Table] = {table.name: table for table in TABLES}
