"""A model request the oracle cannot read is Unread with the reason, never an empty (clean) context."""

import pytest

from backchannel.oracle.detectors.model_segments import MAX_DEPTH, MAX_SEGMENTS
from tests.oracle.detectors.model_requests import read, unread

USER = {"messages": [{"role": "user", "content": "hi"}]}


def test_an_unknown_api_is_unread_even_with_a_readable_body():
    assert "'unknown'" in unread("unknown", USER).reason
    assert unread("unknown", USER).seq == 7


def test_a_truncated_body_is_unread_though_what_was_kept_parses():
    assert "truncated" in unread("anthropic-messages", USER, truncated=True).reason


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"", "no body"),
        (b"{not json", "not JSON"),
        (b"\xff\xfe\x00garbage", "not JSON"),
        (b"[1, 2]", "not an object"),
        (b"[" * 100_000 + b"]" * 100_000, "nests too deeply"),
    ],
)
def test_junk_bodies_are_unread_with_what_was_wrong(body, why):
    assert why in unread("openai-chat", body).reason


def test_a_tool_argument_nested_past_the_bound_is_unread_not_walked():
    deep: object = "x"
    for _ in range(MAX_DEPTH + 2):
        deep = {"a": deep}
    body = {
        "messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "t", "input": deep}]}]
    }
    assert "deeper than" in unread("anthropic-messages", body).reason


def test_a_request_with_more_segments_than_the_bound_is_unread():
    body = {"messages": [{"role": "user", "content": "x"}] * (MAX_SEGMENTS + 1)}
    assert "more than" in unread("anthropic-messages", body).reason
    assert len(read("anthropic-messages", {"messages": body["messages"][:MAX_SEGMENTS]}).segments) == MAX_SEGMENTS


def test_a_member_key_that_is_not_an_identifier_is_quoted_in_the_path():
    body = {"input": [{"type": "function_call", "name": "t", "call_id": "c", "arguments": {"a-b": "x"}}]}
    assert read("openai-responses", body).segments[0].path == '$.input[0].arguments["a-b"]'


def test_a_request_without_a_body_by_a_method_that_carries_none_holds_an_empty_context_not_an_unread_one():
    from dataclasses import replace

    from backchannel.oracle.detectors.model_context import ModelContext, context_of
    from tests.oracle.detectors.model_requests import exchange

    listing = replace(exchange("openai-responses", b""), method="GET", path="/v1/models")
    assert context_of(listing) == ModelContext(7, "openai-responses")
    assert "no body" in unread("openai-responses", b"").reason  # a POST without a body is not read
    assert isinstance(context_of(replace(exchange("unknown", b""), method="GET")), ModelContext)
