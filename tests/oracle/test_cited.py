"""What evidence points at, looked up once for the matrix and the bug report: wire items by number, terminal bytes
by run and stream (a tty stream as plain text, the first stream with bytes when none is named), files by path, a
person's answers by number."""

from __future__ import annotations

from pathlib import Path

from backchannel.oracle.cited import Cited
from backchannel.oracle.terminal import TerminalStream
from backchannel.recordings import load
from tests.factories import new_recording


def _recording(tmp_path: Path) -> Cited:
    path = new_recording(
        tmp_path / "r.sqlite",
        runs=[{"id": "a"}, {"id": "b"}],
        messages=[{"run_id": "a", "direction": "to-server", "kind": "request", "text": '{"method":"ping"}'}],
        anomalies=[{"kind": "odd", "detail": "seen"}],
        terminal=[
            {"run_id": "a", "stream": "stderr", "offset": 0, "data": b"err\n"},
            {"run_id": "b", "stream": "tty", "offset": 0, "data": b"\x1b[1mbold\x1b[0m\r\n"},
        ],
        files=[
            {"run_id": "a", "path": ".cfg", "size": 1, "data": b"a", "truncated": False},
            {"run_id": "b", "path": ".cfg", "size": 1, "data": b"b", "truncated": False},
        ],
    )
    return Cited(load(path))


def test_wire_items_are_found_by_their_number_and_a_missing_one_is_none(tmp_path: Path):
    cited = _recording(tmp_path)
    (message,) = cited.rec.messages
    (anomaly,) = cited.rec.anomalies
    assert cited.message(message.seq) == message and cited.anomaly(anomaly.seq) == anomaly
    assert cited.message(None) is None and cited.exchange(1) is None and cited.sse(1) is None
    assert cited.screen(1) is None and cited.message(message.seq + 100) is None


def test_terminal_bytes_are_the_named_stream_or_the_first_with_bytes_a_tty_one_as_plain_text(tmp_path: Path):
    cited = _recording(tmp_path)
    assert cited.terminal("a", None) == TerminalStream("stderr", b"err\n")
    assert cited.terminal("a", "stdout") is None and cited.terminal(None, "stderr") is None
    assert cited.terminal("b", "tty") == TerminalStream("tty", b"bold\n")


def test_a_file_is_the_runs_own_or_the_first_by_that_path_when_no_run_is_named(tmp_path: Path):
    cited = _recording(tmp_path)
    assert [cited.file(".cfg", run) for run in ("b", None)] == [cited.rec.files[1], cited.rec.files[0]]
    assert cited.file(".cfg", "c") is None and cited.file(None, "a") is None
    assert cited.run("b") == cited.rec.runs[1] and cited.run("c") is None


def test_a_model_requests_segment_text_is_found_by_seq_and_json_path_and_an_unread_one_is_none(tmp_path: Path):
    body = b'{"messages": [{"role": "user", "content": "hello"}]}'
    row = {"run_id": "a", "api": "anthropic-messages", "method": "POST", "path": "/v1/messages"}
    path = new_recording(
        tmp_path / "m.sqlite",
        runs=[{"id": "a"}],
        model_exchanges=[{**row, "request_body": body}, {**row, "request_body": b"{", "request_truncated": True}],
    )
    cited = Cited(load(path))
    read, unread = cited.rec.model_exchanges
    assert cited.model(read.seq) == read and cited.model(None) is None
    assert cited.model_text(read.seq, "$.messages[0].content") == "hello"
    assert cited.model_text(read.seq, "$.messages[9]") is None and cited.model_text(unread.seq, "$") is None


def test_a_persons_answer_is_found_by_its_number_with_its_screenshot_and_a_missing_one_is_none(tmp_path: Path):
    png = b"\x89PNG\r\n\x1a\n" + b"shot"
    row = {"run_id": "a", "question_id": "names-requesting-server", "question": "Q?"}
    path = new_recording(
        tmp_path / "a.sqlite",
        runs=[{"id": "a"}],
        attestations=[
            {**row, "answer": "n", "screenshot": png, "screenshot_type": "image/png"},
            {**row, "answer": "?"},
        ],
    )
    cited = Cited(load(path))
    first, second = cited.rec.attestations
    found = cited.attestation(first.seq)
    assert found == first and found is not None and found.screenshot == png
    assert cited.attestation(second.seq) == second
    assert cited.attestation(None) is None and cited.attestation(second.seq + 100) is None
