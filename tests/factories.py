"""Tiny builders for recordings in tests: fixed sequence numbers, no clock, rows written as the proxy writes them."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

from backchannel.recordings import store
from backchannel.recordings.meta import RecordingInfo
from backchannel.recordings.rows import (
    AnomalyRow,
    AttestationRow,
    ExchangeRequest,
    ExchangeResponse,
    FileRow,
    MessageRow,
    ModelExchangeRow,
    OpenRow,
    Row,
    RunRow,
    ScreenRow,
    SseItemRow,
    TerminalChunkRow,
    UrlHitRow,
)
from backchannel.recordings.shapes import RunDetail

ROWS: dict[str, type[Row]] = {
    "messages": MessageRow,
    "sse_events": SseItemRow,
    "anomalies": AnomalyRow,
    "terminal": TerminalChunkRow,
    "files": FileRow,
    "url_hits": UrlHitRow,
    "screens": ScreenRow,
    "opens": OpenRow,
    "model_exchanges": ModelExchangeRow,
    "attestations": AttestationRow,
}
_REQUEST_SIDE = frozenset(f.name for f in fields(ExchangeRequest))


def new_recording(path: Path, runs: list[dict[str, Any]] | None = None, **tables: list[dict[str, Any]]) -> Path:
    """Create a finalised recording with the given rows (table name -> rows, each the typed row's fields)."""
    store.create(path, RecordingInfo(nonce="test-nonce", tool_version="test"))
    writer = store.RecordingWriter(path)
    for ordinal, run in enumerate(runs or [], start=1):
        fields_ = {"ordinal": ordinal, "name": f"run{ordinal}", "upstream": "http://127.0.0.1:9/mcp", "plan": {}, **run}
        if isinstance(fields_.get("detail"), dict):
            fields_["detail"] = RunDetail.from_json(fields_["detail"])
        writer.insert(RunRow(**fields_))
    for table, rows in tables.items():
        for row in rows:
            if table == "exchanges":  # an exchange's request side and a whole response, as one row
                request = {k: v for k, v in row.items() if k in _REQUEST_SIDE}
                outcome = {k: v for k, v in row.items() if k not in _REQUEST_SIDE}
                writer.insert_exchange(ExchangeRequest(**request), ExchangeResponse(**outcome))
            else:
                writer.insert(ROWS[table](**row))
    writer.flush()
    writer.close()
    store.finalize(path)
    return path
