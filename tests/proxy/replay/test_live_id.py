"""The live id replaces the recorded one in a reply, and no other byte of it changes."""

import json

from backchannel.proxy.replay.live_id import sse_with_live_id, with_live_id


def test_only_the_top_level_id_value_changes_spacing_and_key_order_kept():
    body = b'{"jsonrpc": "2.0",  "result": {"id": 3, "x": [1, 2]}, "id" : 3}'
    assert with_live_id(body, 3, "abc") == b'{"jsonrpc": "2.0",  "result": {"id": 3, "x": [1, 2]}, "id" : "abc"}'


def test_equal_ids_leave_the_recorded_bytes_untouched():
    body = b'{"id":1,"result":{}}'
    assert with_live_id(body, 1, 1) is body


def test_a_reply_carrying_another_id_is_left_alone():
    server_request = b'{"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create"}'
    assert with_live_id(server_request, 3, 9) == server_request
    assert with_live_id(b'{"id":true}', 1, 9) == b'{"id":true}'


def test_non_json_and_non_utf8_bodies_pass_through():
    for body in (b"", b"not json", b"\xff\xfe", b"[1,2]", b'{"id":'):
        assert with_live_id(body, 1, 2) == body


def test_an_sse_event_gets_the_live_id_in_its_data_line_and_keeps_its_line_endings():
    event = b'event: message\r\ndata: {"jsonrpc":"2.0","id":15,"result":{}}\r\n\r\n'
    assert sse_with_live_id(event, 15, 2) == b'event: message\r\ndata: {"jsonrpc":"2.0","id":2,"result":{}}\r\n\r\n'
    assert sse_with_live_id(b": keepalive\n\n", 15, 2) == b": keepalive\n\n"


def test_a_live_id_holding_a_lone_surrogate_is_swapped_in_as_its_escape() -> None:
    swapped = with_live_id(b'{"jsonrpc":"2.0","id":1,"result":{}}', 1, "\ud800")
    assert swapped == b'{"jsonrpc":"2.0","id":"\\ud800","result":{}}'
    assert json.loads(swapped)["id"] == "\ud800"
