"""No elicitation request in a mode the client did not declare: no URL request to a form-only client, and (the
reverse probe) no form request to a URL-only one."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import (
    ELICITATION,
    FORM_ONLY,
    FORM_TOOL,
    REVERSE,
    SCENARIO,
    URL_TOOL,
    declared,
    gate,
    listed_tools,
    missing_probe,
    probe,
    unanswered,
)


@check(
    "sep-1036-server-no-unsupported-mode",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{ELICITATION}#capabilities",
    title="No elicitation in a mode the client did not declare (elicitation: {} means form only)",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Servers MUST NOT send elicitation requests with modes that are not supported by the client." test_url_
    elicitation is called declaring `elicitation: {}` (form only, by the backward-compatibility rule) and `{"form":
    {}}`, after the calls declaring both modes: neither answer may hold a URL-mode request (in inputRequests or
    pushed on the stream). The reverse probe calls the form tool declaring `{"url": {}}` only: no form-mode request
    (mode "form" or no mode) may come back. A server without the form tool has the reverse probe recorded as not
    exercised; the form-only calls are still judged."""
    stop = gate(rec)
    if stop is not None:
        yield stop
        return
    calls = []
    for name in FORM_ONLY:
        found = probe(rec, name)
        if found is None:
            yield missing_probe(rec, name)
            return
        if found.call is not None:
            calls.append(found.call)
    answered = [step for step in calls if step.answered]
    if not answered:
        yield unanswered(calls, f"{URL_TOOL} got no JSON-RPC answer to a client declaring form mode only")
        return
    bad: list[Evidence] = []
    for step in answered:
        bad += [
            step.evidence(f"{step.run.name} (declared {declared(step)}): a URL-mode request in {where}")
            for where, params in step.elicitations()
            if params.get("mode") == "url"
        ]
    notes = [f"{len(answered)} form-only call(s) got no URL request"]
    notes += [f"{step.run.name}: not judged, {step.got()}" for step in calls if not step.answered]
    reverse = probe(rec, REVERSE)
    if reverse is None or reverse.call is None:
        tools = listed_tools(rec) or []
        if FORM_TOOL in tools:
            yield missing_probe(rec, REVERSE)
            return
        notes.append(f"reverse probe not exercised: the server does not offer {FORM_TOOL}")
    elif not reverse.call.answered:
        notes.append(f"reverse probe not judged: {reverse.call.got()}")
    else:
        step = reverse.call
        forms = [where for where, params in step.elicitations() if params.get("mode", "form") == "form"]
        bad += [step.evidence(f"{REVERSE} (declared {declared(step)}): a form-mode request in {w}") for w in forms]
        if not forms:
            notes.append(f"the URL-only client got no form request from {FORM_TOOL} ({step.got()})")
    if bad:
        yield Finding.failed(f"{len(bad)} request(s) in an undeclared mode: {bad[0].note}", *bad)
    else:
        yield Finding.passed("; ".join(notes), *(step.evidence(step.got()) for step in answered))
