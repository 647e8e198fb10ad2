"""The two held-retry checks: did the client wait for a retry the server held open, JSON or SSE?"""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.recordings.model import Recording

from .facts import action_of, exercised


def judge_held(rec: Recording, tool: str, transport: str) -> Iterator[Finding]:
    found = exercised(rec, tool, mrtr_only=True)
    if isinstance(found, Finding):
        yield found
        return
    run, calls = found
    retry = next((c for c in calls[1:] if action_of(c.input_responses.get("authorize")) == "accept"), None)
    if retry is None:
        yield Finding.skipped("not-accepted", f"the client never retried {tool} with an accept", run=run.id)
        return
    exchange = next((x for x in rec.exchanges_in(run.id) if x.flow_id == retry.request.flow_id), None)
    held = f"held {transport.upper()} retry"
    response = retry.response if retry.result.get("resultType") == "complete" else None
    left_at = min(
        (a.t for a in rec.anomalies if a.flow_id == retry.request.flow_id and a.kind == "client-disconnected" and a.t),
        default=None,
    )
    # A client that closes the stream once its complete answer has passed the proxy closed nothing early.
    answered_first = response is not None and left_at is not None and (response.t or 0.0) <= left_at
    if exchange is not None and exchange.error and not answered_first:
        yield Finding.failed(
            f"the client closed the {held} before the answer arrived ({exchange.error})",
            retry.evidence(held),
            Evidence(kind="exchange", run=run.id, seq=exchange.seq),
            run=run.id,
        )
        return
    if retry.response is None or retry.result.get("resultType") != "complete":
        yield Finding.failed(
            f"the {held} never delivered its complete result to the client", retry.evidence(held), run=run.id
        )
        return
    yield Finding.passed(
        f"the client waited for the {held} and got its result",
        retry.evidence(held),
        Evidence(kind="message", run=run.id, seq=retry.response.seq, note="result"),
        run=run.id,
    )
