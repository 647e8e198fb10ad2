"""The client called `echo` and got the echo back."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from .. import SCENARIO


@check(
    "echo-once-answered",
    scenario=SCENARIO,
    level="MUST",
    spec="https://modelcontextprotocol.io/specification/2026-07-28/server/tools",
    title="The client calls echo and receives its result",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """PASS when a `tools/call` of `echo` reached the server and its result went back to the client; else FAIL."""
    calls = [m for m in rec.messages if m.direction == "to-server" and m.method == "tools/call"]
    for call in calls:
        answer = next(
            (
                m
                for m in rec.messages
                if m.direction == "to-client" and m.jsonrpc_id == call.jsonrpc_id and m.kind == "response"
            ),
            None,
        )
        if answer is not None and "echo-once says: " in answer.text:
            yield Finding.passed(
                "echo was called and answered", Evidence(kind="message", run=call.run_id, seq=answer.seq)
            )
            return
    yield Finding.failed(
        f"expected a tools/call of echo answered by the server; saw {len(calls)} tools/call request(s)"
    )
