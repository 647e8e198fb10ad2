"""A URL-mode request says `mode: "url"` and carries a string `message` and a string `url`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import BOTH_MODES, ELICITATION, SCENARIO, URL_TOOL, Step, gate, missing_probe, probe, unanswered


def url_requests(rec: Recording) -> tuple[list[Step], list[tuple[Step, str, dict[str, Any]]]] | Finding:
    """The both-modes calls' answered steps and every URL request in them (mode url, or a url with no mode); or
    the finding that stops the judging (a gate, a missing probe, no answer at all)."""
    stop = gate(rec)
    if stop is not None:
        return stop
    calls: list[Step] = []
    for name in BOTH_MODES:
        found = probe(rec, name)
        if found is None:
            return missing_probe(rec, name)
        if found.call is not None:
            calls.append(found.call)
    answered = [step for step in calls if step.answered]
    if not answered:
        return unanswered(calls, f"{URL_TOOL} got no JSON-RPC answer to a client declaring both modes")
    found_requests = [
        (step, where, params)
        for step in answered
        for where, params in step.elicitations()
        if params.get("mode") == "url" or "url" in params
    ]
    return answered, found_requests


@check(
    "sep-1036-url-request-params",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{ELICITATION}#url-mode-elicitation-requests",
    title='A URL-mode request says mode "url" and carries a string message and a string url',
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "URL mode elicitation requests MUST specify `mode: "url"`, a `message`, and include [a] `url`." Judged on
    the three calls declaring both modes: each must ask in URL mode, and each URL request must carry all three. A
    request with a url but no mode FAILs: clients MUST treat a request without a mode as form mode."""
    found = url_requests(rec)
    if isinstance(found, Finding):
        yield found
        return
    answered, requests = found
    if not requests:
        got = "; ".join(f"{step.run.name}: {step.got()}" for step in answered)
        yield Finding.failed(
            f"{URL_TOOL} never asked in URL mode, though the client declared both modes: {got}",
            *(step.evidence("no URL-mode request") for step in answered),
        )
        return
    bad = []
    for step, where, params in requests:
        problems = []
        if params.get("mode") != "url":
            problems.append(
                "has a url but no mode (clients MUST treat it as form mode)"
                if "mode" not in params
                else f"mode is {params.get('mode')!r}, not 'url'"
            )
        for field in ("message", "url"):
            if not isinstance(params.get(field), str):
                problems.append(f"{field} is {'missing' if field not in params else 'not a string'}")
        if problems:
            bad.append(step.evidence(f"{step.run.name} {where}: {'; '.join(problems)}"))
    if bad:
        yield Finding.failed(f"{len(bad)} of {len(requests)} URL request(s) are malformed: {bad[0].note}", *bad)
    else:
        yield Finding.passed(
            f"all {len(requests)} URL request(s) say mode url with a string message and url",
            *(step.evidence(where) for step, where, _ in requests),
        )
