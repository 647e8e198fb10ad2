"""Leaving out invalid tools keeps the valid ones: the client still calls a valid tool of the same listing."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.oracle.session.facts import cite
from backchannel.recordings.model import Recording

from .. import SCENARIO
from ..facts import NOT_EXERCISED, SPEC, listed, over_bridge, result_of, runs_requests, tool_calls
from ..param_headers import broken_constraints, header_annotations


@check(
    "sep-2243-client-reject-invalid-tool",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/server/tools#x-mcp-header",
    title="Invalid x-mcp-header tools are dropped one by one: a valid annotated tool of the listing is still called",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Rejection means the client MUST exclude the invalid tool from the result of tools/list ... This ensures
    that a single malformed tool definition does not prevent other valid tools from being used." Exercised by a run
    whose listing held both a valid annotated tool and invalid ones: PASS when the client then called a valid
    annotated tool. When it called none, WARN, never FAIL: the wire cannot tell a client that dropped the whole
    listing from one that had no reason to call (the suite FAILs it, by its contract). No such listing (or only over
    the stdio bridge): SKIP (the suite backfills FAILURE)."""
    exercised, kept, idle = 0, [], []
    for requests in runs_requests(rec):
        lists = [r for r in requests if r.message.method == "tools/list" and not over_bridge(r) and result_of(r)]
        if not lists:
            continue
        tools = listed(requests, lists[-1].message.seq + 1)
        valid = {n for n, s in tools.items() if any(True for _ in header_annotations(s)) and not broken_constraints(s)}
        if not valid or all(not broken_constraints(s) for s in tools.values()):
            continue
        exercised += 1
        called = [(r, n) for r, n, _s in tool_calls(requests) if n in valid]
        if called:
            kept.append(
                cite(called[0][0].message, f"calls {called[0][1]}, a valid tool of a listing with invalid ones")
            )
        else:
            idle.append(cite(lists[-1].message, f"listed valid {', '.join(sorted(valid))} beside invalid tools"))
    if idle:
        yield Finding.warned(
            f"{len(idle)} run(s) listed valid annotated tools beside invalid ones and the client called none: it may "
            "have dropped the whole listing (a person judges)",
            *idle,
        )
    elif exercised == 0:
        yield Finding.skipped(NOT_EXERCISED, "no listing held a valid x-mcp-header tool beside invalid ones")
    else:
        yield Finding.passed(f"{exercised} listing(s) with invalid tools: a valid tool was still called", *kept)
