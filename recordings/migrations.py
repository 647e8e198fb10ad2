"""The recording format, as an ordered list of migrations: the list is the format version."""

from __future__ import annotations

from functools import cache

from sqlite_utils import Database, Migrations

from .format_names import FORMAT_MARKER, MIGRATION_SET, READ_AS_IS

__all__ = ["FORMAT_MARKER", "MIGRATION_SET", "READ_AS_IS", "apply", "known_migrations", "latest", "pending"]

migrations = Migrations(MIGRATION_SET)


@migrations()
def m001_initial(db: Database) -> None:
    """Runs, HTTP exchanges, JSON-RPC messages, SSE events, terminal output, lab files and anomalies."""
    statements = [
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """CREATE TABLE runs (
            id TEXT PRIMARY KEY, ordinal INTEGER NOT NULL, name TEXT NOT NULL, scenario TEXT,
            upstream TEXT NOT NULL, plan TEXT NOT NULL, client_argv TEXT, lab_home TEXT,
            started_at REAL, ended_at REAL, exit_code INTEGER, outcome TEXT, detail TEXT)""",
        """CREATE TABLE exchanges (
            seq INTEGER PRIMARY KEY, run_id TEXT, flow_id TEXT NOT NULL UNIQUE,
            method TEXT, path TEXT, status INTEGER,
            request_headers TEXT, response_headers TEXT, upstream_response_headers TEXT,
            request_body BLOB, upstream_request_body BLOB, upstream_response_body BLOB, response_body BLOB,
            t_request REAL, t_response REAL, t_end REAL, error TEXT, streamed INTEGER NOT NULL DEFAULT 0,
            mutations TEXT, flow_state BLOB)""",
        """CREATE TABLE messages (
            seq INTEGER PRIMARY KEY, run_id TEXT, flow_id TEXT, sse_idx INTEGER,
            direction TEXT NOT NULL, kind TEXT NOT NULL, jsonrpc_id TEXT, method TEXT,
            text TEXT NOT NULL, upstream_text TEXT, mutation TEXT, t REAL)""",
        """CREATE TABLE sse_events (
            seq INTEGER PRIMARY KEY, run_id TEXT, flow_id TEXT NOT NULL, idx INTEGER NOT NULL,
            kind TEXT NOT NULL, origin TEXT NOT NULL, upstream_raw BLOB, client_raw BLOB, t REAL)""",
        """CREATE TABLE terminal (
            seq INTEGER PRIMARY KEY, run_id TEXT NOT NULL, stream TEXT NOT NULL,
            offset INTEGER NOT NULL, data BLOB NOT NULL, t REAL)""",
        """CREATE TABLE files (
            seq INTEGER PRIMARY KEY, run_id TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL,
            data BLOB, truncated INTEGER NOT NULL DEFAULT 0)""",
        """CREATE TABLE anomalies (
            seq INTEGER PRIMARY KEY, run_id TEXT, flow_id TEXT, kind TEXT NOT NULL, detail TEXT NOT NULL, t REAL)""",
        "CREATE INDEX messages_run ON messages(run_id, seq)",
        "CREATE INDEX exchanges_run ON exchanges(run_id, seq)",
        "CREATE INDEX sse_run ON sse_events(run_id, seq)",
        "CREATE INDEX terminal_run ON terminal(run_id, seq)",
    ]
    for sql in statements:
        db.execute(sql)


@migrations()
def m002_url_hits(db: Database) -> None:
    """Requests that reached the loopback servers behind URL-mode elicitations (any hit may be a prefetch)."""
    # an answer the proxy made up itself (an injected error, a rejected requestState) never reached the upstream
    db.execute("ALTER TABLE exchanges ADD COLUMN forwarded INTEGER NOT NULL DEFAULT 1")
    db.execute(
        """CREATE TABLE url_hits (
            seq INTEGER PRIMARY KEY, run_id TEXT, server TEXT NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL,
            headers TEXT, t REAL)"""
    )


@migrations()
def m003_descriptions(db: Database) -> None:
    """What each table and column holds, in words, inside the file: it explains itself to any SQLite browser."""
    from .descriptions import rows  # the words of the tool writing (or upgrading) the file

    db.execute(
        """CREATE TABLE descriptions (
            table_name TEXT NOT NULL, column_name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL,
            PRIMARY KEY (table_name, column_name))"""
    )
    db.conn.executemany("INSERT INTO descriptions (table_name, column_name, description) VALUES (?, ?, ?)", rows())


