"""A -32021 travels under HTTP 400, and for test_url_elicitation names `elicitation.url`, not a bare elicitation."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import MISSING_CAPABILITY, REVERSE, SCENARIO, SPEC, compact, probe
from .sep_2575_server_rejects_undeclared_capability import missing_capability_errors


@check(
    "sep-2575-missing-capability-http-400",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/basic#_meta",
    title="-32021 is sent under HTTP 400 and names elicitation.url (a bare elicitation is inaccurate)",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "On HTTP, the response status MUST be 400 Bad Request" for -32021, and data.requiredCapabilities lists the
    missing capability: for a client that declared elicitation without URL mode that is `{"elicitation": {"url":
    {}}}`; a bare `{"elicitation": {}}` is wrong, the client did declare elicitation. Judged on every -32021 the
    form-only calls got (and the status of the reverse probe's, if it got one); none at all is a SKIP, since
    sep-2575-server-rejects-undeclared-capability already fails that."""
    found = missing_capability_errors(rec)
    if isinstance(found, Finding):
        yield found
        return
    steps = [step for step in found if step.error_code == MISSING_CAPABILITY]
    reverse = probe(rec, REVERSE)
    if reverse is not None and reverse.call is not None and reverse.call.error_code == MISSING_CAPABILITY:
        steps.append(reverse.call)
    if not steps:
        yield Finding.skipped("no-missing-capability-error", "no call got -32021: no status or capability to judge")
        return
    good: list[Evidence] = []
    bad: list[Evidence] = []
    for step in steps:
        problems = []
        if step.status != 400:
            problems.append(f"HTTP {step.status}, not 400")
        data = (step.error or {}).get("data")
        required = data.get("requiredCapabilities") if isinstance(data, dict) else None
        elicitation = required.get("elicitation") if isinstance(required, dict) else None
        names_url = isinstance(elicitation, dict) and isinstance(elicitation.get("url"), dict)
        if step.run.name != REVERSE and not names_url:
            problems.append(f"requiredCapabilities {compact(required)} does not name elicitation.url")
        note = f"{step.run.name}: {'; '.join(problems) or f'HTTP 400, requiredCapabilities {compact(required)}'}"
        (bad if problems else good).append(step.evidence(note))
    if bad:
        yield Finding.failed("; ".join(e.note for e in bad), *bad, *good)
    else:
        yield Finding.passed("; ".join(e.note for e in good), *good)
