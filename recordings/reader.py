"""Loading a recording into frozen records, read-only, from a file that may come from anyone."""

from __future__ import annotations

import dataclasses
import re
import sqlite3
from pathlib import Path
from typing import TypeVar

from . import cells as c
from .errors import RecordingError, RecordingFormatError
from .guard import (
    DEFAULT_LIMITS,
    KNOWN_COLUMNS,
    ReadLimits,
    check_sizes,
    lenient_text,
    open_untrusted,
    tighten,
    vetted_columns,
)
from .migrations import FORMAT_MARKER, MIGRATION_SET, READ_AS_IS, known_migrations
from .model import (
    MAX_SCREEN_SIDE,
    OPENER_NAME_LIMIT,
    SCREEN_REASONS,
    Anomaly,
    Exchange,
    LabFile,
    Message,
    Recording,
    Run,
    ScreenSnapshot,
    SseEvent,
    TerminalChunk,
    UrlHit,
    UrlOpen,
)

T = TypeVar("T")


def _open_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to a recording this process is writing (its own file, WAL and all)."""
    if not path.is_file():
        raise RecordingError(f"{path}: no such recording; check the path")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        conn.text_factory = lenient_text
        conn.execute("PRAGMA trusted_schema=OFF")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise RecordingFormatError(f"{path} is not a SQLite database ({exc}); is it a backchannel recording?") from exc


def check_format(conn: sqlite3.Connection, path: Path) -> str:
    """Refuse files that are not ours, or whose format is older or newer than this tool's."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "meta" not in tables or "_sqlite_migrations" not in tables:
        raise RecordingFormatError(f"{path} is a SQLite file but not a backchannel recording (no meta table)")
    marker = conn.execute("SELECT value FROM meta WHERE key='format'").fetchone()
    if marker is None or marker[0] != FORMAT_MARKER:
        raise RecordingFormatError(f"{path} is a SQLite file but not a backchannel recording (meta.format missing)")
    applied = [
        str(r[0])
        for r in conn.execute(
            "SELECT name FROM _sqlite_migrations WHERE migration_set = ? ORDER BY rowid", [MIGRATION_SET]
        )
    ]
    known = known_migrations()
    unknown = [name for name in applied if name not in known]
    if unknown:
        raise RecordingFormatError(
            f"{path} uses recording format {unknown[-1]}, newer than this tool reads ({known[-1]}); "
            "please update backchannel"
        )
    if not applied:
        raise RecordingFormatError(f"{path} has no recording format applied; it is not a finished recording")
    missing = known[known.index(applied[-1]) + 1 :]
    if missing and not set(missing) <= READ_AS_IS:
        raise RecordingFormatError(
            f"{path} uses recording format {applied[-1]}; this tool reads {known[-1]}. Run: backchannel upgrade {path}"
        )
    return applied[-1]


def _rows(conn: sqlite3.Connection, table: str, present: frozenset[str] = frozenset()) -> list[sqlite3.Row]:
    conn.row_factory = sqlite3.Row
    # only the known columns, by name: a missing one reads as NULL and is judged by the row's own checks
    columns = ", ".join(c if c in present else f"NULL AS {c}" for c in KNOWN_COLUMNS[table])
    query = f"SELECT {columns} FROM {table} ORDER BY {'ordinal' if table == 'runs' else 'seq'}"
    try:
        conn.text_factory = str  # decoded in C: valid UTF-8 reads the same as through lenient_text, much faster
        return list(conn.execute(query))
    except sqlite3.OperationalError as exc:
        if "decode" not in str(exc):
            raise
    finally:
        conn.text_factory = lenient_text
    return list(conn.execute(query))  # a cell is not valid UTF-8: read the table again, leniently, as always


def _run(r: sqlite3.Row) -> Run:
    return Run(
        id=c.required_text(r["id"]),
        ordinal=c.required_integer(r["ordinal"]),
        name=c.required_text(r["name"]),
        scenario=c.text(r["scenario"]),
        upstream=c.required_text(r["upstream"]),
        plan=c.json_object(r["plan"]),
        client_argv=c.argv(r["client_argv"]),
        lab_home=c.text(r["lab_home"]),
        started_at=c.number(r["started_at"]),
        ended_at=c.number(r["ended_at"]),
        exit_code=c.integer(r["exit_code"]),
        outcome=c.text(r["outcome"]),
        detail=c.detail(r["detail"]),
    )


