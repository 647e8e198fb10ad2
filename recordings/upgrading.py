"""`backchannel upgrade`: bring a recording in an older format up to date, touching nothing that is not one.

The path is checked without ever blocking (a FIFO is refused, never read), a copy is made beside it, the copy is
checked (a recording has no triggers and only plain tables), migrated with `trusted_schema` off, checked again,
and swapped in with os.replace: the original is either untouched or wholly replaced.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import tempfile
from pathlib import Path

from sqlite_utils import Database

from . import migrations
from .errors import RecordingError, RecordingFormatError
from .guard import check_tables
from .migrations import FORMAT_MARKER, MIGRATION_SET

SQLITE_HEADER = b"SQLite format 3\x00"
_KINDS = {stat.S_IFDIR: "a directory", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device"}


def _copy_checked(target: Path, into: int) -> None:
    """Copy `target` into the open file `into`, refusing anything that is not a non-empty SQLite file."""
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK)  # O_NONBLOCK: a FIFO must never block us
    except FileNotFoundError:
        raise RecordingError(f"{target}: no such file; give the path of an existing recording") from None
    except IsADirectoryError:
        raise RecordingError(f"{target} is a directory, not a recording") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
            raise RecordingError(f"{target} is {kind}, not a recording; nothing was changed")
        if info.st_size == 0:
            raise RecordingError(f"{target} is empty, not a recording; nothing was changed")
        head = os.pread(fd, len(SQLITE_HEADER), 0)
        if head != SQLITE_HEADER:
            raise RecordingFormatError(f"{target} is not a SQLite database, so not a recording; nothing was changed")
        offset = 0
        while chunk := os.pread(fd, 1 << 20, offset):
            os.write(into, chunk)
            offset += len(chunk)
    finally:
        os.close(fd)


def _check_recording(conn: sqlite3.Connection, target: Path) -> list[str]:
    """The migrations the copy has applied, after proving it is one of ours and carries nothing that could run."""
    check_tables(conn, target)  # triggers, views or computed columns under known names: refused
    tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "meta" not in tables or "_sqlite_migrations" not in tables:
        raise RecordingFormatError(
            f"{target} is a SQLite database but not a backchannel recording; nothing was changed"
        )
    marker = conn.execute("SELECT value FROM meta WHERE key='format'").fetchone()
    if marker is None or marker[0] != FORMAT_MARKER:
        raise RecordingFormatError(
            f"{target} is a SQLite database but not a backchannel recording (no meta.format); nothing was changed"
        )
    applied = [
        str(r[0]) for r in conn.execute("SELECT name FROM _sqlite_migrations WHERE migration_set = ?", [MIGRATION_SET])
    ]
    known = migrations.known_migrations()
    newer = [name for name in applied if name not in known]
    if newer:
        raise RecordingFormatError(
            f"{target} uses recording format {newer[-1]}, newer than this tool knows; please update backchannel"
        )
    return applied


def upgrade(path: str | Path, format_version: str) -> list[str]:
    """Apply pending migrations to a copy of the recording and swap it in; returns the names applied."""
    target = Path(path)
    wal = target.with_name(target.name + "-wal")
    if wal.is_file() and wal.stat().st_size > 0:
        raise RecordingError(f"{target} has a -wal beside it: another process may be writing it; nothing was changed")
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".upgrading", dir=target.parent)
    copy = Path(name)
    try:
        try:
            _copy_checked(target, fd)
        finally:
            os.close(fd)
        applied = _migrate(copy, target, format_version)
        if applied:
            os.chmod(copy, stat.S_IMODE(target.stat().st_mode))
            os.replace(copy, target)
        return applied
    finally:
        for leftover in (copy, copy.with_name(copy.name + "-journal")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


def _migrate(copy: Path, target: Path, format_version: str) -> list[str]:
    try:
        conn = sqlite3.connect(copy)
        try:
            conn.execute("PRAGMA trusted_schema=OFF")
            conn.execute("PRAGMA journal_mode=DELETE")
            _check_recording(conn, target)
            db = Database(conn)
            pending = migrations.pending(db)
            if pending:
                migrations.apply(db)
                with conn:
                    conn.execute(
                        "INSERT OR REPLACE INTO meta(key, value) VALUES ('format_version', ?)", [format_version]
                    )
                after = _check_recording(conn, target)
                if after[-1:] != [format_version]:
                    raise RecordingFormatError(
                        f"{target}: the upgraded copy is not at {format_version}; nothing changed"
                    )
            return pending
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise RecordingFormatError(f"{target} cannot be upgraded ({exc}); nothing was changed") from exc
