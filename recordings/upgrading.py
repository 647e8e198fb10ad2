"""`backchannel upgrade`: bring a recording in an older format up to date, touching nothing that is not one.

The path is checked without ever blocking (a FIFO is refused, never read), a copy is made beside it, the copy is
checked (a recording has no triggers and only plain tables), migrated with `trusted_schema` off, checked again,
and swapped in with os.replace: the original is either untouched or wholly replaced.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from sqlite_utils import Database

from . import migrations
from .errors import RecordingFormatError
from .guard import check_tables
from .migrations import FORMAT_MARKER, MIGRATION_SET
from .working_copy import working_copy


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
    with working_copy(target, beside=target, suffix=".upgrading", untouched="nothing was changed") as copy:
        applied = _migrate(copy, target, format_version)
        if applied:
            os.chmod(copy, stat.S_IMODE(target.stat().st_mode))
            os.replace(copy, target)
        return applied


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