@migrations()
def m004_screens(db: Database) -> None:
    """Screen snapshots of clients run under a terminal (`--tty`): the rendered rows, the cursor, why, when."""
    from .descriptions import rows  # the words of the tool writing (or upgrading) the file

    db.execute(
        """CREATE TABLE screens (
            seq INTEGER PRIMARY KEY, run_id TEXT NOT NULL, t REAL, reason TEXT NOT NULL,
            cols INTEGER NOT NULL, rows INTEGER NOT NULL, cursor_row INTEGER, cursor_col INTEGER,
            text TEXT NOT NULL, answer_pattern TEXT, answer_text TEXT)"""
    )
    db.execute("CREATE INDEX screens_run ON screens(run_id, seq)")
    # a file made by this tool got these words from m003 already; an upgraded one gets them here
    db.conn.executemany(
        "INSERT OR REPLACE INTO descriptions (table_name, column_name, description) VALUES (?, ?, ?)",
        [row for row in rows() if row[0] == "screens"],
    )


@migrations()
def m005_opens(db: Database) -> None:
    """Calls of the URL-opener stand-ins in a client's lab (xdg-open, open, gio...): which, its arguments, when."""
    from .descriptions import rows  # the words of the tool writing (or upgrading) the file

    db.execute(
        """CREATE TABLE opens (
            seq INTEGER PRIMARY KEY, run_id TEXT NOT NULL, t REAL, opener TEXT NOT NULL, argv TEXT NOT NULL,
            truncated INTEGER NOT NULL DEFAULT 0)"""
    )
    db.execute("CREATE INDEX opens_run ON opens(run_id, seq)")
    # a file made by this tool got these words from m003 already; an upgraded one gets them here
    db.conn.executemany(
        "INSERT OR REPLACE INTO descriptions (table_name, column_name, description) VALUES (?, ?, ?)",
        [row for row in rows() if row[0] == "opens"],
    )


@migrations()
def m006_model_exchanges(db: Database) -> None:
    """Requests a coding agent sent the lab's model stand-in, and its replies: the context the agent built."""
    from .descriptions import rows  # the words of the tool writing (or upgrading) the file

    db.execute(
        """CREATE TABLE model_exchanges (
            seq INTEGER PRIMARY KEY, run_id TEXT NOT NULL, t REAL, api TEXT NOT NULL, method TEXT NOT NULL,
            path TEXT NOT NULL, request_headers TEXT, request_body BLOB, request_truncated INTEGER NOT NULL DEFAULT 0,
            streamed INTEGER NOT NULL DEFAULT 0, status INTEGER, reply_body BLOB,
            reply_truncated INTEGER NOT NULL DEFAULT 0, step TEXT)"""
    )
    db.execute("CREATE INDEX model_exchanges_run ON model_exchanges(run_id, seq)")
    db.conn.executemany(
        "INSERT OR REPLACE INTO descriptions (table_name, column_name, description) VALUES (?, ?, ?)",
        [row for row in rows() if row[0] == "model_exchanges"],
    )


@migrations()
def m007_attestations(db: Database) -> None:
    """A person's answers to the questions the wire cannot answer (`check --by-hand`): attested evidence."""
    from .descriptions import rows  # the words of the tool writing (or upgrading) the file

    db.execute(
        """CREATE TABLE attestations (
            seq INTEGER PRIMARY KEY, run_id TEXT NOT NULL, question_id TEXT NOT NULL, question TEXT NOT NULL,
            answer TEXT NOT NULL, who TEXT NOT NULL, t REAL, screenshot BLOB, screenshot_type TEXT)"""
    )
    db.execute("CREATE INDEX attestations_run ON attestations(run_id, seq)")
    db.conn.executemany(
        "INSERT OR REPLACE INTO descriptions (table_name, column_name, description) VALUES (?, ?, ?)",
        [row for row in rows() if row[0] == "attestations"],
    )


def known_migrations() -> list[str]:
    """Every migration this tool knows, in order: the recording format versions it can write or upgrade to."""
    return list(_known(migrations))


@cache
def _known(of: Migrations) -> tuple[str, ...]:
    # a set's names are fixed once its module is imported; asking an empty database on every load cost a connection
    empty = Database(memory=True)
    try:
        return tuple(m.name for m in of.pending(empty))
    finally:
        empty.close()


def latest() -> str:
    """The newest migration name: the recording format version this tool writes."""
    return known_migrations()[-1]


def pending(db: Database) -> list[str]:
    """The migrations a recording still lacks, in the order they would be applied."""
    return [m.name for m in migrations.pending(db)]


def apply(db: Database) -> None:
    """Apply every pending migration."""
    migrations.apply(db)
