"""A 2026-07-28 server puts resultType in every result."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, Tally, server_sessions


@check(
    "session-server-result-type",
    scenario=SCENARIO,
    side="server",
    level="MUST",
    spec=f"{SPEC}/schema#result",
    title="Every result a 2026-07-28 server sends carries resultType",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Result.resultType: "Servers implementing this protocol version MUST include this field." Judged on each
    result the server sent (as the upstream sent it: a resultType the proxy dropped on purpose is not the
    server's) to a 2026-07-28 request of the client's. Missing, or not a string: FAIL, citing the result. A result
    the proxy made itself is not judged. No such result: SKIP."""
    tally = Tally()
    for session in server_sessions(rec):
        for request in session.modern:
            answer = request.answer
            result = request.answered_as_sent.get("result") if isinstance(request.answered_as_sent, dict) else None
            if answer is None or not isinstance(result, dict):
                continue
            tally.exercise(session.run_id)
            cite = Evidence(kind="message", run=answer.run_id, seq=answer.seq, note="the result, as the server sent it")
            if not isinstance(result.get("resultType"), str):
                tally.broke(f"the result of {request.message.method} (id {answer.jsonrpc_id}) has none", (cite,))
            elif tally.keeping:
                tally.keep(cite)
    yield tally.finding(what="result(s) to 2026-07-28 requests", kept="each with a resultType")