def _exchange(r: sqlite3.Row) -> Exchange:
    request_body = c.blob(r["request_body"])
    upstream_response = c.blob(r["upstream_response_body"])
    client_response = c.blob(r["response_body"])
    forwarded = c.blob(r["upstream_request_body"])
    reached_upstream = bool(c.integer(r["forwarded"]))
    return Exchange(
        seq=c.required_integer(r["seq"]),
        run_id=c.text(r["run_id"]),
        flow_id=c.required_text(r["flow_id"]),
        method=c.text(r["method"]),
        path=c.text(r["path"]),
        status=c.integer(r["status"]),
        request_headers=c.headers(r["request_headers"]),
        response_headers=c.headers(r["response_headers"]),
        upstream_response_headers=c.headers(r["upstream_response_headers"] or r["response_headers"]),
        request_body=request_body,
        upstream_request_body=(request_body if forwarded is None else forwarded) if reached_upstream else None,
        upstream_response_body=upstream_response if reached_upstream else None,
        response_body=upstream_response if client_response is None else client_response,
        t_request=c.number(r["t_request"]),
        t_response=c.number(r["t_response"]),
        t_end=c.number(r["t_end"]),
        error=c.text(r["error"]),
        streamed=bool(c.integer(r["streamed"])),
        mutations=c.json_objects(r["mutations"]),
        flow_state=c.blob(r["flow_state"]),
        forwarded=reached_upstream,
    )


def _message(r: sqlite3.Row) -> Message:
    direction = c.required_text(r["direction"])
    if direction not in ("to-server", "to-client"):
        raise ValueError(f"direction {direction!r} is neither to-server nor to-client")
    return Message(
        seq=c.required_integer(r["seq"]),
        run_id=c.text(r["run_id"]),
        flow_id=c.text(r["flow_id"]),
        sse_idx=c.integer(r["sse_idx"]),
        direction=direction,  # type: ignore[arg-type]
        kind=c.required_text(r["kind"]),
        jsonrpc_id=c.rpc_id(r["jsonrpc_id"]),
        method=c.text(r["method"]),
        text=c.json_text(r["text"]) or "",
        upstream_text=c.json_text(r["upstream_text"]),
        mutation=c.text(r["mutation"]),
        t=c.number(r["t"]),
    )


def _screen_side(name: str, value: int) -> int:
    if not 1 <= value <= MAX_SCREEN_SIDE:
        raise ValueError(f"{name} {value} is outside 1..{MAX_SCREEN_SIDE}")
    return value


def _screen(r: sqlite3.Row) -> ScreenSnapshot:
    reason = c.required_text(r["reason"])
    if reason not in SCREEN_REASONS:
        raise ValueError(f"reason {reason!r} is not one of {', '.join(SCREEN_REASONS)}")
    cols = _screen_side("cols", c.required_integer(r["cols"]))  # each checked as it is read: the error names it
    rows = _screen_side("rows", c.required_integer(r["rows"]))
    cursor_row, cursor_col = c.integer(r["cursor_row"]), c.integer(r["cursor_col"])
    if cursor_row is not None and not 0 <= cursor_row < rows or cursor_col is not None and not 0 <= cursor_col <= cols:
        raise ValueError(f"cursor ({cursor_row}, {cursor_col}) is off a {cols}x{rows} screen")
    text = c.required_text(r["text"])
    if text.count("\n") >= rows:
        raise ValueError(f"text has more than {rows} rows")
    return ScreenSnapshot(
        seq=c.required_integer(r["seq"]),
        run_id=c.required_text(r["run_id"]),
        reason=reason,
        cols=cols,
        rows=rows,
        cursor_row=cursor_row,
        cursor_col=cursor_col,
        text=text,
        answer_pattern=c.text(r["answer_pattern"]),
        answer_text=c.text(r["answer_text"]),
        t=c.number(r["t"]),
    )


_OPENER_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._+-]{{0,{OPENER_NAME_LIMIT - 1}}}")


def _open(r: sqlite3.Row) -> UrlOpen:
    run_id = c.required_text(r["run_id"])
    opener = c.required_text(r["opener"])
    if not _OPENER_NAME.fullmatch(opener):
        raise ValueError(f"opener {opener[:80]!r} is not a program name")
    argv = c.json_value(r["argv"], None)
    if not isinstance(argv, list) or not all(isinstance(part, str) for part in argv):
        raise ValueError("argv must be a JSON list of strings")
    truncated = c.required_integer(r["truncated"])
    if truncated not in (0, 1):
        raise ValueError(f"truncated {truncated} is neither 0 nor 1")
    return UrlOpen(
        seq=c.required_integer(r["seq"]),
        run_id=run_id,
        opener=opener,
        argv=tuple(argv),
        truncated=bool(truncated),
        t=c.number(r["t"]),
    )


def load(path: str | Path, limits: ReadLimits = DEFAULT_LIMITS, *, live: bool = False) -> Recording:
    """Read a whole recording that may come from anyone; never writes to it or beside it, never upgrades it.

    `live`: the recording this process is writing (a capture reading its own file mid-run: see open_untrusted)."""
    target = Path(path)
    wal = target.with_name(target.name + "-wal")
    # a writer that closes folds its WAL in and removes it (a live one has one by design)
    left_open = not live and wal.is_file() and wal.stat().st_size > 0
    with open_untrusted(target, limits, live=live) as conn:
        depth = c.JSON_DEPTH.set(limits.max_json_depth)
        try:
            rec = _load(conn, target, limits)
            return dataclasses.replace(rec, left_open=True) if left_open else rec
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc):
                raise RecordingFormatError(
                    f"{target}: reading it took more than {limits.max_vm_steps} SQLite steps; refusing it"
                ) from exc
            raise RecordingFormatError(f"{target} is damaged or not a recording: {exc}") from exc
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise RecordingFormatError(f"{target} is damaged or not a recording: {exc}") from exc
        finally:
            c.JSON_DEPTH.reset(depth)


