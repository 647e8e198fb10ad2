"""A client sends a JSON-RPC response only to a request the server sent it."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, Tally, client_sessions


@check(
    "session-client-answers-only-server-requests",
    scenario=SCENARIO,
    side="client",
    level="MUST",
    spec=f"{SPEC}/basic/index",
    title="A client's JSON-RPC responses answer requests the server sent, once each",
    eras=("2025-06-18", "2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """A JSON-RPC response answers a request. Each response the client sent (a result or an error, as it sent it)
    must carry the id of a request the server sent it earlier in the run, and answer it once. In the 2026-07-28
    era a server sends no requests at all (MRTR carries them in results), so any response there has nothing to
    answer. One that answers nothing, or a request a second time: FAIL, citing it. The client sent none: SKIP."""
    tally = Tally()
    for session in client_sessions(rec):
        asked = {r.message.jsonrpc_id: r.message.seq for r in session.server}
        answered: set[str | None] = set()
        for response in session.client_responses:
            tally.exercise(session.run_id)
            cite = Evidence(kind="message", run=response.run_id, seq=response.seq, note="the client's response")
            seq = asked.get(response.jsonrpc_id)
            if seq is None or seq > response.seq:
                tally.broke(f"a response to id {response.jsonrpc_id}, which the server never asked", (cite,))
            elif response.jsonrpc_id in answered:
                tally.broke(f"a second response to id {response.jsonrpc_id}", (cite,))
            else:
                answered.add(response.jsonrpc_id)
                tally.keep(cite)
    yield tally.finding(what="response(s) the client sent", kept="each answers a request of the server's")
