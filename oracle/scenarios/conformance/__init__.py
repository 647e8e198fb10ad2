"""Checks of `conformance`: what the official suite's 2026-07-28 client scenarios provoke and no session rule judges
(the retry after a forced -32022, the resultType default, the Mcp-Param-* headers, invalid x-mcp-header tools)."""

SCENARIO = "conformance"
STAGED = "server"  # the side backchannel plays here: session rules judge only the other
