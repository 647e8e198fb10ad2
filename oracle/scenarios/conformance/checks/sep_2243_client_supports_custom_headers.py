"""A call to a tool with x-mcp-header parameters carries Mcp-Param headers at all."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.oracle.session.facts import cite
from backchannel.recordings.model import Recording

from .. import SCENARIO
from ..facts import HTTP_SPEC, NOT_EXERCISED, over_bridge, runs_requests, sent_headers, tool_calls
from ..param_headers import ABSENT, PARAM_PREFIX, broken_constraints, header_annotations, value_at


@check(
    "sep-2243-client-supports-custom-headers",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{HTTP_SPEC}#custom-headers-from-tool-parameters",
    title="A call to a tool with x-mcp-header parameters carries Mcp-Param-* headers",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "While the use of x-mcp-header is optional for servers, clients MUST support this feature." Every tools/call
    over HTTP to a tool whose listed schema annotates a parameter the call gives a (non-null) value: at least one
    `Mcp-Param-*` header. None at all: FAIL (whether each is right is judged by the three mirroring checks). Calls
    over the stdio bridge, where a client MAY ignore the annotations, and no such call: SKIP (the suite backfills
    FAILURE when the client never calls its tool)."""
    judged, broken, kept = 0, [], []
    for requests in runs_requests(rec):
        for request, name, schema in tool_calls(requests):
            arguments = request.params.get("arguments")
            valued = [
                n for path, n, _s in header_annotations(schema) if value_at(arguments, path) not in (None, ABSENT)
            ]
            if not valued or over_bridge(request) or broken_constraints(schema):
                continue
            judged += 1
            if any(key.startswith(PARAM_PREFIX) for key in sent_headers(request)):
                kept.append(cite(request.message, f"{name}: Mcp-Param headers sent"))
            else:
                broken.append(cite(request.message, f"{name}: no Mcp-Param header for {', '.join(map(str, valued))}"))
    if broken:
        yield Finding.failed(f"{len(broken)} of {judged} call(s) to annotated tools sent no Mcp-Param header", *broken)
    elif judged == 0:
        yield Finding.skipped(NOT_EXERCISED, "no tools/call over HTTP gave a value to an x-mcp-header parameter")
    else:
        yield Finding.passed(f"{judged} call(s) to annotated tools: each with Mcp-Param headers", *kept[:3])
