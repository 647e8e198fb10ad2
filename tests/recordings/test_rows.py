"""Typed rows: each names its table and columns, writes through the batched writer, and reads back as written."""

import sqlite3
from dataclasses import dataclass, fields
from typing import Any

import pytest

from backchannel.oracle.terminal import raw_bytes
from backchannel.recordings import load, store
from backchannel.recordings.rows import (
    AnomalyRow,
    AttestationRow,
    ExchangeFailure,
    ExchangeHead,
    ExchangeRequest,
    ExchangeResponse,
    ExchangeStreamEnd,
    FileRow,
    MessageRow,
    ModelExchangeRow,
    OpenRow,
    RunEnd,
    RunLaunch,
    RunNote,
    RunRow,
    ScreenRow,
    SseItemRow,
    TerminalChunkRow,
    UrlHitRow,
)
from backchannel.recordings.shapes import RunDetail

EVERY_RECORD = [
    MessageRow(direction="to-server", kind="request", text="{}"),
    SseItemRow(flow_id="f", idx=0, kind="event", origin="upstream"),
    AnomalyRow(kind="k", detail="d"),
    TerminalChunkRow(run_id="r", stream="stdout", offset=0, data=b"x"),
    ScreenRow(run_id="r", reason="exit", cols=80, rows=24, cursor_row=0, cursor_col=0, text="$"),
    FileRow(run_id="r", path="a.txt", size=1, data=b"a"),
    UrlHitRow(server="declined", method="GET", path="/"),
    OpenRow(run_id="r", opener="xdg-open", argv=["https://example.com/"]),
    ModelExchangeRow(run_id="r", api="anthropic-messages", method="POST", path="/v1/messages"),
    AttestationRow(run_id="r", question_id="q", question="Q?", answer="y"),
    RunRow(id="r", ordinal=1, name="n", upstream="http://127.0.0.1:9/mcp", plan={}),
    ExchangeRequest(flow_id="f"),
    ExchangeHead(status=200, t_response=None, response_headers=()),
    ExchangeResponse(),
    ExchangeStreamEnd(t_end=None),
    ExchangeFailure(error="e", t_end=None),
    RunLaunch(client_argv=["c"], lab_home="/h"),
    RunNote(detail=RunDetail()),
    RunEnd(ended_at=1.0, exit_code=0, outcome="exited", detail=RunDetail()),
]


@pytest.fixture
def writer(tmp_path):
    path = tmp_path / "r.sqlite"
    store.create(path)
    made = store.RecordingWriter(path)
    yield made
    made.close()


def _raw(path, sql):
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


@pytest.mark.parametrize("record", EVERY_RECORD, ids=lambda r: type(r).__name__)
def test_every_record_is_slotted_keyword_only_and_gives_one_value_per_column(record):
    assert len(record.values()) == len(record.COLUMNS) == len(set(record.COLUMNS))
    assert not hasattr(record, "__dict__")  # (frozen is enforced by mypy: see rows.row_record)
    with pytest.raises(TypeError):
        type(record)(*(getattr(record, f.name) for f in fields(record)))


def test_each_row_reads_back_as_the_record_the_reader_gives(writer):
    writer.insert(
        RunRow(id="r", ordinal=1, name="control", upstream="http://127.0.0.1:9/mcp", plan={"mutations": []},
               scenario="s", client_argv=["c", "{url}"], started_at=1.5, detail=RunDetail(url="http://x/r/r/mcp"))
    )  # fmt: skip
    writer.insert(
        MessageRow(run_id="r", flow_id="f", sse_idx=2, direction="to-client", kind="response", jsonrpc_id="7",
                   method="tools/call", text='{"id":7}', upstream_text='{"id":7,"x":1}', mutation="m", t=2.0)
    )  # fmt: skip
    writer.insert(
        SseItemRow(run_id="r", flow_id="f", idx=2, kind="event", origin="proxy", upstream_raw=b"u", client_raw=b"c")
    )
    writer.insert(AnomalyRow(run_id="r", flow_id="f", kind="not-json", detail="request: x", t=3.0))
    writer.insert(TerminalChunkRow(run_id="r", stream="stderr", offset=4, data=b"err", t=4.0))
    writer.insert(FileRow(run_id="r", path="notes.txt", size=9, data=b"abc", truncated=True))
    writer.insert(UrlHitRow(run_id="r", server="declined", method="GET", path="/p", headers=[("Host", "h")], t=5.0))
    writer.flush()
    rec = load(writer.path)
    (run,) = rec.runs
    assert (run.name, run.scenario, run.plan, run.client_argv, run.started_at) == (
        "control", "s", {"mutations": []}, ("c", "{url}"), 1.5,
    )  # fmt: skip
    assert run.detail == RunDetail(url="http://x/r/r/mcp")
    (message,) = rec.messages
    assert (message.sse_idx, message.direction, message.rpc_id, message.upstream_payload) == (
        2, "to-client", 7, {"id": 7, "x": 1},
    )  # fmt: skip
    (event,) = rec.sse_events
    assert (event.idx, event.origin, event.upstream_raw, event.client_raw) == (2, "proxy", b"u", b"c")
    assert [(a.kind, a.detail) for a in rec.anomalies] == [("not-json", "request: x")]
    assert raw_bytes(rec, "r", "stderr") == b"err" and rec.terminal[0].offset == 4
    (found,) = rec.files
    assert (found.path, found.size, found.data, found.truncated) == ("notes.txt", 9, b"abc", True)
    (hit,) = rec.url_hits
    assert (hit.server, hit.path, hit.headers, hit.t) == ("declined", "/p", (("Host", "h"),), 5.0)


