"""A parameter that is null or absent in the call gets no Mcp-Param header."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.oracle.session.facts import cite
from backchannel.recordings.model import Recording

from .. import SCENARIO
from ..facts import HTTP_SPEC, NOT_EXERCISED, over_bridge, runs_requests, sent_headers, tool_calls
from ..param_headers import PARAM_PREFIX, broken_constraints, null_or_absent


@check(
    "sep-2243-client-omit-null",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{HTTP_SPEC}#custom-headers-from-tool-parameters",
    title="An x-mcp-header parameter that is null or absent gets no Mcp-Param header",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Header extraction is defined as reading the instance value at the exact property path of the annotated
    property ... If no value is present at that path in the call arguments, the header is omitted." Every tools/call
    over HTTP whose listed schema annotates a parameter the call leaves null or absent: no `Mcp-Param-{name}` for it.
    Sent anyway: FAIL. The spec's sentence names an absent value; a JSON null is no value of the annotated primitive
    type either, and the suite's fixture passes `null` for it: backchannel judges both alike. No such parameter (or
    only over the stdio bridge): SKIP (the suite backfills FAILURE)."""
    judged, broken, kept = 0, [], []
    for requests in runs_requests(rec):
        for request, name, schema in tool_calls(requests):
            missing = null_or_absent(schema, request.params.get("arguments"))
            if not missing or over_bridge(request) or broken_constraints(schema):
                continue
            judged += len(missing)
            headers = sent_headers(request)
            sent = [m for m in missing if PARAM_PREFIX + m.lower() in headers]
            for header in sent:
                note = f"{name}: Mcp-Param-{header} {headers[PARAM_PREFIX + header.lower()][:40]!r} for no value"
                broken.append(cite(request.message, note))
            if not sent:
                kept.append(cite(request.message, f"{name}: no header for {', '.join(missing)}"))
    if broken:
        yield Finding.failed(f"{len(broken)} of {judged} null or absent parameter(s) got a header anyway", *broken)
    elif judged == 0:
        yield Finding.skipped(NOT_EXERCISED, "no tools/call over HTTP left an x-mcp-header parameter null or absent")
    else:
        yield Finding.passed(f"{judged} null or absent x-mcp-header parameter(s): none got a header", *kept[:3])
