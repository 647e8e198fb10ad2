"""The stdio side's framing: one message per line, never an embedded newline; SSE events become lines in order."""

from __future__ import annotations

import json

import pytest

from backchannel.proxy.bridge.framing import (
    NotAMessage,
    SseParser,
    error_line,
    read_line,
    sse_events,
    to_line,
    top_level_members,
)


def test_a_single_line_message_is_written_with_its_own_bytes():
    body = b'{"jsonrpc": "2.0", "id": 1, "result": {"n": 1.50}}'
    assert to_line(body) == body + b"\n"


def test_a_pretty_printed_message_is_written_as_one_compact_line():
    pretty = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"text": "a\nb", "é": True}}, indent=2)
    line = to_line(pretty)
    assert line.count(b"\n") == 1 and line.endswith(b"\n")
    assert json.loads(line) == json.loads(pretty)
    assert "é".encode() in line  # UTF-8 kept, not escaped


def test_a_message_with_crlf_around_it_is_one_line():
    assert to_line(b'\r\n{"jsonrpc":"2.0","id":1,"result":{}}\r\n') == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'


@pytest.mark.parametrize("body", [b"Bad Gateway", b"\xff\xfe", b"42", b'"text"', b"[]", b"[1, 2]", b"null"])
def test_what_is_not_a_json_rpc_message_is_refused_for_stdout(body):
    with pytest.raises(NotAMessage):
        to_line(body)


def test_a_batch_of_objects_is_one_line():
    assert to_line(b'[{"jsonrpc":"2.0","id":1,"result":{}},\n {"jsonrpc":"2.0","id":2,"result":{}}]').count(b"\n") == 1


def test_a_client_line_keeps_its_bytes_without_the_line_ending():
    incoming = read_line(b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}\r\n')
    assert incoming is not None
    assert incoming.raw == b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}'
    assert (incoming.parsed, incoming.method, incoming.request_id) == (True, "tools/list", 3)


def test_blank_lines_are_framing_noise():
    assert read_line(b"\n") is None and read_line(b"  \r\n") is None


@pytest.mark.parametrize("raw", [b"not json\n", b"{\n", b'  "id": 1,\n', b"\xff\xfe{}\n"])
def test_bad_bytes_are_kept_to_be_forwarded_as_they_are(raw):
    incoming = read_line(raw)
    assert incoming is not None and incoming.raw == raw.rstrip(b"\n") and not incoming.parsed
    assert incoming.request_id is None


def test_only_a_request_has_an_id_to_answer():
    assert read_line(b'{"jsonrpc":"2.0","method":"notifications/initialized"}').request_id is None  # type: ignore[union-attr]
    assert read_line(b'{"jsonrpc":"2.0","id":"s1","result":{}}').request_id is None  # type: ignore[union-attr]
    assert read_line(b'{"jsonrpc":"2.0","id":true,"method":"x"}').request_id is None  # type: ignore[union-attr]
    assert read_line(b'{"jsonrpc":"2.0","id":"a","method":"x"}').request_id == "a"  # type: ignore[union-attr]


def test_sse_events_come_out_in_order_without_comments_or_keepalives():
    stream = [
        b": keep-alive\n",
        b"event: message\n",
        b'data: {"jsonrpc":"2.0","method":"notifications/progress"}\n',
        b"\n",
        b":\n",
        b"\n",
        b'data: {"jsonrpc":"2.0",\r\n',
        b'data: "id":1,"result":{}}\r\n',
        b"\r\n",
    ]
    events = list(sse_events(stream))
    assert events == ['{"jsonrpc":"2.0","method":"notifications/progress"}', '{"jsonrpc":"2.0",\n"id":1,"result":{}}']
    assert [to_line(e).count(b"\n") for e in events] == [1, 1]  # a multi-line data field still becomes one line


def test_an_sse_stream_cut_after_a_data_line_still_delivers_the_event():
    parser = SseParser()
    assert parser.feed(b'data: {"id":1}') is None
    assert parser.finish() == '{"id":1}'


def test_the_bridge_error_for_a_request_is_one_json_rpc_line():
    line = error_line(7, -32603, "no answer\nat all")
    assert line.count(b"\n") == 1
    assert json.loads(line) == {"jsonrpc": "2.0", "id": 7, "error": {"code": -32603, "message": "no answer\nat all"}}


def test_a_line_that_is_json_once_its_invalid_utf8_is_replaced_still_names_its_request():
    got = read_line(b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"\xff"}}\n')
    assert got is not None and got.request_id == 5 and got.method == "ping"
    assert not got.parsed and got.raw.endswith(b'"\xff"}}')  # forwarded as the client wrote it


@pytest.mark.parametrize(
    ("head", "names", "request_id"),
    [
        (b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"a":"', {"jsonrpc", "id", "method", "params"}, 9),
        (b'  {"method":"x","id":"s-1","params":[1,2', {"method", "id", "params"}, "s-1"),
        (b'{"params":{"id":4,"b":"', {"params"}, None),  # an id inside a nested value is not the message's
        (b'{"jsonrpc":"2.0","id":true,"method":"x"', {"jsonrpc", "id", "method"}, None),
        (b'{"id":1.5,"method":"x"}', {"id", "method"}, None),
        (b'[{"id":1}', set(), None),
        (b"\xff\xfe", set(), None),
        (b'{"id":3,"result":{"big":"', {"id", "result"}, 3),
    ],
)
def test_the_top_level_members_of_a_cut_line_are_read_without_taking_a_nested_id(head, names, request_id):
    assert top_level_members(head) == (names, request_id)


def test_a_message_holding_a_lone_surrogate_escape_still_becomes_one_line_of_the_same_json() -> None:
    # a server's "\ud800" spread over lines is re-serialised; UTF-8 cannot carry the decoded character, so the line
    # writes it as its escape, the rest as it was: the same JSON value
    body = b'{"jsonrpc":"2.0",\n"id":1,"result":{"x":"\\ud800","y":"\xc3\xa9"}}'
    line = to_line(body)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == json.loads(body)
    assert b"\\ud800" in line and "\u00e9".encode() in line  # only the surrogate escaped; the rest kept as UTF-8
    assert json.loads(error_line("\ud800", -32603, "no answer"))["id"] == "\ud800"
