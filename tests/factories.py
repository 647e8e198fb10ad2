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
    RunEnd,
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


def new_recording(
    path: Path,
    runs: list[dict[str, Any]] | None = None,
    *,
    ended_at: float | None = None,
    **tables: list[dict[str, Any]],
) -> Path:
    """Create a finalised recording with the given rows (table name -> rows, each the typed row's fields); with
    `ended_at`, every run ended then (exit code 0), as a harness that saw it end writes it."""
    store.create(path, RecordingInfo(nonce="test-nonce", tool_version="test"))
    writer = store.RecordingWriter(path)
    for ordinal, run in enumerate(runs or [], start=1):
        fields_ = {"ordinal": ordinal, "name": f"run{ordinal}", "upstream": "http://127.0.0.1:9/mcp", "plan": {}, **run}
        if isinstance(fields_.get("detail"), dict):
            fields_["detail"] = RunDetail.from_json(fields_["detail"])
        writer.insert(RunRow(**fields_))
        if ended_at is not None:
            detail = fields_.get("detail", RunDetail())
            writer.update_run(fields_["id"], RunEnd(ended_at=ended_at, exit_code=0, outcome="exited", detail=detail))
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


# screenshots a person may give with an answer (check --by-hand), each payload found nowhere else in a recording
PNG_SHOT = b"\x89PNG\r\n\x1a\n" + b"png-payload-6b1f"
JPEG_SHOT = b"\xff\xd8\xff\xe0" + b"jpeg-payload-9d2c"
HOSTILE_SHOT = b"<html><script>alert('not a png')</script></html>"  # its row says image/png


def answered_recording(path: Path) -> Path:
    """A `check --by-hand` recording the by-hand checks judge: in run `contract` (id a) the person answered "no" with
    a PNG (FAIL), "no" with bytes that only claim to be a PNG (FAIL) and "not sure" with a JPEG (WARN); in run
    `probe` (id b), "no" with no screenshot (FAIL)."""
    by_hand = {"scenario": "elicitation-ui", "detail": {"by_hand": True}}

    def answer(
        run: str, question: str, said: str, shot: bytes | None = None, kind: str | None = None
    ) -> dict[str, Any]:
        words = f"About {question}?"
        row = {"run_id": run, "question_id": question, "question": words, "answer": said, "t": 1.0}
        return {**row, "screenshot": shot, "screenshot_type": kind}

    return new_recording(
        path,
        runs=[{"id": "a", "name": "contract", **by_hand}, {"id": "b", "name": "probe", **by_hand}],
        ended_at=2.0,
        attestations=[
            answer("a", "names-requesting-server", "n", PNG_SHOT, "image/png"),
            answer("a", "url-shown-before-consent", "n", HOSTILE_SHOT, "image/png"),
            answer("a", "nothing-opened-before-consent", "?", JPEG_SHOT, "image/jpeg"),
            answer("b", "names-requesting-server", "n"),
        ],
    )
