"""A 2026-07-28 server sends its header-mismatch, missing-capability and unsupported-version errors under HTTP 400."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.json_form import member
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, Tally, cite, server_sessions

NAMED = {-32020: "HeaderMismatch", -32021: "MissingRequiredClientCapability", -32022: "UnsupportedProtocolVersion"}


@check(
    "session-server-protocol-errors-http-400",
    scenario=SCENARIO,
    side="server",
    level="MUST",
    spec=f"{SPEC}/basic/transports/streamable-http",
    title="-32020, -32021 and -32022 errors come with HTTP status 400 Bad Request",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """On HTTP, a server that rejects a request for a header that disagrees with the body (`-32020`), for a
    capability the client did not declare (`-32021`: "the response status MUST be 400 Bad Request") or for a
    protocol version it does not support (`-32022`) MUST answer with status 400. Judged on each such error a
    server sent in answer to a POST, as the server sent it, against that POST's HTTP status; an exchange the proxy
    rewrote is not judged (its status may be the proxy's). Another status: FAIL. No such error: SKIP."""
    tally = Tally()
    for session in server_sessions(rec):
        for request in session.client:
            code = member(member(request.answered_as_sent, "error"), "code")
            exchange = request.exchange
            if (
                code not in NAMED
                or isinstance(code, bool)
                or request.answer is None
                or not request.posted
                or exchange is None
                or request.answer.flow_id != exchange.flow_id
                or exchange.mutations
                or exchange.status is None
            ):
                continue
            tally.exercise(session.run_id)
            evidence = cite(request.answer, f"{code} ({NAMED[code]}) under HTTP {exchange.status}")
            if exchange.status != 400:
                what = f"{code} ({NAMED[code]}) answering {request.message.method} (id {request.message.jsonrpc_id})"
                tally.broke(f"{what} came with HTTP {exchange.status}", (evidence,))
            elif tally.keeping:
                tally.keep(evidence)
    yield tally.finding(what="protocol error(s) over HTTP", kept="each under HTTP 400")
