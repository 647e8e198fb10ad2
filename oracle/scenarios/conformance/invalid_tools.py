"""One judgment for the four x-mcp-header constraint checks: a client over HTTP leaves out (never calls) a listed
tool whose annotation breaks the constraint."""

from __future__ import annotations

from backchannel.oracle.model import Finding
from backchannel.oracle.session.facts import cite
from backchannel.recordings.model import Recording

from .facts import NOT_EXERCISED, listed, over_bridge, runs_requests, tool_calls
from .param_headers import broken_constraints


def judge_invalid(rec: Recording, check_id: str, what: str) -> Finding:
    """FAIL for each call to a tool listed with an annotation that breaks `check_id`'s constraint; PASS when such
    tools were listed and none was called; SKIP when none was listed (or only over the stdio bridge)."""
    offered: set[str] = set()
    called, bridged = [], 0
    for requests in runs_requests(rec):
        for request in requests:
            if request.message.method != "tools/list":
                continue
            if over_bridge(request):
                bridged += 1
                continue
            tools = listed(requests, request.message.seq + 1)
            offered |= {name for name, schema in tools.items() if check_id in broken_constraints(schema)}
        for request, name, schema in tool_calls(requests):
            if not over_bridge(request) and check_id in broken_constraints(schema):
                called.append((name, cite(request.message, f"calls {name}, whose x-mcp-header {what}")))
    if called:
        names = sorted({name for name, _ in called})
        message = f"the client called {len(names)} tool(s) it MUST have left out ({what}): {', '.join(names)}"
        return Finding.failed(message, *(e for _, e in called[:10]))
    if not offered:
        note = " (tools were listed over the stdio bridge: x-mcp-header MAY be ignored there)" if bridged else ""
        return Finding.skipped(NOT_EXERCISED, f"no tool listed to the client had an x-mcp-header that {what}{note}")
    return Finding.passed(
        f"{len(offered)} listed tool(s) whose x-mcp-header {what}: none called ({', '.join(sorted(offered))})"
    )
