"""One judgment for the three checks that split the annotated parameters of each call between them (as the suite
splits them): unsafe strings (Base64), integers and booleans (their text), other strings (mirrored as they are)."""

from __future__ import annotations

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.session.facts import cite
from backchannel.recordings.model import Recording

from .facts import NOT_EXERCISED, over_bridge, runs_requests, sent_headers, tool_calls
from .param_headers import MIRRORS, broken_constraints, mirrored, unannotated_headers


def judge_mirrored(rec: Recording, check_id: str, what: str) -> Finding:
    """FAIL naming each parameter of `check_id`'s kind whose Mcp-Param header is missing or says something else;
    (mirrors-designated only) WARN for headers no annotation names; PASS; SKIP when no call had such a parameter."""
    judged, bridged = 0, 0
    broken: list[tuple[str, Evidence]] = []
    extra: list[tuple[str, Evidence]] = []
    kept: list[Evidence] = []
    for requests in runs_requests(rec):
        for request, name, schema in tool_calls(requests):
            if over_bridge(request):
                bridged += 1
                continue
            if broken_constraints(schema):  # a tool it must have left out: judged by the x-mcp-header checks
                continue
            headers = sent_headers(request)
            arguments = request.params.get("arguments")
            for found in mirrored(schema, arguments, headers):
                if found.check != check_id:
                    continue
                judged += 1
                if found.problem is not None:
                    broken.append((f"{name}: {found.problem}", cite(request.message, found.problem[:200])))
                elif len(kept) < 3:
                    kept.append(cite(request.message, f"{found.header} agrees with the body"))
            if check_id == MIRRORS and (stray := unannotated_headers(schema, headers)):
                extra.append((f"{name}: {', '.join(stray)}", cite(request.message, "headers no annotation names")))
    if broken:
        message = f"{len(broken)} of {judged} {what} broke the rule: " + "; ".join(w for w, _ in broken[:4])
        return Finding.failed(message, *(e for _, e in broken[:10]))
    if extra:
        message = "Mcp-Param headers for parameters without x-mcp-header (the spec defines none; a person judges): "
        return Finding.warned(message + "; ".join(w for w, _ in extra[:4]), *(e for _, e in extra[:10]))
    if judged == 0:
        note = f" ({bridged} call(s) came over the stdio bridge: x-mcp-header MAY be ignored there)" if bridged else ""
        return Finding.skipped(NOT_EXERCISED, f"no tools/call carried {what}{note}")
    return Finding.passed(f"{judged} {what}: each header present and standing for its value", *kept)
