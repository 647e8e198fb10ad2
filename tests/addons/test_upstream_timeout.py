"""The 504 fed into a silent upstream's connection: its bytes, and the refusal when there is no live HTTP/1 link.

The whole path through a real mitmdump is tests/e2e/test_wire_limits.py.
"""

from __future__ import annotations

from mitmproxy.test import tflow

from backchannel.addons.upstream_timeout import answer_as_upstream, response_bytes


def test_the_response_is_a_complete_http1_message_that_closes_the_upstream_connection():
    raw = response_bytes(504, b'{"jsonrpc":"2.0","id":1,"error":{}}')
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 504 Gateway Timeout\r\n")
    assert b"Content-Length: 35" in head and b"Connection: close" in head and b"application/json" in head
    assert body == b'{"jsonrpc":"2.0","id":1,"error":{}}'


def test_a_flow_over_an_http2_upstream_is_not_answered_this_way():
    flow = tflow.tflow()
    flow.server_conn.alpn = b"h2"
    assert not answer_as_upstream(flow, 504, b"{}")
