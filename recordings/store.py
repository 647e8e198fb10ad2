"""Creating, writing, finalising and upgrading recordings: one batched writer thread per process."""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from . import cell_rules, redact
from .errors import RecordingError, RecordingFormatError
from .format_names import FORMAT_MARKER, MIGRATION_SET, known_migrations
from .json_form import escape_surrogates
from .meta import MetaValue, RecordingInfo
from .rows import AnomalyRow, ExchangeOutcome, ExchangeRequest, Row, RunChange

BATCH_SECONDS = 0.05  # the longest a queued row waits for its commit (what a kill -9 can lose, as before)
BACKLOG = 2000  # queued items that wake the writer before its batch time is up (bounds the memory of a burst)
_STOP = object()
_FLUSH = "flush"
_GROUP = "group"
_LATER = "later"  # a statement slot holding work for the writer thread: it makes rows there (see RecordingWriter.later)
Params = Sequence[object] | Callable[[], Sequence[object]]  # values, or how to make them on the writer thread
Prepared = tuple[str, tuple[cell_rules.Rule, ...]]  # a statement checked against the schema, and its columns' rules
_META_SQL = "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)"
_META_RULES = cell_rules.written("meta", ("key", "value"))


def format_version() -> str:
    """The newest migration name this tool knows: the recording format version it writes."""
    return known_migrations()[-1]


def create(
    path: str | Path,
    info: RecordingInfo | None = None,
    values: Iterable[MetaValue] = (),
    redactor: redact.Redactor | None = None,
) -> Path:
    """Create a new, empty recording at `path`, its meta holding `info` and the given typed values (their secrets
    hidden by `redactor`, the recording's: pass the one its writer will use, so one tally counts them all)."""
    target = Path(path)
    if target.exists():
        raise RecordingError(f"{target} already exists; choose another --out or remove it first")
    target.parent.mkdir(parents=True, exist_ok=True)
    try:  # owner-only from its first byte; SQLite gives the -wal, -shm and -journal files the same mode
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as exc:
        raise RecordingError(f"cannot create recording {target}: {exc.strerror or exc}") from exc
    with redact.applying(redactor or redact.Redactor()):
        rows = [
            cell_rules.redacted(_META_RULES, entry)
            for entry in (
                ("format", FORMAT_MARKER),
                ("format_version", format_version()),
                *(info or RecordingInfo()).meta_entries(),
                *(value.meta_entry() for value in values),
            )
        ]
    # sqlite_utils and the migrations only here and in `upgrade`: mitmdump imports this module to write a recording
    # the CLI created, and importing them cost every proxy's start about 60 ms of CPU (a tenth of it)
    from sqlite_utils import Database

    from . import migrations

    try:
        db = Database(str(target))
        db.execute("PRAGMA journal_mode=WAL")
        migrations.apply(db)
        with db.conn:
            db.conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", rows)
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
    """Apply pending format migrations to a copy and swap it in atomically; returns the names applied.

    Refuses (RecordingError, nothing changed) a path that is missing, empty, not a regular file, not SQLite, or
    not a backchannel recording, and a recording that carries triggers (see recordings/upgrading.py).
    """
    from . import upgrading

    return upgrading.upgrade(path, format_version())


