"""A 2026-07-28 server answers input_required only to tools/call, prompts/get and resources/read."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, Tally, cite, server_sessions

SUPPORTING = frozenset({"tools/call", "prompts/get", "resources/read"})


@check(
    "sep-2322-not-on-unsupported-requests",
    scenario=SCENARIO,
    side="server",
    level="MUST",
    spec=f"{SPEC}/basic/patterns/mrtr",
    title="input_required answers only tools/call, prompts/get and resources/read",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Servers MUST NOT send InputRequiredResult responses on any other client requests" than `prompts/get`,
    `resources/read` and `tools/call` (the official suite's id). Judged on each result a server sent (as the
    upstream sent it: a round the proxy injected is the proxy's) to a 2026-07-28 request: `input_required` on any
    other method is FAIL, citing it. No input_required result sent: SKIP."""
    tally = Tally()
    for session in server_sessions(rec):
        for request in session.modern:
            sent = request.answered_as_sent
            result = sent.get("result") if isinstance(sent, dict) else None
            if request.answer is None or not isinstance(result, dict) or result.get("resultType") != "input_required":
                continue
            tally.exercise(session.run_id)
            method = request.message.method or "?"
            evidence = cite(request.answer, f"input_required answering {method[:40]}")
            if method not in SUPPORTING:
                tally.broke(f"input_required answering {method[:40]} (id {request.message.jsonrpc_id})", (evidence,))
            elif tally.keeping:
                tally.keep(evidence)
    yield tally.finding(what="input_required result(s)", kept="each answering a method that supports it")