def test_a_whole_response_is_one_row_with_both_sides_and_the_proxys_answer_has_no_upstream(writer):
    request = ExchangeRequest(run_id="r", flow_id="f1", method="POST", path="/r/r/mcp",
                              request_headers=[("Content-Type", "application/json")], request_body=b"q")  # fmt: skip
    response = ExchangeResponse(status=200, response_headers=[("X", "1")], upstream_response_body=b"up",
                                response_body=b"client", forwarded=False)  # fmt: skip
    writer.insert_exchange(request, response)
    writer.insert_exchange(
        ExchangeRequest(flow_id="f2", request_body=b"q2"), ExchangeResponse(upstream_response_body=b"a")
    )
    writer.flush()
    first, second = load(writer.path).exchanges
    assert first.request_headers == (("Content-Type", "application/json"),) and first.status == 200
    assert first.forwarded is False and first.upstream_response_body is None and first.response_body == b"client"
    assert second.forwarded and second.upstream_request_body == b"q2" and second.response_body == b"a"
    assert second.upstream_response_headers == second.response_headers == ()


def test_a_streamed_exchange_is_written_at_its_head_and_completed_by_updates(writer):
    writer.insert_exchange(
        ExchangeRequest(flow_id="f", request_body=b"q"),
        ExchangeHead(status=200, t_response=1.0, response_headers=[("Content-Type", "text/event-stream")]),
    )
    writer.update_exchange(
        "f", ExchangeStreamEnd(t_end=2.0, upstream_response_headers=[("U", "1")], upstream_response_body=b"u")
    )
    writer.update_exchange("f", ExchangeFailure(error="Client disconnected.", t_end=3.0))
    writer.flush()
    (exchange,) = load(writer.path).exchanges
    assert exchange.streamed and exchange.status == 200 and exchange.t_response == 1.0
    assert exchange.response_headers == (("Content-Type", "text/event-stream"),)
    assert exchange.upstream_response_headers == (("U", "1"),) and exchange.upstream_response_body == b"u"
    assert exchange.error == "Client disconnected." and exchange.t_end == 3.0


@dataclass(frozen=True)
class _Record:
    index: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": "drop-result-type", "index": self.index}


def test_mutations_are_stored_as_one_json_list_whether_given_as_records_or_as_their_json(writer):
    as_json = [{"kind": "drop-result-type", "index": 0}]
    writer.insert_exchange(ExchangeRequest(flow_id="a"), ExchangeResponse(mutations=as_json))
    writer.insert_exchange(ExchangeRequest(flow_id="b"), ExchangeResponse(mutations=[_Record(0)]))
    writer.insert_exchange(ExchangeRequest(flow_id="c"), ExchangeFailure(error="e", t_end=None))
    writer.flush()
    stored = _raw(writer.path, "SELECT mutations FROM exchanges ORDER BY seq")
    assert stored == [('[{"kind":"drop-result-type","index":0}]',)] * 2 + [("[]",)]


def test_json_columns_are_compact_and_keep_non_ascii(writer):
    writer.insert_exchange(ExchangeRequest(flow_id="f", request_headers=[("X-Name", "café")]), ExchangeResponse())
    writer.flush()
    assert _raw(writer.path, "SELECT request_headers FROM exchanges") == [('[["X-Name","café"]]',)]


def test_a_run_is_registered_then_launched_noted_and_ended(writer):
    writer.insert(RunRow(id="r", ordinal=1, name="witness", upstream="http://127.0.0.1:9/mcp", plan={}))
    writer.update_run("r", RunLaunch(client_argv=["client", "http://x"], lab_home="/tmp/lab/home"))
    writer.update_run("r", RunNote(detail=RunDetail(url="u", planted_id="p")))
    writer.update_run("r", RunEnd(ended_at=9.0, exit_code=None, outcome="timeout", detail=RunDetail(url="u", note="n")))
    writer.flush()
    (run,) = load(writer.path).runs
    assert run.client_argv == ("client", "http://x") and run.lab_home == "/tmp/lab/home"
    assert (run.ended_at, run.exit_code, run.outcome) == (9.0, None, "timeout")
    assert run.detail == RunDetail(url="u", note="n")


def test_together_the_records_write_every_column_of_every_table(tmp_path):
    """Nothing is written any other way: each column but a row's sequence number belongs to some record."""
    path = store.create(tmp_path / "r.sqlite")
    tables = [t for (t,) in _raw(path, "SELECT name FROM sqlite_master WHERE type='table'") if t not in SKIP_TABLES]
    written: dict[str, set[str]] = {}
    for record in EVERY_RECORD:
        written.setdefault(record.TABLE, set()).update(record.COLUMNS)
    for table in tables:
        columns = {row[1] for row in _raw(path, f"PRAGMA table_info({table})")} - {"seq"}
        assert written.get(table) == columns, table


SKIP_TABLES = {"meta", "_sqlite_migrations", "descriptions"}  # meta: recordings/meta.py; descriptions: the migration
