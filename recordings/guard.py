"""Opening a recording that may come from anyone: read-only, immutable, only real known tables, bounded work.

The reader (reader.py) reads through a connection from `open_untrusted`, after `check_tables` and `check_sizes`
have refused anything that could make it hang, fill memory or the disk, or run code the file carries.
"""

from __future__ import annotations

import os
import re
import sqlite3
import stat
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from .errors import RecordingError, RecordingFormatError
from .tables import TABLES

# Every table the reader reads, with the columns it reads from it (and nothing else is ever queried).
KNOWN_COLUMNS: Mapping[str, tuple[str, ...]] = {table.name: table.read_columns for table in TABLES}


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """How much of a recording the reader will take; over any of them is a RecordingFormatError naming where."""

    max_rows: int = 1_000_000  # rows per table
    max_value_bytes: int = 64 * 1024 * 1024  # one cell (text or blob)
    max_total_bytes: int = 1024 * 1024 * 1024  # every cell the reader reads, summed over the file
    max_json_depth: int = 64  # nesting of any JSON column (arrays and objects)
    max_vm_steps: int = 2_000_000_000  # SQLite virtual-machine steps over the whole load: never a hang


DEFAULT_LIMITS = ReadLimits()
_LENGTH_LIMIT = getattr(sqlite3, "SQLITE_LIMIT_LENGTH", 0)


def lenient_text(raw: bytes) -> str:
    """A damaged TEXT cell (invalid UTF-8) is shown with replacement characters rather than losing the whole file."""
    return raw.decode("utf-8", "replace")


def _connect(uri: str, limits: ReadLimits) -> sqlite3.Connection:
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    conn.text_factory = lenient_text
    conn.execute("PRAGMA trusted_schema=OFF")
    conn.execute("PRAGMA temp_store=MEMORY")
    steps = [0]

    def progress() -> int:
        steps[0] += 10_000
        return 1 if steps[0] > limits.max_vm_steps else 0

    conn.set_progress_handler(progress, 10_000)
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return conn


@contextmanager
def open_untrusted(
    path: Path, limits: ReadLimits = DEFAULT_LIMITS, *, live: bool = False
) -> Iterator[sqlite3.Connection]:
    """A read-only connection that writes nothing beside `path` (no -wal, no -shm, no journal).

    A finished recording opens `immutable=1`. One with rows still in a `-wal` beside it (a writer died) is copied,
    with its WAL, to a private temp folder and read there, so its committed rows are seen and the original is
    never touched.

    `live`: the recording this process is writing right now (a capture reading its own file): read in place, through
    SQLite, beside the writer (its -wal and -shm exist). Never copied: a copy opens and closes the file outside
    SQLite, and closing any descriptor of a file drops every POSIX lock this process holds on it, the writer's
    included; mitmdump's connection, closing later, would then take itself for the last one, fold the WAL in and
    delete it under the writer, and every row written after that would be lost.
    """
    if not path.exists():
        raise RecordingError(f"{path}: no such recording; check the path")
    if not path.is_file():
        raise RecordingError(f"{path} is not a regular file; give the path of a .sqlite recording")
    wal = path.with_name(path.name + "-wal")
    with ExitStack() as cleanup:
        source = path
        if live:
            uri = source.resolve().as_uri() + "?mode=ro"
        elif wal.is_symlink() or wal.is_file() and wal.stat().st_size > 0:
            if wal.is_symlink():  # a writer makes its WAL itself: a link there points at whatever someone chose
                raise RecordingFormatError(f"{path}: its -wal is a link, not a file a writer left; refusing to read it")
            # a private folder only when needed: making and removing one costs more than reading a small recording
            private = cleanup.enter_context(tempfile.TemporaryDirectory(prefix="backchannel-read-"))
            source = Path(private) / "copy.sqlite"
            try:  # the copy is bounded as the reading is: a sparse -wal of a terabyte would fill the disk
                left = _copy_bounded(path, source, limits.max_total_bytes)
                _copy_bounded(wal, Path(private) / "copy.sqlite-wal", left, follow=False)  # a link made meanwhile
            except OverflowError:
                raise RecordingFormatError(
                    f"{path} and its -wal hold more than {limits.max_total_bytes} bytes; a recording left open is "
                    "read from a copy of both, within the reader's limit"
                ) from None
            uri = source.resolve().as_uri()  # a private copy: SQLite may fold the WAL in there
        else:
            uri = source.absolute().as_uri() + "?mode=ro&immutable=1"  # resolve()'s lstat per folder: 35 µs a file
        try:
            conn = _connect(uri, limits)
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            _say_why_unreadable(source)
            raise RecordingFormatError(
                f"{path} is not a SQLite database ({exc}); is it a backchannel recording?"
            ) from exc
        try:
            yield conn
        finally:
            conn.close()


