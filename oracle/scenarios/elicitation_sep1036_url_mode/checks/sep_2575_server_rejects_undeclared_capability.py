"""A call that needs a capability the client did not declare gets -32021 listing it in data.requiredCapabilities."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import (
    FORM_ONLY,
    MISSING_CAPABILITY,
    SCENARIO,
    SPEC,
    URL_TOOL,
    Step,
    compact,
    declared,
    gate,
    missing_probe,
    probe,
    unanswered,
)


def missing_capability_errors(rec: Recording) -> list[Step] | Finding:
    """The form-only calls of test_url_elicitation (all answered), or the finding that stops the judging."""
    stop = gate(rec)
    if stop is not None:
        return stop
    calls = []
    for name in FORM_ONLY:
        found = probe(rec, name)
        if found is None:
            return missing_probe(rec, name)
        if found.call is not None:
            calls.append(found.call)
    silent = [step for step in calls if not step.answered]
    if silent or not calls:
        return unanswered(silent, f"{URL_TOOL} got no JSON-RPC answer to a client declaring form mode only")
    return calls


@check(
    "sep-2575-server-rejects-undeclared-capability",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/basic#_meta",
    title="A call needing an undeclared capability (URL mode) gets -32021 with data.requiredCapabilities",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """When a request needs a capability the client did not declare, the server "MUST return a
    MissingRequiredClientCapabilityError (-32021) whose data.requiredCapabilities lists the missing capabilities".
    test_url_elicitation cannot work without URL mode, so both form-only calls (`elicitation: {}` and `{"form":
    {}}`) must get exactly that: a tool result (even isError), an input request or another error code fails."""
    found = missing_capability_errors(rec)
    if isinstance(found, Finding):
        yield found
        return
    good: list[Evidence] = []
    bad: list[Evidence] = []
    for step in found:
        required = (step.error or {}).get("data")
        required = required.get("requiredCapabilities") if isinstance(required, dict) else None
        if step.error_code == MISSING_CAPABILITY and isinstance(required, dict):
            good.append(step.evidence(f"{step.run.name}: -32021, requiredCapabilities {compact(required)}"))
        elif step.error_code == MISSING_CAPABILITY:
            bad.append(step.evidence(f"{step.run.name}: -32021 without data.requiredCapabilities"))
        else:
            bad.append(step.evidence(f"{step.run.name} (declared {declared(step)}): {step.got()}"))
    if bad:
        yield Finding.failed(f"expected -32021 for an undeclared URL mode; {'; '.join(e.note for e in bad)}", *bad)
    else:
        yield Finding.passed(f"both form-only calls got -32021: {'; '.join(e.note for e in good)}", *good)
