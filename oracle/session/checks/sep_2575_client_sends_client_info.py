"""A 2026-07-28 client says who it is in every request's _meta."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import CLIENT_INFO, SCENARIO, SPEC, Tally, client_sessions


@check(
    "sep-2575-client-sends-client-info",
    scenario=SCENARIO,
    side="client",
    level="SHOULD",
    spec=f"{SPEC}/basic#_meta",
    title="Every 2026-07-28 request names its client in _meta clientInfo",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """`io.modelcontextprotocol/clientInfo` SHOULD be in every request's `_meta` (a SHOULD since spec PR #3002,
    as the official suite judges it). Judged on each 2026-07-28 request as the client sent it. Missing: WARN.
    None in that era: SKIP."""
    tally = Tally()
    for session in client_sessions(rec):
        for request in session.modern:
            tally.exercise(session.run_id)
            if CLIENT_INFO not in request.meta:
                why = f"{request.message.method} (id {request.message.jsonrpc_id}) names no client"
                tally.broke(why, (request.evidence("_meta without clientInfo"),))
            elif tally.keeping:
                tally.keep(request.evidence("clientInfo in _meta"))
    yield tally.finding(what="2026-07-28 request(s)", kept="each names its client", level="SHOULD")
