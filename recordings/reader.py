"""Loading a recording into frozen records, read-only, from a file that may come from anyone."""

from __future__ import annotations

import dataclasses
import sqlite3
from functools import lru_cache
from pathlib import Path
from typing import Any

from . import cells as c
from .errors import RecordingError, RecordingFormatError
from .format_names import FORMAT_MARKER, MIGRATION_SET, READ_AS_IS, known_migrations
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
from .model import Message, Recording, Run
from .table_kinds import Table
from .table_rows import READERS


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


@lru_cache(maxsize=1024)
def _query(name: str, order: str | None, present: frozenset[str]) -> str:
    # only the known columns, by name: a missing one reads as NULL and is judged by the row's own checks
    columns = ", ".join(c if c in present else f"NULL AS {c}" for c in KNOWN_COLUMNS[name])
    return f"SELECT {columns} FROM {name}" + (f" ORDER BY {order}" if order else "")


def _rows(conn: sqlite3.Connection, table: Table, present: frozenset[str]) -> list[tuple[Any, ...]]:
    conn.row_factory = None  # plain tuples, in the declared column order
    query = _query(table.name, table.order, present)  # the same few per process: written once each
    try:
        conn.text_factory = str  # decoded in C: valid UTF-8 reads the same as through lenient_text, much faster
        return list(conn.execute(query))
    except sqlite3.OperationalError as exc:
        if "decode" not in str(exc):
            raise
    finally:
        conn.text_factory = lenient_text
    return list(conn.execute(query))  # a cell is not valid UTF-8: read the table again, leniently, as always


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
    read: dict[str, Any] = {}  # each table's records, by the name of the Recording field that holds them
    for name, reader in READERS.items():
        if name not in tables and reader.table.created_by in READ_AS_IS:
            read[name] = ()  # a table a recording in an older format lacks and is read without (m004_screens...)
        else:
            read[name] = reader.records(_rows(conn, reader.table, columns.get(name, frozenset())))
    meta = dict(read.pop("meta"))
    return Recording(path=str(target), meta=meta, format_version=version, **read)


def read_run(path: str | Path, run_id: str) -> Run | None:
    """One run's row from a recording that may still be being written (the proxy looks plans up this way)."""
    conn = _open_read_only(Path(path))
    try:
        reader = READERS["runs"]
        row = conn.execute(f"SELECT {', '.join(reader.columns)} FROM runs WHERE id = ?", [run_id]).fetchone()
        return None if row is None else reader.record(row)
    except (sqlite3.DatabaseError, ValueError, TypeError) as exc:
        raise RecordingFormatError(f"{path}: cannot read run {run_id}: {exc}") from exc
    finally:
        conn.close()


def messages_after(path: str | Path, seq: int, limit: int = 500) -> tuple[Message, ...]:
    """Messages with a sequence number above `seq`, for following a recording while it is written."""
    conn = _open_read_only(Path(path))
    try:
        reader = READERS["messages"]
        query = f"SELECT {', '.join(reader.columns)} FROM messages WHERE seq > ? ORDER BY seq LIMIT ?"
        rows: tuple[Message, ...] = reader.records(conn.execute(query, [seq, limit]))
        return rows
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise RecordingFormatError(f"{path}: cannot read messages: {exc}") from exc
    finally:
        conn.close()
