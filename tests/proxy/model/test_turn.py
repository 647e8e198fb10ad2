"""The neutral turn's helpers: every string of a request found, bounded; SSE framing."""

from __future__ import annotations

from typing import Any

import pytest

from backchannel.proxy.model.turn import MAX_TEXTS, RequestError, as_dicts, sse, strings_in


def test_every_string_value_is_found_in_document_order_and_keys_are_not():
    body = {"system": "a", "messages": [{"role": "user", "content": [{"text": "b"}, 3, None]}], "x": {"y": "c"}}
    assert strings_in(body) == ("a", "user", "b", "c")


def test_a_hostile_request_is_walked_bounded_in_depth_and_count():
    deep: Any = "hidden"
    for _ in range(10_000):
        deep = [deep]
    assert strings_in(deep) == ()
    assert len(strings_in(["s"] * (MAX_TEXTS + 10))) == MAX_TEXTS


def test_sse_events_carry_their_name_and_json_data():
    assert sse({"a": 1}, "ping") == b'event: ping\ndata: {"a":1}\n\n'
    assert sse(b"[DONE]") == b"data: [DONE]\n\n"


def test_a_list_field_of_the_wrong_type_is_a_request_error_and_odd_items_are_skipped():
    assert as_dicts([{"a": 1}, "x", 2], "tools") == [{"a": 1}]
    with pytest.raises(RequestError, match="tools"):
        as_dicts({"a": 1}, "tools")
