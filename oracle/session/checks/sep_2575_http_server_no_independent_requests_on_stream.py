"""A 2026-07-28 server sends no requests of its own: it asks through results (MRTR)."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, Tally, server_sessions


@check(
    "sep-2575-http-server-no-independent-requests-on-stream",
    scenario=SCENARIO,
    side="server",
    level="MUST",
    spec=f"{SPEC}/basic/patterns/mrtr",
    title="A 2026-07-28 server sends no server-initiated JSON-RPC requests",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Servers MUST send server-to-client requests (such as roots/list, sampling/createMessage, or
    elicitation/create) using the MRTR pattern. The previous pattern of server-initiated requests is no longer
    supported." Judged on each run whose client spoke 2026-07-28 and never ran an `initialize` handshake: every
    JSON-RPC request the server sent there (as the upstream sent it, on any stream) is a break, FAIL citing it. A
    run that exercised nothing of the kind: SKIP (a request made by the proxy is not the server's)."""
    tally = Tally()
    for session in server_sessions(rec):
        if not session.modern or any(r.message.method == "initialize" for r in session.client):
            continue
        tally.exercise(session.run_id)
        for request in session.server:
            why = f"the server sent a {request.message.method} request (id {request.message.jsonrpc_id})"
            tally.broke(why, (request.evidence("a server-initiated request in a 2026-07-28 session"),))
        if not session.server:
            tally.keep(session.modern[0].evidence("a 2026-07-28 session"))
    yield tally.finding(what="2026-07-28 session(s)", kept="no server-initiated request in any")
