"""A 2025-era server sends the client only the requests its initialize declared it can take."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..capabilities import undeclared
from ..facts import INPUT_METHODS, SCENARIO, Tally, cite, server_sessions

SPEC_2025 = "https://modelcontextprotocol.io/specification/2025-11-25"


@check(
    "session-server-requests-declared-capability",
    scenario=SCENARIO,
    side="server",
    level="MUST",
    spec=f"{SPEC_2025}/basic/lifecycle#capability-negotiation",
    title="A 2025-era server sends elicitation, sampling and roots requests only for capabilities the client declared",
    eras=("2025-06-18", "2025-11-25"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """In the 2025 eras the server asks by sending the client a request: `elicitation/create` needs the
    `elicitation` capability (and, in 2025-11-25, its mode: `form`, or `url` declared as such; `{}` means form),
    `sampling/createMessage` needs `sampling`, `roots/list` needs `roots`, each declared in the `initialize` that
    opened the session ("both parties MUST only use capabilities that were successfully negotiated"). Judged on
    each such request the server sent, against its session's handshake: the one its exchange's Mcp-Session-Id
    names (FAIL when outside it), or, with no session id to tie them, the run's last handshake (WARN, shown as an
    inference). No such request: SKIP."""
    tally = Tally()
    guessed = 0
    for session in server_sessions(rec):
        for request in session.server:
            kind = INPUT_METHODS.get(request.message.method or "")
            if kind is None or request.modern:
                continue
            handshake = request.handshake
            if handshake is None:
                continue  # no handshake in the run to judge it against (a 2026-07-28 server sends none of these)
            tally.exercise(session.run_id)
            why = undeclared(kind, request.params, handshake.capabilities)
            tied = "its session's initialize" if request.handshake_sure else "the run's last initialize (inferred)"
            if why is not None:
                guessed += not request.handshake_sure
                shown = sorted(handshake.capabilities)[:6]
                evidence = (
                    request.evidence(f"{request.message.method} from the server"),
                    cite(handshake.request, f"{tied}: declared {shown}"),
                )
                tally.broke(f"{request.message.method} (id {request.message.jsonrpc_id}): {why}", evidence)
            elif tally.keeping:
                tally.keep(request.evidence(f"{kind} declared in {tied}"))
    level = "SHOULD" if tally.broken and guessed == len(tally.broken) else "MUST"  # inferred ties only: WARN
    yield tally.finding(what="server request(s) needing a capability", kept="each declared", level=level)
