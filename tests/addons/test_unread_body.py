"""A body too large to hold passes chunk by chunk, unchanged, and only its first bytes and its size are kept."""

from __future__ import annotations

from mitmproxy.test import tutils

from backchannel.addons.sse import SseRewriter
from backchannel.addons.unread_body import UnreadBody, streamed_unread, take_over, unread_detail


def test_every_chunk_passes_unchanged_and_only_the_first_bytes_are_kept():
    body = UnreadBody(keep=10)
    chunks = [b"0123456", b"789abcdef", b"", b"ghij"]
    assert [body(c) for c in chunks[:2]] == chunks[:2]
    assert (bytes(body.kept), body.size, body.ended) == (b"0123456789", 16, False)
    assert body(b"") == b"" and body.ended, "mitmproxy's end-of-body call passes nothing and ends it"


def test_a_body_mitmproxy_streams_is_taken_over_and_one_the_proxy_reads_is_not():
    response = tutils.tresp()
    assert take_over(response, 5) is None and not streamed_unread(response), "a buffered body is read as usual"
    response.stream = True  # mitmproxy's choice, from a Content-Length past stream_large_bodies
    assert streamed_unread(response)
    body = take_over(response, 5)
    assert body is not None and response.stream is body and streamed_unread(response)
    response.stream = SseRewriter()
    assert not streamed_unread(response) and take_over(response, 5) is None, "the SSE rewriter reads what it passes"


def test_the_anomaly_says_how_large_the_body_was_and_what_was_kept_or_that_nothing_was():
    body = UnreadBody(keep=4)
    body(b"abcdefgh")
    said = unread_detail("response body", body, 1024)
    assert "response body of 8 bytes (it did not end)" in said and "first 4 bytes stored" in said
    body(b"")
    assert "(it did not end)" not in unread_detail("response body", body, 1024)
    assert "unknown length passed 1024 bytes" in unread_detail("request body", None, 1024)
    assert "none of it is stored" in unread_detail("request body", None, 1024)
