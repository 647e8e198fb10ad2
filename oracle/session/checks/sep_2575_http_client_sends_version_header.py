"""A 2026-07-28 client sends the MCP-Protocol-Version header on every POST."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, Tally, modern_posts


@check(
    "sep-2575-http-client-sends-version-header",
    scenario=SCENARIO,
    side="client",
    level="MUST",
    spec=f"{SPEC}/basic/transports/streamable-http",
    title="Every 2026-07-28 request over HTTP carries the MCP-Protocol-Version header",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Over Streamable HTTP a client MUST send `MCP-Protocol-Version` on every request. Judged on each request the
    client sent in the 2026-07-28 era in a POST of its own (a request that came another way, over stdio through
    the bridge, is not judged). Missing: FAIL, citing the request. None in that era over HTTP: SKIP."""
    tally = Tally()
    for request in modern_posts(rec):
        tally.exercise(request.message.run_id)
        if "mcp-protocol-version" not in request.headers:
            why = f"{request.message.method} (id {request.message.jsonrpc_id}) came without the header"
            tally.broke(why, (request.evidence("no MCP-Protocol-Version header"),))
        elif tally.keeping:
            tally.keep(request.evidence("MCP-Protocol-Version sent"))
    yield tally.finding(what="2026-07-28 POST(s)", kept="each with the header")
