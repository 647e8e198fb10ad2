"""A 2026-07-28 server's input_required result carries well-formed inputRequests or a requestState."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import INPUT_METHODS, SCENARIO, SPEC, Tally, cite, server_sessions


def problems(result: dict[str, Any]) -> list[str]:
    """What makes an InputRequiredResult malformed, by the MRTR page's server requirements."""
    found = []
    if "inputRequests" not in result and "requestState" not in result:
        found.append("neither inputRequests nor requestState")
    if "requestState" in result and not isinstance(result["requestState"], str):
        found.append(f"requestState is {type(result['requestState']).__name__}, not a string")
    asks = result.get("inputRequests")
    if "inputRequests" in result and not isinstance(asks, dict):
        found.append(f"inputRequests is {type(asks).__name__}, not an object")
    elif isinstance(asks, dict):
        for key, ask in list(asks.items())[:50]:
            method = ask.get("method") if isinstance(ask, dict) else None
            if method not in INPUT_METHODS:
                found.append(f"inputRequests[{str(key)[:30]!r}] is not an elicitation, sampling or roots request")
            elif "params" in ask and not isinstance(ask["params"], dict):
                found.append(f"inputRequests[{str(key)[:30]!r}] has params that are not an object")
    return found


@check(
    "session-server-input-required-well-formed",
    scenario=SCENARIO,
    side="server",
    level="MUST",
    spec=f"{SPEC}/basic/patterns/mrtr",
    title="An input_required result carries inputRequests or requestState, each input request of a known kind",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Servers MUST include at least one of inputRequests or requestState in every InputRequiredResult"; its
    `inputRequests` values "MUST be one of ElicitRequest, CreateMessageRequest, or ListRootsRequest"; its
    `requestState` is a string. Judged on each `input_required` result as the server sent it (the full shape of
    each input request is the schema rule's). Broken: FAIL, naming what is wrong. None sent: SKIP."""
    tally = Tally()
    for session in server_sessions(rec):
        for request in session.modern:
            sent = request.answered_as_sent
            result = sent.get("result") if isinstance(sent, dict) else None
            if request.answer is None or not isinstance(result, dict) or result.get("resultType") != "input_required":
                continue
            tally.exercise(session.run_id)
            wrong = problems(result)
            if wrong:
                what = f"the input_required answering {request.message.method} (id {request.message.jsonrpc_id})"
                tally.broke(f"{what}: {'; '.join(wrong[:3])}", (cite(request.answer, "; ".join(wrong)[:300]),))
            elif tally.keeping:
                tally.keep(cite(request.answer, "well-formed input_required"))
    yield tally.finding(what="input_required result(s)", kept="each well-formed")
