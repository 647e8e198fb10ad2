"""A human can see and deny a sampling request before the model's answer leaves."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.oracle.scenarios.elicitation_ui.facts import last_screen_before
from backchannel.oracle.terminal import screens_in
from backchannel.recordings.model import Recording
from backchannel.recordings.shapes import ProbeOptions

from ..facts import SCENARIO, SPEC, exercised
from ..payloads import SUMMARY_TOOL


@check(
    "sampling-human-in-the-loop",
    scenario=SCENARIO,
    level="SHOULD",
    spec=f"{SPEC}#user-interaction-model",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
    title="A user step lies between a sampling request reaching the client and the model's answer leaving",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "For trust & safety and security, there SHOULD always be a human in the loop with the ability to deny
    sampling requests." Every era: summarize_notes's request (an input request in 2026-07-28, a server request in
    2025) and the client's answer to it. PASS when the user answered a prompt (an `--answer` snapshot, under --tty or
    piped with --no-tty) between the request reaching the client and the answer leaving, whatever was answered (a
    denial is the user's: a JSON-RPC error in 2025, no retry in 2026-07-28). WARN when the model's answer left with
    no user step at all (nothing typed, nothing on stdin). Input given on stdin from the start: whether the client
    asked first cannot be seen, SKIP. Refused without a user step, or never answered: nothing left, SKIP."""
    found = exercised(rec, SUMMARY_TOOL)
    if isinstance(found, Finding):
        yield found
        return
    run, asked = found
    arrived = asked.asked.t
    left = asked.reply.t if asked.reply is not None else None
    typed = [
        s
        for s in screens_in(rec, run.id)
        if s.reason == "answered"
        and s.t is not None
        and (arrived is None or s.t >= arrived)
        and (left is None or s.t <= left)
    ]
    screen = last_screen_before(rec, run, left)
    shown = [screen] if screen else []
    if asked.answer is None:
        if typed:
            how = "with an error" if asked.error else "by giving the call up (no retry)"
            yield Finding.passed(
                f"the user was asked ({typed[-1].answer_pattern!r}) and the request was denied {how}",
                asked.evidence("sampling request"),
                *shown,
                run=run.id,
            )
            return
        what = f"refused it with error {asked.error.get('code')}" if asked.error else "never answered it"
        yield Finding.skipped("not-answered", f"the client {what}: no model answer left", run=run.id)
        return
    evidence = [asked.evidence("the model's answer left", reply=True), *shown]
    if typed:
        yield Finding.passed(
            f"the user answered a prompt ({typed[-1].answer_pattern!r}) before the model's answer left",
            *evidence,
            run=run.id,
        )
        return
    options = ProbeOptions.read(rec.meta)
    if options is not None and options.stdin:
        yield Finding.skipped(
            "typing-not-observable",
            "input was given on stdin: whether the client asked first cannot be seen",
            run=run.id,
        )
        return
    yield Finding.warned(
        "the model's answer left with no user step (nothing typed at a prompt, nothing on stdin): no human could "
        "see or deny the request",
        *evidence,
        run=run.id,
    )
