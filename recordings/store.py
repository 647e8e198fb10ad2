"""Creating, writing, finalising and upgrading recordings: one batched writer thread per process."""

from __future__ import annotations

import json
import queue
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from .errors import RecordingError, RecordingFormatError
from .migrations import FORMAT_MARKER, MIGRATION_SET, migrations

BATCH_ROWS = 50
BATCH_SECONDS = 0.05
_STOP = object()
_FLUSH = "flush"
_GROUP = "group"


def format_version() -> str:
    """The newest migration name this tool knows: the recording format version it writes."""
    return migrations._migrations[-1].name


def create(path: str | Path, meta: Mapping[str, str]) -> Path:
    """Create a new, empty recording at `path` with the given meta entries."""
    target = Path(path)
    if target.exists():
        raise RecordingError(f"{target} already exists; choose another --out or remove it first")
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = Database(str(target))
        db.execute("PRAGMA journal_mode=WAL")
        migrations.apply(db)
        rows = {"format": FORMAT_MARKER, "format_version": format_version(), **meta}
        with db.conn:
            db.conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", list(rows.items()))
        db.close()
    except sqlite3.Error as exc:
        raise RecordingError(f"cannot create recording {target}: {exc}") from exc
    return target


def finalize(path: str | Path) -> None:
    """Fold the WAL back in and switch to a rollback journal, so a read-only copy opens anywhere."""
    try:
        conn = sqlite3.connect(str(path), timeout=10)
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.execute("PRAGMA journal_mode=DELETE")
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise RecordingError(f"cannot finalise recording {path}: {exc}") from exc


def upgrade(path: str | Path) -> list[str]:
    """Apply pending format migrations in place; returns the names applied."""
    db = Database(str(path))
    try:
        pending = [m.name for m in migrations.pending(db)]
        migrations.apply(db)
        if pending:
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('format_version', ?)", [format_version()])
        return pending
    finally:
        db.close()


_JSON_TYPES = frozenset({dict, list, tuple})
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _encode(value: Any) -> Any:
    """Column values: dicts and lists become JSON text; bytes stay bytes (an exact type test: this runs per value)."""
    return _dumps(value) if type(value) in _JSON_TYPES else value


class RecordingWriter:
    """A single writer thread fed by a queue; commits every BATCH_ROWS rows or BATCH_SECONDS, whichever first.

    Hooks call insert()/update() and never wait on SQLite. If a write fails the writer stops and every later
    call raises, because traffic recorded nowhere is worse than a visible crash.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._failure: BaseException | None = None
        self._columns: dict[str, frozenset[str]] = {}
        conn = self._connect()
        try:
            for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'"):
                cols = [row[1] for row in conn.execute(f'PRAGMA table_info("{name}")')]
                self._columns[name] = frozenset(cols)
        finally:
            conn.close()
        if "meta" not in self._columns:
            raise RecordingFormatError(f"{self.path} is not a backchannel recording (no meta table)")
        self._local = threading.local()
        self._sql: dict[tuple[str, tuple[str, ...]], str] = {}
        self._thread = threading.Thread(target=self._loop, name="recording-writer", daemon=True)
        self._thread.start()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=30000")
        return conn

    def _check(self, table: str, names: Any) -> None:
        if self._failure is not None:
            raise RecordingError(f"recording {self.path} stopped accepting writes: {self._failure}")
        known = self._columns.get(table)
        if known is None or not set(names) <= known:
            raise ValueError(f"unknown table or columns for {table}: {sorted(names)}")

    def _put(self, sql: str, params: list[Any]) -> None:
        group = getattr(self._local, "group", None)
        if group is not None:
            group.append((sql, params))
        else:
            self._queue.put((sql, params))

    @contextmanager
    def group(self) -> Iterator[None]:
        """Hand every statement made inside to the writer thread as one item: one wake-up, not one per row."""
        statements: list[tuple[str, list[Any]]] = []
        self._local.group = statements
        try:
            yield
        finally:
            self._local.group = None
            if statements:
                self._queue.put((_GROUP, statements))

    def insert(self, table: str, row: Mapping[str, Any]) -> None:
        """Queue one row for insertion."""
        key = (table, tuple(row))
        sql = self._sql.get(key)
        if sql is None:  # validate and build each statement shape once; hooks insert the same shapes all day
            self._check(table, row.keys())
            sql = self._sql[key] = f"INSERT INTO {table} ({', '.join(key[1])}) VALUES ({', '.join('?' * len(row))})"
        elif self._failure is not None:
            self._check(table, row.keys())
        self._put(sql, [_encode(v) for v in row.values()])

    def update(self, table: str, key: tuple[str, Any], values: Mapping[str, Any]) -> None:
        """Queue an update of the rows whose key column equals the key value."""
        self._check(table, [key[0], *values])
        sets = ", ".join(f"{c} = ?" for c in values)
        self._put(f"UPDATE {table} SET {sets} WHERE {key[0]} = ?", [*map(_encode, values.values()), key[1]])

    def set_meta(self, key: str, value: str) -> None:
        self._check("meta", ["key", "value"])
        self._put("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", [key, value])

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until everything queued so far is committed."""
        done = threading.Event()
        self._queue.put((_FLUSH, done))
        if not done.wait(timeout):
            raise RecordingError(f"recording {self.path}: writer did not commit within {timeout:.0f} s")
        if self._failure is not None:
            raise RecordingError(f"recording {self.path} stopped accepting writes: {self._failure}")

    def close(self, timeout: float = 10.0) -> None:
        """Commit what is queued and stop the writer thread."""
        self._queue.put(_STOP)
        self._thread.join(timeout)

    def _loop(self) -> None:
        conn = self._connect()
        pending = 0
        first = 0.0
        try:
            while True:
                wait = None if pending == 0 else max(0.0, BATCH_SECONDS - (time.monotonic() - first))
                try:
                    item = self._queue.get(timeout=wait)
                except queue.Empty:
                    item = None
                due = pending >= BATCH_ROWS or (pending > 0 and time.monotonic() - first >= BATCH_SECONDS)
                if item is None or item is _STOP or item[0] == _FLUSH or due:
                    if pending:
                        conn.execute("COMMIT")
                        pending = 0
                    if item is _STOP:
                        return
                    if item is not None and item[0] == _FLUSH:
                        item[1].set()
                        continue
                    if item is None:
                        continue
                if pending == 0:
                    conn.execute("BEGIN")
                    first = time.monotonic()
                statements = item[1] if item[0] is _GROUP else [item]
                for sql, params in statements:
                    conn.execute(sql, params)
                pending += len(statements)
        except BaseException as exc:  # a writer that dies silently would lose traffic
            self._failure = exc
            print(f"backchannel: recording writer for {self.path} failed: {exc}", file=sys.stderr, flush=True)
            self._drain_flushes()
        finally:
            conn.close()

    def _drain_flushes(self) -> None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if item is not _STOP and item[0] == _FLUSH:
                item[1].set()


__all__ = ["RecordingWriter", "create", "finalize", "format_version", "upgrade", "MIGRATION_SET"]
