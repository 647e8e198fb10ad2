"""A trimmed, redacted copy of a recording: only the chosen runs' rows, every secret redacted again, for sharing.

The source may come from anyone, so the copy is made the way `upgrade` makes one: read without ever blocking (a FIFO
is refused), proved to be a recording that carries nothing that could run (no triggers, views or computed columns),
changed with `trusted_schema` off, and only then moved to `dest`, which is never overwritten (os.link refuses).
Redaction uses the policy the caller hands over (the recording's own patterns and any `--redact`: see
proxy/share/redaction.py); what was redacted comes back, and is kept in the copy's meta as `redactions:export`.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Collection
from pathlib import Path

from . import redact
from .errors import RecordingError, RecordingFormatError
from .guard import lenient_text
from .json_form import json_text, parse_json
from .meta import STORED_REPORT_KEY, STORED_REPORT_VERSION_KEY
from .redactions import Redactions
from .shapes import argv_of
from .table_kinds import Redaction
from .tables import TABLES
from .upgrading import _check_recording
from .working_copy import working_copy


def _headers_text(text: str) -> str:
    """A header column (JSON list of pairs) redacted; a damaged one is dropped rather than shared unread."""
    try:
        pairs = json.loads(text)
        kept = [(str(n), str(v)) for n, v in pairs]
    except (ValueError, TypeError, RecursionError):
        return "[]"
    return json_text(redact.redact_headers(kept))


def _text_or_bytes(fn: Callable[[bytes | None], bytes | None]) -> Callable[[object], object]:
    def apply(value: object) -> object:
        if isinstance(value, str):
            out = fn(value.encode("utf-8", "surrogateescape"))
            return None if out is None else out.decode("utf-8", "surrogateescape")
        return fn(value) if isinstance(value, bytes) else value

    return apply


def _output(kind: str) -> Callable[[object], object]:
    return _text_or_bytes(
        lambda data: None if data is None else redact.mask_host(redact.redact_output(data, kind), kind)
    )


def _argv(argv: list[str]) -> list[str]:
    """A command line's secrets hidden (redact_argv), then the exporting machine's home and user name masked."""
    return [
        redact.mask_host(word.encode("utf-8", "surrogateescape"), "argv").decode("utf-8", "surrogateescape")
        for word in redact.redact_argv(argv)
    ]


def _json_text(value: object) -> object:
    return redact.redact_json_text(value) if isinstance(value, str) else value


_ARGV_MEMBERS = ("target", "client", "invocation")  # meta shapes holding a command line (shapes.py)
_ARGV_LISTS = ("candidates", "tried")


def _argv_text(value: object) -> object:
    """A JSON command line (or a meta shape holding some) with the value after a secret-named flag hidden too."""
    if not isinstance(value, str):
        return value
    parsed = parse_json(value)
    if (argv := argv_of(parsed)) is not None:
        return json_text(_argv(list(argv)))
    if isinstance(parsed, dict) and any(k in parsed for k in (*_ARGV_MEMBERS, *_ARGV_LISTS)):
        for key in _ARGV_MEMBERS:
            if (argv := argv_of(parsed.get(key))) is not None:
                parsed[key] = _argv(list(argv))
        for key in _ARGV_LISTS:
            entries = parsed.get(key)
            argvs = [argv_of(entry) for entry in entries] if isinstance(entries, list) else [None]
            if all(argv is not None for argv in argvs):
                parsed[key] = [_argv(list(argv)) for argv in argvs if argv is not None]
        return redact.redact_json_text(json_text(parsed))
    return redact.redact_json_text(value)


def _path(value: object) -> object:
    return redact.redact_path(value) if isinstance(value, str) else value


def _headers(value: object) -> object:
    return _headers_text(value) if isinstance(value, str) else value


_BODY = _text_or_bytes(redact.redact_json_bytes)
_BY_HOW: dict[str, Callable[[object], object]] = {
    "path": _path,
    "url": lambda value: redact.redact_url(value) if isinstance(value, str) else value,
    "headers": _headers,
    "body": _BODY,
    "json": _json_text,
    "key-like": lambda value: redact.redact_key_like(value, "run-detail") if isinstance(value, str) else value,
    "command-line": _argv_text,
    "dropped": lambda value: None,
}


def _redaction(how: Redaction) -> Callable[[object], object]:
    return _output(how.kind) if how.how == "output" else _BY_HOW[how.how]


# the tables with a run column, and what it is called there (tables.py declares both)
RUN_COLUMN = {table.name: table.run_column for table in TABLES if table.run_column is not None}
# every column that can hold a secret, with how it is redacted (the same functions the writer used); a run's plan is
# backchannel's own (stored as given, as the writer does: replay re-applies it)
REDACTED_COLUMNS: dict[str, dict[str, Callable[[object], object]]] = {
    table.name: {column.name: _redaction(column.shared) for column in table.columns if column.shared is not None}
    for table in TABLES
    if any(column.shared is not None for column in table.columns)
}


def trim_copy(
    source: str | Path,
    dest: str | Path,
    run_ids: Collection[str] | None = None,
    policy: redact.Policy = redact.DEFAULT_POLICY,
) -> Redactions:
    """Write to `dest` (which must not exist) a copy of `source` holding only `run_ids`' rows (None: every row),
    redacted with `policy`; returns what was redacted (also kept in the copy's meta, `redactions:export`).

    With runs chosen, rows of no run and the stored report (which describes the whole recording) are left out.
    """
    target, out = Path(source), Path(dest)
    if out.exists() or out.is_symlink():
        raise RecordingError(f"{out} already exists; choose another --out (nothing was written)")
    untouched = "try again when it ends (nothing was written)"
    with working_copy(target, beside=out, suffix=".trimming", untouched=untouched) as copy:
        with redact.applying(redact.Redactor(policy)) as redactor:
            _trim(copy, target, run_ids)
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


def _trim(copy: Path, target: Path, run_ids: Collection[str] | None) -> None:
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
                for table, columns in REDACTED_COLUMNS.items():
                    if table in tables:
                        _redact_table(conn, table, columns)
            conn.execute("VACUUM")  # deleted rows' bytes must not linger in free pages
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise RecordingFormatError(f"{target} cannot be copied ({exc}); nothing was written") from exc


def _redact_table(conn: sqlite3.Connection, table: str, columns: dict[str, Callable[[object], object]]) -> None:
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
