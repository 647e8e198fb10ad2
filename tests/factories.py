"""Tiny builders for recordings in tests: fixed sequence numbers, no clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from backchannel.recordings import store


def new_recording(path: Path, runs: list[dict[str, Any]] | None = None, **tables: list[dict[str, Any]]) -> Path:
    """Create a finalised recording with the given rows (table name -> rows)."""
    store.create(path, {"nonce": "test-nonce", "tool_version": "test"})
    writer = store.RecordingWriter(path)
    for ordinal, run in enumerate(runs or [], start=1):
        writer.insert(
            "runs",
            {"ordinal": ordinal, "name": f"run{ordinal}", "upstream": "http://127.0.0.1:9/mcp", "plan": {}, **run},
        )
    for table, rows in tables.items():
        for row in rows:
            writer.insert(table, row)
    writer.flush()
    writer.close()
    store.finalize(path)
    return path
