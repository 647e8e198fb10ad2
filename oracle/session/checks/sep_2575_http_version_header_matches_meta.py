"""A client's MCP-Protocol-Version header says what its request's _meta says."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import PROTOCOL_VERSION, SCENARIO, SPEC, Tally, client_sessions


@check(
    "sep-2575-http-version-header-matches-meta",
    scenario=SCENARIO,
    side="client",
    level="MUST",
    spec=f"{SPEC}/basic/transports/streamable-http",
    title="The MCP-Protocol-Version header equals the request's _meta protocolVersion",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """The `MCP-Protocol-Version` header MUST match `_meta` `io.modelcontextprotocol/protocolVersion`. Judged on
    each request that carries both (the header of its own POST, the `_meta` as the client sent it). Unequal: FAIL,
    with both values. No request carried both: SKIP (a missing one is another rule's)."""
    tally = Tally()
    for session in client_sessions(rec):
        for request in session.client:
            header = request.headers.get("mcp-protocol-version")
            said = request.meta.get(PROTOCOL_VERSION)
            if header is None or said is None:
                continue
            tally.exercise(session.run_id)
            if header != said:
                why = f"{request.message.method} (id {request.message.jsonrpc_id}): header {header!r}, _meta {said!r}"
                tally.broke(why, (request.evidence(f"header {header[:40]!r} vs _meta {str(said)[:40]!r}"),))
            elif tally.keeping:
                tally.keep(request.evidence(f"both {header[:40]!r}"))
    yield tally.finding(what="request(s) with both", kept="each the same version")