def _say_why_unreadable(path: Path) -> None:
    """SQLite says only "unable to open database file" for a file it may not read: the system says why."""
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
    except OSError as exc:
        raise RecordingError(f"{path}: cannot read it ({exc.strerror or exc})") from exc


def _copy_bounded(source: Path, target: Path, budget: int, *, follow: bool = True) -> int:
    """Copy `source` (a regular file; opened without blocking, so a FIFO swapped in never hangs) to `target`, at most
    `budget` bytes (OverflowError past it); returns what is left of the budget. A file can say it holds a terabyte
    in a few KB of disk (a sparse file): copied whole, it would fill the disk."""
    fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW))
    with os.fdopen(fd, "rb") as src:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RecordingFormatError(f"{source} is not a regular file; refusing to read it")
        if info.st_size > budget:  # refused before a byte is copied; the loop below bounds a file that grows
            raise OverflowError(source)
        with open(target, "wb") as out:
            while block := src.read(min(_COPY_BLOCK, budget + 1)):
                if len(block) > budget:
                    raise OverflowError(source)
                out.write(block)
                budget -= len(block)
    return budget


_COPY_BLOCK = 1 << 20


def check_tables(conn: sqlite3.Connection, path: Path) -> set[str]:
    """Refuse triggers, and any known name that is not a plain table; returns the known tables present."""
    return set(vetted_columns(conn, path))


class Vetted(dict[str, frozenset[str]]):
    """Each known table present with its columns, and the most bytes any one row of them reads from defaults."""

    default_bytes: int = 0  # a column added with a DEFAULT gives every older row its value without storing it


def vetted_columns(conn: sqlite3.Connection, path: Path) -> Vetted:
    """`check_tables`, returning each known table present with its columns (read once, reused by the reader)."""
    found = tuple(conn.execute("SELECT type, name, coalesce(sql, '') FROM sqlite_master"))
    triggers = [str(name) for kind, name, _ in found if kind == "trigger"]
    if triggers:
        raise RecordingFormatError(
            f"{path} carries triggers ({', '.join(sorted(triggers))}); a recording has none, refusing to read it"
        )
    known = _VETTED.get(found)
    if known is None:
        known = _vet(conn, path, found)
        if len(_VETTED) < _VETTED_KEPT:
            _VETTED[found] = known
    return known


# Schemas vetted so far, by their sqlite_master rows: SQLite builds a table's columns from the CREATE text stored
# there alone, so the same rows always vet the same (a corpus holds a handful of schemas; asking each file for every
# table's columns was a fifth of a small recording's load). Only a schema that passed is kept: a refused one is
# refused, with its file's name, every time.
_VETTED: dict[tuple[tuple[object, ...], ...], Vetted] = {}
_VETTED_KEPT = 256


def _vet(conn: sqlite3.Connection, path: Path, found: tuple[tuple[object, ...], ...]) -> Vetted:
    present = Vetted()
    for kind, name, sql in found:
        # SQLite's names ignore case: `FROM anomalies` reads a view called Anomalies, so it is vetted as anomalies
        name = str(name).lower()
        if name not in KNOWN_COLUMNS:
            continue
        if kind != "table" or str(sql).lstrip().upper().startswith("CREATE VIRTUAL"):
            raise RecordingFormatError(
                f"{path}: {name} is a {'virtual table' if kind == 'table' else kind}, not a table; "
                "refusing to read it (a recording holds only plain tables)"
            )
        columns = list(conn.execute(f"PRAGMA table_xinfo({name})"))
        generated = [str(col[1]) for col in columns if col[6] not in (0, 1)]
        if generated:
            raise RecordingFormatError(f"{path}: table {name} has computed columns ({', '.join(generated)}); refusing")
        present[name] = frozenset(str(col[1]).lower() for col in columns if col[6] == 0)
        defaults = sum(len(str(col[4]).encode()) for col in columns if col[6] == 0 and col[4] is not None)
        present.default_bytes = max(present.default_bytes, defaults)
    return present


