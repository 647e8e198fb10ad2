"""A form answer with content never leaves before the user typed anything (no auto-accept)."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.oracle.terminal import screens_in
from backchannel.recordings.model import Recording
from backchannel.recordings.shapes import ProbeOptions

from ..facts import SCENARIO, SPEC, exercised, last_screen_before
from ..payloads import FORM_TOOL


@check(
    "elicitation-form-reviewable-before-send",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}#user-interaction-model",
    title="A form answer is sent only after the user had a chance to review it (no auto-accept)",
    eras=("2025-06-18", "2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients MUST "for form mode, allow users to review and modify their responses before sending". An `accept`
    with content for confirm_change that leaves the client before the user typed anything at all fails: no answer
    was typed at a prompt (the `--answer` snapshots, under --tty or piped with --no-tty) between the form reaching
    the client and the retry leaving, and nothing was given on stdin. When input was given on stdin from the start
    (--stdin) and no answer was typed at a prompt, whether the client read it first cannot be seen: SKIP. A decline
    or cancel sends nothing to review: SKIP."""
    found = exercised(rec, FORM_TOOL)
    if isinstance(found, Finding):
        yield found
        return
    run, asked = found
    if asked.retry is None or asked.action != "accept":
        yield Finding.skipped(
            "not-accepted", f"the form was answered {asked.action or 'never'}: nothing sent", run=run.id
        )
        return
    left, arrived = asked.retry.t, asked.asked.t
    # only what was typed between this form reaching the client and its answer leaving (answers to earlier prompts
    # in the same run do not review this form)
    typed = [
        s
        for s in screens_in(rec, run.id)
        if s.reason == "answered"
        and s.t is not None
        and (arrived is None or s.t >= arrived)
        and (left is None or s.t <= left)
    ]
    screen = last_screen_before(rec, run, left)
    evidence = [asked.evidence("accept with content left", retry=True)] + ([screen] if screen else [])
    if typed:
        answered = typed[-1]
        yield Finding.passed(
            f"the user answered the prompt ({answered.answer_pattern!r}) before the accept left", *evidence, run=run.id
        )
        return
    options = ProbeOptions.read(rec.meta)
    if options is not None and options.stdin:
        yield Finding.skipped(
            "typing-not-observable",
            "input was given on stdin: whether the client read it first cannot be seen",
            run=run.id,
        )
        return
    yield Finding.failed(
        "the form was accepted with content before the user typed anything (nothing on stdin, no answer typed)",
        *evidence,
        run=run.id,
    )
