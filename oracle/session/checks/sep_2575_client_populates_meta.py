"""A 2026-07-28 client puts its protocol version and capabilities in every request's _meta."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import CLIENT_CAPABILITIES, PROTOCOL_VERSION, SCENARIO, SPEC, Tally, client_sessions


@check(
    "sep-2575-client-populates-meta",
    scenario=SCENARIO,
    side="client",
    level="MUST",
    spec=f"{SPEC}/basic#_meta",
    title="Every 2026-07-28 request carries protocolVersion and clientCapabilities in _meta",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Every request MUST include the required _meta fields": `io.modelcontextprotocol/protocolVersion` and
    `io.modelcontextprotocol/clientCapabilities`. Judged on each request the client sent in the 2026-07-28 era (its
    `_meta` or its `MCP-Protocol-Version` header says 2026-07-28, or it is `server/discover`), as the client sent
    it. A request of an older era is not judged. One missing either: FAIL. None in that era: SKIP."""
    tally = Tally()
    for session in client_sessions(rec):
        for request in session.modern:
            tally.exercise(session.run_id)
            missing = [
                key.rsplit("/", 1)[1] for key in (PROTOCOL_VERSION, CLIENT_CAPABILITIES) if key not in request.meta
            ]
            if missing:
                why = f"{request.message.method} (id {request.message.jsonrpc_id}) has no {' or '.join(missing)}"
                tally.broke(why, (request.evidence(f"_meta without {', '.join(missing)}"),))
            elif tally.keeping:
                tally.keep(request.evidence("both in _meta"))
    yield tally.finding(what="2026-07-28 request(s)", kept="each with both in _meta")
