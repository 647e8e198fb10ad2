"""The prompt shows a way to decline and a way to cancel (a text heuristic: WARN for a person, never FAIL)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, Elicitation, exercised, last_screen_before, text_until
from ..payloads import URL_TOOL

DECLINE = re.compile(r"\bdeclin|\breject|\bdeny\b|\bdon'?t\b|\[n\]|\(n\)|\by/n\b|\[n\w*\]|\bno\b", re.IGNORECASE)
CANCEL = re.compile(r"\bcancel|\babort|\besc(ape)?\b|ctrl[- +]?c|\^c|\[c\]|\(c\)|\bdismiss|\bskip\b", re.IGNORECASE)


@check(
    "elicitation-decline-cancel-offered",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}#user-interaction-model",
    title="The prompt offers a way to decline and a way to cancel (heuristic: WARN, never FAIL)",
    eras=("2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients MUST "respect user privacy and provide clear decline and cancel options". Read from what the
    terminal showed up to the answer for connect_account: a decline option (decline, reject, deny, no, [n] ...) and a
    cancel option (cancel, abort, Esc, Ctrl-C, [c], dismiss, skip). Both: PASS. Either missing: WARN with the
    screen (or terminal) as evidence for a person; a heuristic over free text is never a FAIL."""
    found = exercised(rec, URL_TOOL)
    if isinstance(found, Finding):
        yield found
        return
    run, asked = found
    until = asked.retry.t if asked.retry else None
    text = _after_request(text_until(rec, run, until), asked)
    missing = [name for name, pattern in (("decline", DECLINE), ("cancel", CANCEL)) if not pattern.search(text)]
    screen = last_screen_before(rec, run, until)
    evidence = [asked.evidence("the URL request")] + ([screen] if screen else [])
    if missing:
        yield Finding.warned(
            f"no {' and no '.join(missing)} option found in what the prompt showed (a person should look)",
            *evidence,
            run=run.id,
        )
    else:
        yield Finding.passed("the prompt offers both a decline and a cancel option", *evidence, run=run.id)


def _after_request(text: str, asked: Elicitation) -> str:
    """The text from where the request's message first shows (what belongs to its prompt), else all of it."""
    message = asked.params.get("message")
    at = text.find(message[:40]) if isinstance(message, str) and message else -1
    return text[at:] if at >= 0 else text
