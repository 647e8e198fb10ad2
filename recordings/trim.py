"""A trimmed, redacted copy of a recording: only the chosen runs' rows, every secret redacted again, for sharing.

The source may come from anyone, so the copy is made the way `upgrade` makes one: read without ever blocking (a FIFO
is refused), proved to be a recording that carries nothing that could run (no triggers, views or computed columns),
changed with `trusted_schema` off, and only then moved to `dest`, which is never overwritten (os.link refuses).
Every column of every table is redacted again, each by its declared rule (cell_rules.py: the writer's code), with
the policy the caller hands over (the recording's own patterns and any `--redact`: see
proxy/share/redaction.py); what was redacted comes back, and is kept in the copy's meta as `redactions:export`.
Redaction cannot read an image, so a caller may leave a person's screenshots out altogether (`screenshots=False`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Collection, Mapping
from pathlib import Path

from . import cell_rules, redact
from .errors import RecordingError, RecordingFormatError
from .guard import lenient_text
from .meta import STORED_REPORT_KEY, STORED_REPORT_VERSION_KEY
from .redactions import Redactions
from .tables import ATTESTATIONS, TABLES
from .upgrading import _check_recording
from .working_copy import working_copy

# the tables with a run column, and what it is called there (tables.py declares both)
RUN_COLUMN = {table.name: table.run_column for table in TABLES if table.run_column is not None}


def trim_copy(
    source: str | Path,
    dest: str | Path,
    run_ids: Collection[str] | None = None,
    policy: redact.Policy = redact.DEFAULT_POLICY,
    *,
    screenshots: bool = True,
) -> Redactions:
    """Write to `dest` (which must not exist) a copy of `source` holding only `run_ids`' rows (None: every row),
    redacted with `policy`; returns what was redacted (also kept in the copy's meta, `redactions:export`).

    With runs chosen, rows of no run and the stored report (which describes the whole recording) are left out.
    Without `screenshots`, every answer's screenshot and its type are NULL in the copy.
    """
    target, out = Path(source), Path(dest)
    if out.exists() or out.is_symlink():
        raise RecordingError(f"{out} already exists; choose another --out (nothing was written)")
    untouched = "try again when it ends (nothing was written)"
    with working_copy(target, beside=out, suffix=".trimming", untouched=untouched) as copy:
        with redact.applying(redact.Redactor(policy)) as redactor:
            _trim(copy, target, run_ids, screenshots=screenshots)
        summary = redactor.summary("export")
        _note(copy, target, summary)
        try:
            os.link(copy, out)  # never replaces: a file that appeared at `out` meanwhile is kept
        except FileExistsError:
            raise RecordingError(f"{out} already exists; choose another --out (nothing was written)") from None
        return summary


def _connect(copy: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(copy)
    conn.text_factory = lenient_text  # a damaged cell is shared as the reader shows it
    conn.execute("PRAGMA trusted_schema=OFF")
    conn.execute("PRAGMA journal_mode=DELETE")  # no -wal left beside the copy
    return conn


def _trim(copy: Path, target: Path, run_ids: Collection[str] | None, *, screenshots: bool) -> None:
    try:
        conn = _connect(copy)
        try:
            _check_recording(conn, target)
            tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            with conn:
                if run_ids is not None:
                    wanted = sorted(set(run_ids))
                    marks = ", ".join("?" for _ in wanted)
                    for table, column in RUN_COLUMN.items():
                        if table in tables:
                            conn.execute(
                                f"DELETE FROM {table} WHERE {column} IS NULL OR {column} NOT IN ({marks})", wanted
                            )
                    conn.execute("DELETE FROM meta WHERE key IN (?, ?)", [STORED_REPORT_KEY, STORED_REPORT_VERSION_KEY])
                if not screenshots and ATTESTATIONS.name in tables:  # before the VACUUM below, which drops the bytes
                    conn.execute(f"UPDATE {ATTESTATIONS.name} SET screenshot = NULL, screenshot_type = NULL")
                for table, rules in cell_rules.SHARED.items():  # every column of every table, as declared
                    if table in tables:
                        _redact_table(conn, table, rules)
            conn.execute("VACUUM")  # deleted rows' and cleared screenshots' bytes must not linger in free pages
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise RecordingFormatError(f"{target} cannot be copied ({exc}); nothing was written") from exc


def _redact_table(conn: sqlite3.Connection, table: str, columns: Mapping[str, cell_rules.Rule]) -> None:
    present = {str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")}
    names = [c for c in columns if c in present]
    if not names:
        return
    rows = list(conn.execute(f"SELECT rowid, {', '.join(names)} FROM {table}"))
    for row in rows:
        new = [columns[name](value) for name, value in zip(names, row[1:], strict=True)]
        if new != list(row[1:]):
            sets = ", ".join(f"{name} = ?" for name in names)
            conn.execute(f"UPDATE {table} SET {sets} WHERE rowid = ?", [*new, row[0]])


def _note(copy: Path, target: Path, summary: Redactions) -> None:
    try:
        conn = _connect(copy)
        try:
            key, value = summary.meta_entry()
            with conn:
                conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", [key, value])
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise RecordingFormatError(f"{target} cannot be copied ({exc}); nothing was written") from exc
