"""A server's error response echoes the id of the request it answers."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, Tally, sent_payload, server_sessions


@check(
    "sep-2575-http-server-error-jsonrpc-id",
    scenario=SCENARIO,
    side="server",
    level="MUST",
    spec=f"{SPEC}/basic/transports/streamable-http",
    title="An error response carries the id of the request it answers",
    eras=("2025-06-18", "2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """A JSON-RPC error to a request whose id could be read MUST carry that id. Judged on each error the server
    sent (as the upstream sent it) in the HTTP exchange of a client request: an error in that exchange with a null
    or other id answers nobody, and the client waits. FAIL, citing both. An error the proxy made is not the
    server's. No error seen: SKIP (the official suite calls that a failure; absence is no break)."""
    tally = Tally()
    for session in server_sessions(rec):
        requests = {(r.message.flow_id): r for r in session.client if r.exchange is not None}
        for message in rec.messages_in(session.run_id) if session.run_id else ():
            if message.direction != "to-client" or message.kind != "error" or message.mutation is not None:
                continue
            request = requests.get(message.flow_id)
            if request is None:
                continue
            tally.exercise(session.run_id)
            sent = sent_payload(message)
            said = sent.get("id") if isinstance(sent, dict) else None
            cite = Evidence(
                kind="message", run=message.run_id, seq=message.seq, note="the error, as the server sent it"
            )
            if said != request.message.rpc_id or type(said) is not type(request.message.rpc_id):
                why = f"the error to id {request.message.jsonrpc_id} carried id {said!r}"
                tally.broke(why, (request.evidence("the request"), cite))
            elif tally.keeping:
                tally.keep(cite)
    yield tally.finding(what="error(s) to the client's requests", kept="each with its request's id")
