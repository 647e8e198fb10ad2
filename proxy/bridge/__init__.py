"""`backchannel bridge URL`: a stdio MCP server that carries each line to a Streamable HTTP endpoint and back.

A stdio client (one that spawns its server) runs through the recording proxy by spawning the bridge with a run's
URL: each JSON-RPC line on its stdin becomes one POST, each message of the answer (a JSON body, or every SSE event
in order, as it arrives) one line on its stdout. `framing` is the line and SSE side, `headers` the HTTP headers a
stdio client never sends (derived from the body, and marked as the bridge's), `forwarder` the POSTs, `command` the
CLI command and its process loop.
"""
