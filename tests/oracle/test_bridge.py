"""A check can tell which request headers a stdio client never sent: a bridged request's are all the bridge's."""

from __future__ import annotations

from backchannel.oracle.bridge import BRIDGE_HEADER, DERIVED_HEADER, bridge_made_headers, bridged_by
from backchannel.recordings.model import Exchange, Headers


def exchange(headers: Headers) -> Exchange:
    return Exchange(
        seq=1,
        run_id="r",
        flow_id="f",
        method="POST",
        path="/r/r/mcp",
        status=200,
        request_headers=headers,
        response_headers=(),
        upstream_response_headers=(),
        request_body=b"{}",
        upstream_request_body=b"{}",
        upstream_response_body=None,
        response_body=None,
        t_request=None,
        t_response=None,
        t_end=None,
        error=None,
        streamed=False,
        mutations=(),
    )


DIRECT = (("Host", "127.0.0.1"), ("Mcp-Method", "tools/call"), ("Content-Type", "application/json"))
BRIDGED = (
    ("Host", "127.0.0.1"),
    ("Content-Length", "2"),
    ("Accept", "application/json, text/event-stream"),
    ("Mcp-Method", "tools/call"),
    (BRIDGE_HEADER, "stdio"),
    (DERIVED_HEADER, "Accept,Mcp-Method, MCP-Protocol-Version"),
)


def test_a_client_that_sent_its_own_headers_has_none_made_for_it():
    assert bridge_made_headers(exchange(DIRECT)) == frozenset()
    assert bridged_by(exchange(DIRECT)) is None


def test_a_bridged_request_names_its_transport():
    assert bridged_by(exchange(BRIDGED)) == "stdio"


def test_every_header_of_a_bridged_request_is_bridge_made_in_lower_case():
    made = bridge_made_headers(exchange(BRIDGED))
    assert made == {
        "host",
        "content-length",
        "accept",
        "mcp-method",
        "mcp-protocol-version",  # listed as derived, whether or not the request ended up carrying it
        BRIDGE_HEADER.lower(),
        DERIVED_HEADER.lower(),
    }


def test_the_marks_are_found_whatever_their_case():
    lowered = tuple((k.lower(), v) for k, v in BRIDGED)
    assert bridge_made_headers(exchange(lowered)) == bridge_made_headers(exchange(BRIDGED))


def test_an_empty_bridge_mark_is_no_mark():
    assert bridge_made_headers(exchange(((BRIDGE_HEADER, " "),))) == frozenset()
