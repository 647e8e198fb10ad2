"""A 2026-07-28 server asks for input only of the kinds, and elicitation modes, the request declared."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..capabilities import declared, undeclared
from ..facts import INPUT_METHODS, SCENARIO, SPEC, Tally, server_sessions


@check(
    "session-server-input-requests-declared",
    scenario=SCENARIO,
    side="server",
    level="MUST",
    spec=f"{SPEC}/basic/patterns/mrtr",
    title="inputRequests ask only for what that request's clientCapabilities declared",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Servers MUST NOT send an inputRequests that the client has not declared support for in its capabilities."
    Judged on each `input_required` result as the server sent it (an input request the proxy injected is the
    proxy's), against the `_meta` clientCapabilities of the very request it answers (shown in the evidence):
    `elicitation/create` needs `elicitation` (and its mode: `form`, or `url` declared as such; `{}` means form),
    `sampling/createMessage` needs `sampling`, `roots/list` needs `roots`. Outside them: FAIL. None: SKIP."""
    tally = Tally()
    for session in server_sessions(rec):
        for request in session.modern:
            sent = request.answered_as_sent
            result = sent.get("result") if isinstance(sent, dict) else None
            asks = result.get("inputRequests") if isinstance(result, dict) else None
            if not isinstance(asks, dict) or not asks or request.answer is None:
                continue
            capabilities = declared(request) or {}
            cite = Evidence(kind="message", run=request.answer.run_id, seq=request.answer.seq,
                            note="inputRequests, as the server sent them")  # fmt: skip
            for key, ask in asks.items():
                method = ask.get("method") if isinstance(ask, dict) else None
                kind = INPUT_METHODS.get(method) if isinstance(method, str) else None
                if kind is None:
                    continue  # not an input request this rule knows (a malformed one is the schema's)
                tally.exercise(session.run_id)
                why = undeclared(kind, ask.get("params"), capabilities)
                if why is not None:
                    shown = sorted(capabilities)[:6]
                    tally.broke(f"inputRequests[{str(key)[:30]!r}]: {why}",
                                   (request.evidence(f"declared: {shown}"), cite))  # fmt: skip
                elif tally.keeping:
                    tally.keep(cite)
    yield tally.finding(what="input request(s)", kept="each of a declared kind and mode")
