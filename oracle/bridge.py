"""Which request headers of an exchange the client under test never sent: those a stdio bridge made for it.

`backchannel bridge URL` turns a stdio client's lines into Streamable HTTP POSTs. A stdio client has no header
layer (the 2026-07-28 stdio transport carries all request metadata in the body), so every header on such a POST is
the bridge's: it marks each request `X-Backchannel-Bridge: stdio` and lists the MCP headers it derived from the body
in `X-Backchannel-Derived`. A check that judges a client on its request headers must leave these out. Pure: it
reads the recorded exchange only.
"""

from __future__ import annotations

from backchannel.recordings.model import Exchange

BRIDGE_HEADER = "X-Backchannel-Bridge"
DERIVED_HEADER = "X-Backchannel-Derived"
STDIO = "stdio"

__all__ = ["BRIDGE_HEADER", "DERIVED_HEADER", "STDIO", "bridge_made_headers", "bridged_by"]


def bridged_by(exchange: Exchange) -> str | None:
    """The transport a bridge carried this request from (`stdio`), or None for a request the client sent itself."""
    value = (exchange.header(BRIDGE_HEADER) or "").strip()
    return value or None


def bridge_made_headers(exchange: Exchange) -> frozenset[str]:
    """The request header names (lower-case) the client under test did not send: empty for a direct HTTP client.

    For a bridged request: the names `X-Backchannel-Derived` lists, the two marker headers, and every other header
    the request carries (Host, Content-Length and the like come from the bridge's HTTP library, since the client
    behind a bridge has no headers at all)."""
    if bridged_by(exchange) is None:
        return frozenset()
    listed = {name.strip().lower() for name in (exchange.header(DERIVED_HEADER) or "").split(",") if name.strip()}
    present = {key.lower() for key, _ in exchange.request_headers}
    return frozenset(listed | present | {BRIDGE_HEADER.lower(), DERIVED_HEADER.lower()})
