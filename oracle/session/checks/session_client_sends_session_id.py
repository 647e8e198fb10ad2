"""A 2025-era client sends the session id the server assigned on every later request of that session."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, Tally, cite, client_sessions

SPEC_2025 = "https://modelcontextprotocol.io/specification/2025-11-25"


@check(
    "session-client-sends-session-id",
    scenario=SCENARIO,
    side="client",
    level="MUST",
    spec=f"{SPEC_2025}/basic/transports#session-management",
    title="After the server assigns an Mcp-Session-Id, the client sends it on every later request",
    eras=("2025-06-18", "2025-11-25"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "If an Mcp-Session-Id is returned by the server during initialization, clients using the Streamable HTTP
    transport MUST include it in the Mcp-Session-Id header on all of their subsequent HTTP requests." Judged on
    each POST a client sent after an `initialize` whose answer assigned an id, up to the client's next
    `initialize`: a request carrying no Mcp-Session-Id breaks it. With one handshake in the run the request is
    surely that session's: FAIL; with several, which session it belongs to is inferred (the last one opened):
    WARN, for a person to read. No session id ever assigned: SKIP."""
    tally = Tally()
    several = False
    for session in client_sessions(rec):
        assigned = [h for h in session.handshakes if h.session_id]
        if not assigned:
            continue
        several = several or len(session.handshakes) > 1
        for request in session.client:
            handshake = request.handshake
            if (
                request.modern
                or not request.posted
                or request.message.method == "initialize"
                or handshake is None
                or not handshake.session_id
                or (handshake.request.seq >= request.message.seq)
            ):
                continue
            tally.exercise(session.run_id)
            carried = request.exchange.header("mcp-session-id") if request.exchange is not None else None
            if not carried:
                opened = cite(handshake.request, f"the initialize whose answer assigned {handshake.session_id[:40]!r}")
                why = f"{request.message.method} (id {request.message.jsonrpc_id}) carries no Mcp-Session-Id"
                tally.broke(why, (request.evidence("no Mcp-Session-Id header"), opened))
            elif tally.keeping:
                tally.keep(request.evidence("Mcp-Session-Id sent"))
    level = "SHOULD" if several else "MUST"  # several handshakes: which session a bare request is of is inferred
    yield tally.finding(what="request(s) after a session id was assigned", kept="each carrying it", level=level)
