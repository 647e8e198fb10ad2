"""A retry answering decline or cancel gets a well-formed answer, not an internal error, a hang or a dropped line."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import (
    DECLINE_CANCEL,
    ELICITATION,
    INTERNAL_ERROR,
    SCENARIO,
    URL_TOOL,
    gate,
    missing_probe,
    probe,
    unanswered,
)


@check(
    "sep-2322-server-handles-decline-cancel",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{ELICITATION}#implementation-considerations",
    title="Decline and cancel get a well-formed answer: a result, another input request or a deliberate error",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Servers [...] MUST handle cases where the user declines or cancels the elicitation." Two flows retry
    test_url_elicitation, one answering decline and one cancel. A tool result (isError: true included), another
    InputRequiredResult or a deliberate JSON-RPC error passes; -32603 (internal error), no answer within the
    request timeout, a dropped connection or an answer that is not JSON-RPC fails."""
    stop = gate(rec)
    if stop is not None:
        yield stop
        return
    passed: list[Evidence] = []
    failed: list[Evidence] = []
    untried: list[str] = []
    calls = []
    for name in DECLINE_CANCEL:
        found = probe(rec, name)
        if found is None:
            yield missing_probe(rec, name)
            return
        if found.call is None or not found.call.answered:
            if found.call is not None:
                calls.append(found.call)
                untried.append(f"{name}: {found.call.got()}")
            continue
        if found.retry is None:  # no input request came back, so there was nothing to decline or cancel
            untried.append(f"{name}: {found.call.got()}")
            continue
        retry, action = found.retry, name.rsplit("-", 1)[1]
        if retry.error_code == INTERNAL_ERROR:
            failed.append(retry.evidence(f"{action}: -32603 internal error, the sign of an unhandled {action}"))
        elif retry.answered:
            passed.append(retry.evidence(f"{action}: {retry.got()}"))
        else:
            failed.append(retry.evidence(f"{action}: {retry.got()}"))
    if calls and len(calls) == len(untried) and not (passed or failed):
        yield unanswered(calls, f"{URL_TOOL} got no JSON-RPC answer, so no flow reached a decline or cancel")
    elif failed:
        yield Finding.failed(f"not handled: {'; '.join(e.note for e in failed)}", *failed, *passed)
    elif passed:
        note = f" ({'; '.join(untried)} was not exercised)" if untried else ""
        yield Finding.passed(f"handled: {'; '.join(e.note for e in passed)}{note}", *passed)
    else:
        yield Finding.skipped(
            "no-input-request", f"{URL_TOOL} asked for nothing to decline or cancel: {'; '.join(untried)}"
        )
