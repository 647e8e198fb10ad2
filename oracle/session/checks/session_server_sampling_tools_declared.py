"""A server sends tool-enabled sampling only to a client that declared `sampling.tools`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..capabilities import declared
from ..facts import SCENARIO, SPEC, Tally, cite, server_sessions

SAMPLING = "sampling/createMessage"
TOOLS_ERA = "2025-11-25"  # the first era whose sampling requests have tools/toolChoice (and sampling.tools)


def _tool_enabled(params: Any) -> bool:
    return isinstance(params, dict) and ("tools" in params or "toolChoice" in params)


def _why(capabilities: Mapping[str, Any]) -> str | None:
    """Why tool-enabled sampling was outside what was declared; None when sampling.tools was declared."""
    sampling = capabilities.get("sampling")
    if not isinstance(sampling, dict):
        return "sampling was not declared"
    return None if "tools" in sampling else "sampling was declared without tools"


@check(
    "session-server-sampling-tools-declared",
    scenario=SCENARIO,
    side="server",
    level="MUST",
    spec=f"{SPEC}/client/sampling#tools-in-sampling",
    eras=("2026-07-28", "2025-11-25"),
    title="Tool-enabled sampling (tools, toolChoice) goes only to a client that declared sampling.tools",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Servers MUST NOT send tool-enabled sampling requests to Clients that have not declared support for tool use
    via the `sampling.tools` capability." Judged in 2026-07-28 on each `sampling/createMessage` input request the
    server put in an InputRequiredResult (as the server sent it; an injected one is the proxy's) against the
    `_meta` clientCapabilities of the request it answers, and in 2025-11-25 on each `sampling/createMessage` the
    server sent as a request of its own against its session's `initialize` (the one its Mcp-Session-Id names; an
    inferred tie only WARNs). A request with `tools` or `toolChoice` needs `sampling.tools`: FAIL without it. Not
    judged in 2025-06-18 (its sampling request has no tools; the schema rule judges what that era defines). No
    tool-enabled sampling: SKIP."""
    tally = Tally()
    guessed = 0
    for session in server_sessions(rec):
        for request in session.modern:
            result = request.answered_as_sent.get("result") if isinstance(request.answered_as_sent, dict) else None
            asks = result.get("inputRequests") if isinstance(result, dict) else None
            if not isinstance(asks, dict) or request.answer is None:
                continue
            capabilities = declared(request) or {}
            for key, ask in asks.items():
                if not isinstance(ask, dict) or ask.get("method") != SAMPLING or not _tool_enabled(ask.get("params")):
                    continue
                tally.exercise(session.run_id)
                note = f"inputRequests[{str(key)[:30]!r}]: tool-enabled sampling, as the server sent it"
                sent = Evidence(kind="message", run=request.answer.run_id, seq=request.answer.seq, note=note)
                why = _why(capabilities)
                if why is not None:
                    shown = capabilities.get("sampling", "absent")
                    tally.broke(f"inputRequests[{str(key)[:30]!r}]: {why}",
                                (request.evidence(f"declared sampling: {str(shown)[:60]}"), sent))  # fmt: skip
                elif tally.keeping:
                    tally.keep(sent)
        for request in session.server:
            handshake = request.handshake
            if request.message.method != SAMPLING or request.modern or not _tool_enabled(request.params):
                continue
            if handshake is None or (handshake.version or TOOLS_ERA) < TOOLS_ERA:
                continue  # no handshake to judge it against, or an era without tool-enabled sampling
            tally.exercise(session.run_id)
            why = _why(handshake.capabilities)
            tied = "its session's initialize" if request.handshake_sure else "the run's last initialize (inferred)"
            if why is not None:
                guessed += not request.handshake_sure
                evidence = (request.evidence("tool-enabled sampling/createMessage from the server"),
                            cite(handshake.request, f"{tied}: {why}"))  # fmt: skip
                tally.broke(f"{SAMPLING} (id {request.message.jsonrpc_id}): {why}", evidence)
            elif tally.keeping:
                tally.keep(request.evidence(f"sampling.tools declared in {tied}"))
    level = "SHOULD" if tally.broken and guessed == len(tally.broken) else "MUST"  # inferred ties only: WARN
    yield tally.finding(what="tool-enabled sampling request(s)", kept="each to a client that declared sampling.tools",
                        level=level)  # fmt: skip
