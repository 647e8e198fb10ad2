"""A 2025-06-18 or 2025-11-25 client sends the negotiated version in MCP-Protocol-Version on every later request."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..eras import LEGACY
from ..facts import SCENARIO, Tally, cite, client_sessions

SPEC_2025 = "https://modelcontextprotocol.io/specification/2025-11-25"


@check(
    "session-client-version-header-negotiated",
    scenario=SCENARIO,
    side="client",
    level="MUST",
    spec=f"{SPEC_2025}/basic/transports#protocol-version-header",
    title="After a 2025-06-18 or later handshake, every request carries MCP-Protocol-Version, the negotiated one",
    eras=("2025-06-18", "2025-11-25"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "If using HTTP, the client MUST include the MCP-Protocol-Version: <protocol-version> HTTP header on all
    subsequent requests to the MCP server"; "the protocol version sent by the client SHOULD be the one negotiated
    during initialization". Judged on each POST after an `initialize` that agreed 2025-06-18 or 2025-11-25, tied
    to it by its Mcp-Session-Id (or, with none, the run's last handshake, shown as inferred): no header at all is
    FAIL where the tie is sure, WARN where it is inferred; a header naming another version is WARN (a SHOULD).
    No request after such a handshake: SKIP."""
    tally = Tally()
    musts = 0
    for session in client_sessions(rec):
        for request in session.client:
            handshake = request.handshake
            if (
                not request.posted
                or request.modern
                or request.message.method == "initialize"
                or handshake is None
                or handshake.version not in LEGACY
                or handshake.request.seq >= request.message.seq
            ):
                continue
            tally.exercise(session.run_id)
            said = request.exchange.header("mcp-protocol-version") if request.exchange is not None else None
            tied = "its session's initialize" if request.handshake_sure else "the run's last initialize (inferred)"
            opened = cite(handshake.request, f"{tied} agreed {handshake.version}")
            what = f"{request.message.method} (id {request.message.jsonrpc_id})"
            if said is None:
                musts += request.handshake_sure
                tally.broke(f"{what} carries no MCP-Protocol-Version", (request.evidence("no header"), opened))
            elif said != handshake.version:
                tally.broke(f"{what} says {said[:30]!r}, not {handshake.version}",
                            (request.evidence(f"MCP-Protocol-Version: {said[:30]}"), opened))  # fmt: skip
            elif tally.keeping:
                tally.keep(request.evidence(f"MCP-Protocol-Version: {said}"))
    level = "MUST" if musts else "SHOULD"
    yield tally.finding(what="request(s) after a 2025-06-18+ handshake", kept="each with the header", level=level)
