"""A client's retry is a new request, under a JSON-RPC id of its own."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, Tally, rounds


@check(
    "sep-2322-client-jsonrpc-id-different",
    scenario=SCENARIO,
    side="client",
    level="MUST",
    spec=f"{SPEC}/basic/patterns/mrtr",
    title="A retry uses a JSON-RPC id different from the request it retries",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "The JSON-RPC id MUST be different between the initial request and the retry, as they are independent
    requests." Every retried round: the retry's id differs from the id of the request that got input_required.
    The same id: FAIL. No round retried: SKIP."""
    tally = Tally()
    for found in rounds(rec):
        if found.retry is None:
            continue
        tally.exercise(found.request.message.run_id)
        if found.retry.message.jsonrpc_id == found.request.message.jsonrpc_id:
            tally.broke(f"the retry reused id {found.request.message.jsonrpc_id}", found.evidence())
        elif tally.keeping:
            tally.keep(*found.evidence())
    yield tally.finding(what="retried round(s)", kept="each retry under a new id")