class RecordingWriter:
    """A single writer thread on its own clock: every BATCH_SECONDS it writes everything queued in one transaction.

    Hooks hand it typed rows (recordings/rows.py) and never wait on SQLite, nor wake a thread: waking it per row group
    cost the proxy a thread switch and a GIL hand-over on the request's path, in the middle of forwarding an exchange
    or an SSE event (issue 26). Only a flush, a stop or a backlog wakes it early. If a write fails
    the writer stops and every later call raises, because traffic recorded nowhere is worse than a visible crash.
    Rows (and meta values) are serialised on the writer thread with `redactor` in force: this recording's policy and
    tally, no one else's.
    """

    def __init__(self, path: str | Path, redactor: redact.Redactor | None = None) -> None:
        self.path = str(path)
        self.redactor = redactor or redact.Redactor()
        self._items: deque[Any] = deque()  # statements, groups, work and control items, in order
        self._wake = threading.Event()  # set for a flush, a stop or a backlog only
        self._urgent = False  # a flush or a stop is queued: the batch is written now, not at the end of its time
        self._failure: BaseException | None = None
        self._lock = threading.Lock()  # a put against the writer's last look at the queue: one or the other first
        self._closed = False  # the writer took its last look: a row put now is refused, a flush answered at once
        self._columns: dict[str, frozenset[str]] = {}
        if not Path(self.path).is_file():  # sqlite3 would create an empty file and then call it "not a recording"
            raise RecordingFormatError(f"{self.path}: no such recording (the writer only opens an existing one)")
        try:
            conn = self._connect()
            try:
                for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'"):
                    cols = [row[1] for row in conn.execute(f'PRAGMA table_info("{name}")')]
                    self._columns[name] = frozenset(cols)
            finally:
                conn.close()
        except sqlite3.DatabaseError as exc:
            raise RecordingFormatError(f"{self.path} is not a backchannel recording ({exc})") from exc
        if "meta" not in self._columns:
            raise RecordingFormatError(f"{self.path} is not a backchannel recording (no meta table)")
        self._local = threading.local()
        self._sql: dict[object, Prepared] = {}
        self._thread = threading.Thread(target=self._loop, name="recording-writer", daemon=True)
        self._thread.start()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=30000")
        return conn

    def refuse_if_failed(self) -> None:
        """Raise if the writer stopped (it failed, or it was closed): for a caller that queues only `later` work."""
        if self._failure is not None:
            raise RecordingError(f"recording {self.path} stopped accepting writes: {self._failure}")
        if self._closed:
            raise RecordingError(f"recording {self.path} was closed: nothing more can be written to it")

    def _check(self, table: str, names: Iterable[str]) -> None:
        self.refuse_if_failed()
        known = self._columns.get(table)
        if known is None or not set(names) <= known:
            raise ValueError(f"unknown table or columns for {table}: {sorted(names)}")

    def _put(self, sql: str, params: Params) -> None:
        group = getattr(self._local, "group", None)
        if group is not None:
            group.append((sql, params))
        else:
            self._enqueue((sql, params))

    def _enqueue(self, item: Any, *, urgent: bool = False) -> None:
        """Queue an item; wake the writer only for a flush or a stop, or when the backlog grows (rows wait for its
        clock, BATCH_SECONDS at most: no thread switch per row)."""
        with self._lock:
            closed = self._closed
            if not closed:
                self._items.append(item)
        if closed:  # the writer took its last look: nothing put now would ever be written
            if item is _STOP:
                return
            if item[0] == _FLUSH:
                item[1].set()  # answered at once: the flush then says whether the writer failed
                return
            self.refuse_if_failed()
        if urgent:
            self._urgent = True
            self._wake.set()
        elif len(self._items) >= BACKLOG:
            self._wake.set()

    @contextmanager
    def group(self) -> Iterator[None]:
        """Hand every statement made inside to the writer thread as one item: one wake-up, not one per row."""
        statements: list[tuple[str, Params]] = []
        self._local.group = statements
        try:
            yield
        finally:
            self._local.group = None
            if statements:
                self._enqueue((_GROUP, statements))

    def _prepared(self, key: object) -> Prepared | None:
        """The SQL of a statement shape already checked, or None: check (again, after a failure: it raises)."""
        return self._sql.get(key) if self._failure is None else None

    def _prepare_insert(self, key: object, table: str, columns: Sequence[str]) -> Prepared:
        self._check(table, columns)
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        prepared = self._sql[key] = (sql, cell_rules.written(table, columns))
        return prepared

    def insert(self, row: Row) -> None:
        """Queue one row for insertion (each record type's statement is checked against the schema once)."""
        sql, rules = self._prepared(type(row)) or self._prepare_insert(type(row), row.TABLE, row.COLUMNS)
        # encoded and redacted (each column by its declared rule) on the writer thread, off the proxy's path
        self._put(sql, lambda: cell_rules.redacted(rules, row.values()))

    def insert_exchange(self, request: ExchangeRequest, outcome: ExchangeOutcome) -> None:
        """Queue an exchange row: its request side with its first outcome, as one statement."""
        key = (ExchangeRequest, type(outcome))
        sql, rules = self._prepared(key) or self._prepare_insert(
            key, request.TABLE, (*request.COLUMNS, *outcome.COLUMNS)
        )
        self._put(sql, lambda: cell_rules.redacted(rules, request.values() + outcome.values()))

    def update_exchange(self, flow_id: str, outcome: ExchangeOutcome) -> None:
        """Queue a later outcome of an exchange already written (a late error, a stream's end)."""
        self._update(outcome, flow_id)

    def update_run(self, run_id: str, change: RunChange) -> None:
        """Queue a change to a run already registered."""
        self._update(change, run_id)

    def _update(self, change: ExchangeOutcome | RunChange, key_value: str) -> None:
        key = ("update", type(change))
        prepared = self._prepared(key)
        if prepared is None:
            columns = (*change.COLUMNS, change.KEY)
            self._check(change.TABLE, columns)
            sets = ", ".join(f"{c} = ?" for c in change.COLUMNS)
            sql = f"UPDATE {change.TABLE} SET {sets} WHERE {change.KEY} = ?"
            prepared = self._sql[key] = (sql, cell_rules.written(change.TABLE, columns))
        sql, rules = prepared  # the key through its column's rule too: it names the row as that rule wrote it
        self._put(sql, lambda: cell_rules.redacted(rules, (*change.values(), key_value)))

    def set_meta(self, value: MetaValue) -> None:
        """Queue a meta entry, replacing any earlier one under its key."""
        self._check("meta", ("key", "value"))
        # made and redacted on the writer thread, like a row, with the recording's policy
        self._put(_META_SQL, lambda: cell_rules.redacted(_META_RULES, value.meta_entry()))

    def later(self, work: Callable[[], None]) -> None:
        """Run `work` on the writer thread, in queue order; the rows it inserts there are written with it.

        For the proxy's hot path: a hook hands over the bytes it saw and lets the writer thread parse them and build
        the rows. Work that raises does not stop the writer: it becomes a `recorder-failed` anomaly.
        """
        self._put(_LATER, work)  # type: ignore[arg-type]

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until everything queued so far is committed."""
        done = threading.Event()
        self._enqueue((_FLUSH, done), urgent=True)
        if not done.wait(timeout):
            raise RecordingError(f"recording {self.path}: writer did not commit within {timeout:g} s")
        if self._failure is not None:  # the batch this flush waited for failed: said as any later write would say it
            self.refuse_if_failed()

    def close(self, timeout: float = 10.0) -> None:
        """Commit what is queued and stop the writer thread. RecordingError when the writer failed (what it could
        not write is lost, and said so) or did not finish within `timeout`."""
        self._enqueue(_STOP, urgent=True)
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise RecordingError(f"recording {self.path}: writer did not finish within {timeout:g} s")
        if self._failure is not None:
            self.refuse_if_failed()

    def _loop(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            with redact.applying(self.redactor):
                conn = self._connect()
                self._write_batches(conn)
                with self._lock:
                    self._closed = True  # from here a put is refused: what is queued now is all there is
                while self._items:  # queued behind the stop: written too, flushes among them answered
                    self._write_queued(conn)
        except BaseException as exc:  # a writer that dies silently would lose traffic
            self._failure = exc
            print(f"backchannel: recording writer for {self.path} failed: {exc}", file=sys.stderr, flush=True)
        finally:
            with self._lock:
                self._closed = True
            self._drain_flushes()  # after a failure: the flushes waiting are answered, and the failure said
            if conn is not None:
                conn.close()

    def _write_batches(self, conn: sqlite3.Connection) -> None:
        while True:
            # the batch fills (a flush, a stop or a backlog ends the wait early), then all of it is written; an idle
            # writer wakes 20 times a second for nothing, which costs far less than a wake-up per row
            if not self._urgent and len(self._items) < BACKLOG:
                self._wake.wait(BATCH_SECONDS)
            self._wake.clear()
            self._urgent = False
            if self._write_queued(conn):
                return

    def _write_queued(self, conn: sqlite3.Connection) -> bool:
        """Write the items queued so far in one transaction (a flush commits where it stands); True at a stop. Items
        queued meanwhile wait for the next batch, so a steady stream of traffic still commits on the batch clock."""
        items = self._items
        for _ in range(len(items)):
            item = items.popleft()
            if item is _STOP or item[0] == _FLUSH:
                try:
                    if conn.in_transaction:  # also a batch that made no rows (later work that wrote nothing)
                        conn.execute("COMMIT")
                except BaseException:
                    items.appendleft(item)  # a flush waiting on this commit is answered by the failure, not left
                    raise
                if item is _STOP:
                    return True
                item[1].set()
                continue
            if not conn.in_transaction:
                conn.execute("BEGIN")
            self._execute(conn, item[1] if item[0] is _GROUP else [item])
        if conn.in_transaction:
            conn.execute("COMMIT")
        return False

    def _execute(self, conn: sqlite3.Connection, statements: Sequence[tuple[str, Params]]) -> int:
        """Run queued statements on the writer thread, making values and running later work here; returns a count."""
        done = 0
        for sql, params in statements:
            if sql is _LATER:
                made: list[tuple[str, Params]] = []
                self._local.group = made
                try:
                    params()  # type: ignore[operator]
                except Exception as exc:  # noqa: BLE001 - a hostile body must not stop the recording
                    made.append(self._failed_row(exc))
                finally:
                    self._local.group = None
                done += self._execute(conn, made)
                continue
            try:
                values = params() if callable(params) else params
            except Exception as exc:  # noqa: BLE001 - the same: record that this row could not be made
                sql, values = self._failed_row(exc)
            try:
                conn.execute(sql, values)
            except (UnicodeEncodeError, OverflowError):
                # a value a client or server chose that SQLite cannot hold must not stop the recording: text with a
                # lone surrogate (a JSON "\ud800", decoded) is stored with each as its \uXXXX escape (UTF-8 only);
                # a whole number past 64 bits (an HTTP status of 10**20) as NULL, said in an anomaly
                storable, dropped = _storable(values)
                conn.execute(sql, storable)
                if dropped:
                    detail = f"numbers past SQLite's 64-bit integers stored as NULL: {', '.join(dropped)}"
                    conn.execute(*self._anomaly_row("value-out-of-range", detail))
            done += 1
        return done

    def _failed_row(self, exc: Exception) -> tuple[str, Sequence[object]]:
        return self._anomaly_row("recorder-failed", f"a row could not be made: {type(exc).__name__}: {exc}")

    def _anomaly_row(self, kind: str, detail: str) -> tuple[str, Sequence[object]]:
        row = AnomalyRow(kind=kind, detail=detail)
        sql, rules = self._prepared(AnomalyRow) or self._prepare_insert(AnomalyRow, row.TABLE, row.COLUMNS)
        return sql, cell_rules.redacted(rules, row.values())

    def _drain_flushes(self) -> None:
        """Answer every flush still queued, dropping the rest (only once the queue is closed: no put can race it)."""
        while self._items:
            item = self._items.popleft()
            if item is not _STOP and item[0] == _FLUSH:
                item[1].set()


_SQLITE_INTEGERS = range(-(2**63), 2**63)


def _storable(values: Sequence[object]) -> tuple[list[object], list[str]]:
    """A row's values as SQLite can hold them, and the numbers that had to go (each cut to 40 digits)."""
    out: list[object] = []
    dropped: list[str] = []
    for value in values:
        if isinstance(value, str):
            value = escape_surrogates(value)
        elif isinstance(value, int) and not isinstance(value, bool) and value not in _SQLITE_INTEGERS:
            dropped.append(_digits(value))
            value = None
        out.append(value)
    return out, dropped


def _digits(number: int) -> str:
    sign = "-" if number < 0 else ""
    try:
        text = str(abs(number))
    except ValueError:  # more digits than Python converts
        return f"{sign}(a number of {number.bit_length()} bits)"
    return sign + (text if len(text) <= 40 else f"{text[:40]}... ({len(text)} digits)")


__all__ = ["RecordingWriter", "create", "finalize", "format_version", "upgrade", "MIGRATION_SET"]