def _load(conn: sqlite3.Connection, target: Path, limits: ReadLimits) -> Recording:
    columns = vetted_columns(conn, target)  # each table's columns, read once for the checks and the reads below
    tables = set(columns)
    version = check_format(conn, target)
    check_sizes(conn, target, tables, limits, columns)
    tighten(conn, limits)
    conn.row_factory = sqlite3.Row
    entries = c.build(
        "meta",
        list(conn.execute("SELECT key, value FROM meta")),
        lambda r: (c.required_text(r["key"]), c.required_text(r["value"])),
    )
    meta = dict(entries)
    return Recording(
        path=str(target),
        meta=meta,
        format_version=version,
        runs=c.build("runs", _rows(conn, "runs", columns.get("runs", frozenset())), _run),
        exchanges=c.build("exchanges", _rows(conn, "exchanges", columns.get("exchanges", frozenset())), _exchange),
        messages=c.build("messages", _rows(conn, "messages", columns.get("messages", frozenset())), _message),
        sse_events=c.build(
            "sse_events",
            _rows(conn, "sse_events", columns.get("sse_events", frozenset())),
            lambda r: SseEvent(
                seq=c.required_integer(r["seq"]),
                run_id=c.text(r["run_id"]),
                flow_id=c.required_text(r["flow_id"]),
                idx=c.required_integer(r["idx"]),
                kind=c.required_text(r["kind"]),
                origin=c.required_text(r["origin"]),
                upstream_raw=c.blob(r["upstream_raw"]),
                client_raw=c.blob(r["client_raw"]),
                t=c.number(r["t"]),
            ),
        ),
        terminal=c.build(
            "terminal",
            _rows(conn, "terminal", columns.get("terminal", frozenset())),
            lambda r: TerminalChunk(
                seq=c.required_integer(r["seq"]),
                run_id=c.required_text(r["run_id"]),
                stream=c.required_text(r["stream"]),
                offset=c.required_integer(r["offset"]),
                data=c.blob(r["data"]) or b"",
                t=c.number(r["t"]),
            ),
        ),
        files=c.build(
            "files",
            _rows(conn, "files", columns.get("files", frozenset())),
            lambda r: LabFile(
                seq=c.required_integer(r["seq"]),
                run_id=c.required_text(r["run_id"]),
                path=c.required_text(r["path"]),
                size=c.required_integer(r["size"]),
                data=c.blob(r["data"]),
                truncated=bool(c.integer(r["truncated"])),
            ),
        ),
        anomalies=c.build(
            "anomalies",
            _rows(conn, "anomalies", columns.get("anomalies", frozenset())),
            lambda r: Anomaly(
                seq=c.required_integer(r["seq"]),
                run_id=c.text(r["run_id"]),
                flow_id=c.text(r["flow_id"]),
                kind=c.required_text(r["kind"]),
                detail=c.required_text(r["detail"]),
                t=c.number(r["t"]),
            ),
        ),
        url_hits=c.build(
            "url_hits",
            _rows(conn, "url_hits", columns.get("url_hits", frozenset())),
            lambda r: UrlHit(
                seq=c.required_integer(r["seq"]),
                run_id=c.text(r["run_id"]),
                server=c.required_text(r["server"]),
                method=c.required_text(r["method"]),
                path=c.required_text(r["path"]),
                headers=c.headers(r["headers"]),
                t=c.number(r["t"]),
            ),
        ),
        # absent in a recording older than m004_screens (read as it is: see migrations.READ_AS_IS)
        screens=c.build("screens", _rows(conn, "screens", columns["screens"]), _screen) if "screens" in tables else (),
        # absent in a recording older than m005_opens (read as it is, likewise)
        opens=c.build("opens", _rows(conn, "opens", columns["opens"]), _open) if "opens" in tables else (),
    )


def read_run(path: str | Path, run_id: str) -> Run | None:
    """One run's row from a recording that may still be being written (the proxy looks plans up this way)."""
    conn = _open_read_only(Path(path))
    try:
        conn.row_factory = sqlite3.Row
        row = conn.execute("SELECT * FROM runs WHERE id = ?", [run_id]).fetchone()
        return None if row is None else _run(row)
    except (sqlite3.DatabaseError, ValueError, TypeError) as exc:
        raise RecordingFormatError(f"{path}: cannot read run {run_id}: {exc}") from exc
    finally:
        conn.close()


def messages_after(path: str | Path, seq: int, limit: int = 500) -> tuple[Message, ...]:
    """Messages with a sequence number above `seq`, for following a recording while it is written."""
    conn = _open_read_only(Path(path))
    try:
        conn.row_factory = sqlite3.Row
        rows = list(conn.execute("SELECT * FROM messages WHERE seq > ? ORDER BY seq LIMIT ?", [seq, limit]))
        return c.build("messages", rows, _message)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise RecordingFormatError(f"{path}: cannot read messages: {exc}") from exc
    finally:
        conn.close()