def check_sizes(
    conn: sqlite3.Connection,
    path: Path,
    tables: set[str],
    limits: ReadLimits,
    columns: Mapping[str, frozenset[str]] | None = None,
) -> None:
    """Count rows and measure cells before reading any: over a limit is an error naming the table and column.

    First the file's pages must form well-formed trees (`check_structure`): only then does the rest hold. A file too
    small to break any limit is not measured (measuring reads every cell, a third of a load): no cell holds more
    bytes than the file, no table more rows than it has bytes, and no row reads more than its stored bytes plus its
    columns' defaults."""
    check_structure(conn, path)
    if isinstance(columns, Vetted) and _too_small_to_break(conn, limits, columns.default_bytes):
        return
    total = 0
    for table in sorted(tables):
        present = columns[table] if columns is not None else _columns(conn, table)
        wanted = [c for c in KNOWN_COLUMNS[table] if c in present]
        # bytes, not characters: length() of a text counts its characters by decoding all of it (ten times slower),
        # and the limits are in bytes; a cast to blob only relabels the value
        sizes = "".join(f", max(length(CAST({c} AS BLOB))), total(length(CAST({c} AS BLOB)))" for c in wanted)
        # one scan per table: the row count and every cell's size together (the size scan read every row anyway)
        measured = conn.execute(f"SELECT count(*){sizes} FROM {table}").fetchone()
        if measured[0] > limits.max_rows:
            raise RecordingFormatError(
                f"{path}: table {table} has more than {limits.max_rows} rows; the reader's limit is {limits.max_rows}"
            )
        for i, column in enumerate(wanted):
            biggest, summed = measured[1 + 2 * i] or 0, measured[2 + 2 * i] or 0
            if biggest > limits.max_value_bytes:
                raise RecordingFormatError(
                    f"{path}: column {table}.{column} holds a value of {biggest} bytes; "
                    f"the reader's limit is {limits.max_value_bytes}"
                )
            total += int(summed)
    if total > limits.max_total_bytes:
        raise RecordingFormatError(
            f"{path} holds {total} bytes of cells; the reader's limit is {limits.max_total_bytes}"
        )


def check_structure(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a file whose pages are referenced twice: a crafted file can point many rows at one overflow chain, or
    an interior page's children at one subtree, and SQLite reads each reference again without noticing. A file of a
    few megabytes would then read gigabytes of cells or billions of rows (filling memory, or counting them in one
    step no progress handler interrupts), and no size it stores says so. SQLite's quick_check visits every page
    once, in time linear in the file, and reports a page met twice."""
    try:
        found = conn.execute("PRAGMA quick_check(1)").fetchone()
    except sqlite3.DatabaseError as exc:
        raise RecordingFormatError(f"{path} is damaged or not a recording: {exc}") from exc
    verdict = str(found[0]) if found else ""
    if verdict != "ok":
        said = " ".join(verdict.replace("*** in database main ***", "").split())[:300]
        raise RecordingFormatError(f"{path} is damaged: its SQLite pages are not well-formed ({said}); refusing it")


def _too_small_to_break(conn: sqlite3.Connection, limits: ReadLimits, default_bytes: int) -> bool:
    """Whether the database as this connection sees it (WAL included) is too small to break any read limit."""
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    size = int(pages) * int(conn.execute("PRAGMA page_size").fetchone()[0])
    rows = size  # a row takes at least a byte (in truth a cell pointer and a header)
    return (
        rows <= limits.max_rows
        and size + default_bytes <= limits.max_value_bytes
        and size + rows * default_bytes <= limits.max_total_bytes
    )


def tighten(conn: sqlite3.Connection, limits: ReadLimits) -> None:
    """Once the cells are measured: SQLite itself refuses to make any value bigger than the limit."""
    conn.setlimit(_LENGTH_LIMIT, max(limits.max_value_bytes, 1))


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(col[1]) for col in conn.execute(f"PRAGMA table_info({table})")}


def json_depth_over(text: str, limit: int) -> bool:
    """Whether JSON `text` nests arrays and objects deeper than `limit` (linear; strings are skipped)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    depth = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
