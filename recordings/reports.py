"""The report a recording was judged to when it was made, kept inside it (meta), so a later oracle can say what changed.

Writing follows `upgrade`: the file is copied without ever blocking, the copy is proved to be a recording that
carries nothing that could run (no triggers, views or computed columns under the names we touch), written with
`trusted_schema` off, and swapped in with os.replace: the original is either untouched or wholly replaced.
Reading goes through `load`, so the stored text is bounded like every other cell; it is parsed here, depth-checked.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import RecordingError, RecordingFormatError
from .format_names import FORMAT_MARKER
from .guard import DEFAULT_LIMITS, check_tables, json_depth_over
from .meta import STORED_REPORT_KEY, STORED_REPORT_VERSION_KEY
from .model import Recording
from .working_copy import working_copy

REPORT_KEY = STORED_REPORT_KEY  # meta: the JSON report (as `judge --format json` prints it)
VERSION_KEY = STORED_REPORT_VERSION_KEY  # meta: the oracle version that made it
MAX_REPORT_BYTES = DEFAULT_LIMITS.max_value_bytes  # the reader refuses any bigger cell, so never write one


@dataclass(frozen=True, slots=True)
class StoredReport:
    """The report kept in a recording: the oracle version that made it and the JSON document itself."""

    oracle_version: str
    document: dict[str, Any]


def store_report(path: str | Path, report_json_text: str, oracle_version: str) -> None:
    """Keep `report_json_text` (a JSON report) and `oracle_version` in the recording at `path`, replacing any."""
    target = Path(path)
    if len(report_json_text.encode("utf-8")) > MAX_REPORT_BYTES:
        raise RecordingError(f"{target}: the report is larger than a recording cell may be; it was not stored")
    try:
        parsed = json.loads(report_json_text)
    except ValueError as exc:
        raise RecordingError(f"{target}: the report to store is not JSON ({exc}); it was not stored") from exc
    if not isinstance(parsed, dict):
        raise RecordingError(f"{target}: the report to store is not a JSON object; it was not stored")
    if target.is_symlink():  # replacing it would turn a linked corpus into copies, and leave the file as it was
        raise RecordingError(f"{target} is a symbolic link; store into the file it names; nothing was stored")
    if target.is_file() and not target.stat().st_mode & stat.S_IWUSR:  # its owner made it read-only: respect that
        raise RecordingError(f"{target} is read-only; nothing was stored")
    with working_copy(target, beside=target, suffix=".storing", untouched="nothing was stored") as copy:
        _write(copy, target, report_json_text, oracle_version)
        os.chmod(copy, stat.S_IMODE(target.stat().st_mode))
        os.replace(copy, target)


def _write(copy: Path, target: Path, text: str, oracle_version: str) -> None:
    try:
        conn = sqlite3.connect(copy)
        try:
            conn.execute("PRAGMA trusted_schema=OFF")
            conn.execute("PRAGMA journal_mode=DELETE")  # no -wal left beside the copy to be swapped in
            check_tables(conn, target)  # a trigger or view under `meta` could otherwise run on our INSERT
            tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            marker = conn.execute("SELECT value FROM meta WHERE key='format'").fetchone() if "meta" in tables else None
            if marker is None or marker[0] != FORMAT_MARKER:
                raise RecordingFormatError(f"{target} is not a backchannel recording; nothing was stored")
            with conn:
                conn.executemany(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                    [(REPORT_KEY, text), (VERSION_KEY, oracle_version)],
                )
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise RecordingFormatError(f"{target}: cannot store the report ({exc}); nothing was changed") from exc


def stored_report(rec: Recording) -> StoredReport | None:
    """The report kept in `rec`, or None when it has none; a damaged one is a RecordingFormatError saying so."""
    text = rec.meta.get(REPORT_KEY)
    if text is None:
        return None
    where = f"{rec.path}: the stored report"
    if json_depth_over(text, DEFAULT_LIMITS.max_json_depth):
        raise RecordingFormatError(f"{where} nests deeper than {DEFAULT_LIMITS.max_json_depth}; it cannot be read")
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RecordingFormatError(f"{where} is not JSON ({exc})") from exc
    if not isinstance(document, dict) or not isinstance(document.get("results"), list):
        raise RecordingFormatError(f"{where} is not a report (no results list)")
    version = rec.meta.get(VERSION_KEY)
    fallback = document.get("oracle_version")
    return StoredReport(
        oracle_version=version if version is not None else (fallback if isinstance(fallback, str) else "unknown"),
        document=document,
    )
