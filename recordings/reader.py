"""Loading a recording into frozen records, read-only, from a file that may come from anyone."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from .errors import RecordingError, RecordingFormatError
from .migrations import FORMAT_MARKER, MIGRATION_SET, known_migrations
from .model import (
    Anomaly,
    Exchange,
    Headers,
    LabFile,
    Message,
    Recording,
    Run,
    SseEvent,
    TerminalChunk,
    UrlHit,
)
from .shapes import RunDetail

T = TypeVar("T")


def _lenient_text(raw: bytes) -> str:
    # a damaged TEXT cell (invalid UTF-8) is shown with replacement characters rather than losing the whole file
    return raw.decode("utf-8", "replace")


def _open_read_only(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise RecordingError(f"{path}: no such recording; check the path")
    uri = path.resolve().as_uri()
    try:
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True)
        conn.text_factory = _lenient_text
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except (sqlite3.DatabaseError, UnicodeDecodeError):
        pass
    try:
        # A WAL file on a read-only medium cannot take the shared-memory lock; immutable skips it.
        conn = sqlite3.connect(f"{uri}?immutable=1", uri=True)
        conn.text_factory = _lenient_text
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
    if applied[-1] != known[-1]:
        raise RecordingFormatError(
            f"{path} uses recording format {applied[-1]}; this tool reads {known[-1]}. Run: backchannel upgrade {path}"
        )
    return applied[-1]


def _rows(conn: sqlite3.Connection, table: str) -> list[sqlite3.Row]:
    conn.row_factory = sqlite3.Row
    return list(conn.execute(f"SELECT * FROM {table} ORDER BY {'ordinal' if table == 'runs' else 'seq'}"))


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _blob(value: Any) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    return str(value).encode("utf-8")


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _json(value: Any, default: Any) -> Any:
    if value is None:
        return default
    return json.loads(value)


def _object(value: Any) -> dict[str, Any]:
    """A JSON column that must hold an object (a run's plan)."""
    found = _json(value, {})
    if not isinstance(found, dict):
        raise ValueError(f"expected a JSON object, found {type(found).__name__}")
    return found


def _detail(value: Any) -> RunDetail:
    """A run's detail: an object, its members read by the shape both sides share (wrongly typed ones as absent)."""
    found = RunDetail.from_json(_json(value, {}))
    if found is None:
        raise ValueError("detail must be a JSON object")
    return found


def _objects(value: Any) -> tuple[dict[str, Any], ...]:
    """A JSON column that must hold a list of objects (an exchange's mutation records)."""
    found = _json(value, [])
    if not isinstance(found, list) or not all(isinstance(item, dict) for item in found):
        raise ValueError("expected a JSON list of objects")
    return tuple(found)


def _argv(value: Any) -> tuple[str, ...] | None:
    found = _json(value, None)
    if found is None:
        return None
    if not isinstance(found, list) or not all(isinstance(part, str) for part in found):
        raise ValueError("client_argv must be a JSON list of strings")
    return tuple(found)


def _rpc_id(value: Any) -> str | None:
    text = _text(value)
    if text is not None:
        json.loads(text)  # an id the oracle cannot decode is a damaged row, named as such
    return text


def _headers(value: Any) -> Headers:
    pairs = _json(value, [])
    return tuple((str(k), str(v)) for k, v in pairs)


def _build[T](table: str, rows: list[sqlite3.Row], make: Callable[[sqlite3.Row], T]) -> tuple[T, ...]:
    out = []
    for row in rows:
        try:
            out.append(make(row))
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            try:
                key = row["id"] if table == "runs" else row["seq"]
            except (IndexError, KeyError):
                key = "?"  # the table itself lacks its key column: its schema is damaged
            raise RecordingFormatError(f"row {key} of table {table} is malformed: {exc}") from exc
    return tuple(out)


def _run(r: sqlite3.Row) -> Run:
    return Run(
        id=str(r["id"]),
        ordinal=int(r["ordinal"]),
        name=str(r["name"]),
        scenario=_text(r["scenario"]),
        upstream=str(r["upstream"]),
        plan=_object(r["plan"]),
        client_argv=_argv(r["client_argv"]),
        lab_home=_text(r["lab_home"]),
        started_at=_float(r["started_at"]),
        ended_at=_float(r["ended_at"]),
        exit_code=_int(r["exit_code"]),
        outcome=_text(r["outcome"]),
        detail=_detail(r["detail"]),
    )


def _exchange(r: sqlite3.Row) -> Exchange:
    request_body = _blob(r["request_body"])
    upstream_response = _blob(r["upstream_response_body"])
    client_response = _blob(r["response_body"])
    forwarded = _blob(r["upstream_request_body"])
    reached_upstream = bool(r["forwarded"])
    return Exchange(
        seq=int(r["seq"]),
        run_id=_text(r["run_id"]),
        flow_id=str(r["flow_id"]),
        method=_text(r["method"]),
        path=_text(r["path"]),
        status=_int(r["status"]),
        request_headers=_headers(r["request_headers"]),
        response_headers=_headers(r["response_headers"]),
        upstream_response_headers=_headers(r["upstream_response_headers"] or r["response_headers"]),
        request_body=request_body,
        upstream_request_body=(request_body if forwarded is None else forwarded) if reached_upstream else None,
        upstream_response_body=upstream_response if reached_upstream else None,
        response_body=upstream_response if client_response is None else client_response,
        t_request=_float(r["t_request"]),
        t_response=_float(r["t_response"]),
        t_end=_float(r["t_end"]),
        error=_text(r["error"]),
        streamed=bool(r["streamed"]),
        mutations=_objects(r["mutations"]),
        flow_state=_blob(r["flow_state"]),
        forwarded=reached_upstream,
    )


def _message(r: sqlite3.Row) -> Message:
    direction = str(r["direction"])
    if direction not in ("to-server", "to-client"):
        raise ValueError(f"direction {direction!r} is neither to-server nor to-client")
    return Message(
        seq=int(r["seq"]),
        run_id=_text(r["run_id"]),
        flow_id=_text(r["flow_id"]),
        sse_idx=_int(r["sse_idx"]),
        direction=direction,  # type: ignore[arg-type]
        kind=str(r["kind"]),
        jsonrpc_id=_rpc_id(r["jsonrpc_id"]),
        method=_text(r["method"]),
        text=_text(r["text"]) or "",
        upstream_text=_text(r["upstream_text"]),
        mutation=_text(r["mutation"]),
        t=_float(r["t"]),
    )


def load(path: str | Path) -> Recording:
    """Read a whole recording; never writes to it and never upgrades it."""
    target = Path(path)
    conn = _open_read_only(target)
    try:
        version = check_format(conn, target)
        meta = {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
        return Recording(
            path=str(target),
            meta=meta,
            format_version=version,
            runs=_build("runs", _rows(conn, "runs"), _run),
            exchanges=_build("exchanges", _rows(conn, "exchanges"), _exchange),
            messages=_build("messages", _rows(conn, "messages"), _message),
            sse_events=_build(
                "sse_events",
                _rows(conn, "sse_events"),
                lambda r: SseEvent(
                    seq=int(r["seq"]),
                    run_id=_text(r["run_id"]),
                    flow_id=str(r["flow_id"]),
                    idx=int(r["idx"]),
                    kind=str(r["kind"]),
                    origin=str(r["origin"]),
                    upstream_raw=_blob(r["upstream_raw"]),
                    client_raw=_blob(r["client_raw"]),
                    t=_float(r["t"]),
                ),
            ),
            terminal=_build(
                "terminal",
                _rows(conn, "terminal"),
                lambda r: TerminalChunk(
                    seq=int(r["seq"]),
                    run_id=str(r["run_id"]),
                    stream=str(r["stream"]),
                    offset=int(r["offset"]),
                    data=_blob(r["data"]) or b"",
                    t=_float(r["t"]),
                ),
            ),
            files=_build(
                "files",
                _rows(conn, "files"),
                lambda r: LabFile(
                    seq=int(r["seq"]),
                    run_id=str(r["run_id"]),
                    path=str(r["path"]),
                    size=int(r["size"]),
                    data=_blob(r["data"]),
                    truncated=bool(r["truncated"]),
                ),
            ),
            anomalies=_build(
                "anomalies",
                _rows(conn, "anomalies"),
                lambda r: Anomaly(
                    seq=int(r["seq"]),
                    run_id=_text(r["run_id"]),
                    flow_id=_text(r["flow_id"]),
                    kind=str(r["kind"]),
                    detail=str(r["detail"]),
                    t=_float(r["t"]),
                ),
            ),
            url_hits=_build(
                "url_hits",
                _rows(conn, "url_hits"),
                lambda r: UrlHit(
                    seq=int(r["seq"]),
                    run_id=_text(r["run_id"]),
                    server=str(r["server"]),
                    method=str(r["method"]),
                    path=str(r["path"]),
                    headers=_headers(r["headers"]),
                    t=_float(r["t"]),
                ),
            ),
        )
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise RecordingFormatError(f"{target} is damaged or not a recording: {exc}") from exc
    finally:
        conn.close()


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
        return _build("messages", rows, _message)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise RecordingFormatError(f"{path}: cannot read messages: {exc}") from exc
    finally:
        conn.close()
