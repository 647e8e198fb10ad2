"""A client whose answers keep drawing new `input_required` stops after a bounded number of rounds and tells its
user, rather than retrying until something else stops it (a TypeScript SDK review found such a re-prompt loop)."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.oracle.session.facts import Round, cite
from backchannel.oracle.terminal import chunks, is_tty, plain
from backchannel.recordings.model import Recording, Run

from ..facts import LOOP_ROUNDS, LOOP_TOOL, MRTR, SCENARIO, loop_rounds


def _told(rec: Recording, run: Run, last: Round) -> tuple[str, Evidence] | None:
    """What tells the user the client gave up: its error stream (the terminal, under a tty) written once the last
    round had reached it (a line naming the tool first), or a failing exit status of its own (a client the lab
    killed at its timeout chose no status); None when neither."""
    arrived = last.request.answer.t if last.request.answer is not None else None
    stream = "tty" if is_tty(rec, run.id) else "stderr"
    # text, not a terminal's escape sequences alone (a cursor move or a colour reset tells the user nothing)
    after = [
        c
        for c in chunks(rec, run.id, stream)
        if plain(c.data).strip() and (arrived is None or c.t is None or c.t >= arrived)
    ]
    naming = [c for c in after if LOOP_TOOL.encode() in c.data]  # a complaint naming the tool, where there is one
    for chunk in naming[:1] or after[:1]:
        note = "what the client wrote after the last round reached it"
        text = next(iter(plain(chunk.data).decode("utf-8", "replace").strip().splitlines()), "")[:120]
        where = Evidence(kind="terminal", run=run.id, stream=stream, offset=chunk.offset, length=len(chunk.data),
                             note=note)  # fmt: skip
        return f"its {stream} says {text!r}", where
    if run.exit_code not in (None, 0) and run.outcome in (None, "exited"):
        return f"it exited {run.exit_code}", Evidence(kind="run", run=run.id, note=f"exit status {run.exit_code}")
    return None


@check(
    "mrtr-round-limit-tells-user",
    scenario=SCENARIO,
    level="SHOULD",
    spec=f"{MRTR}#server-requirements-basic-workflow",
    eras=("2026-07-28",),
    title="A client whose answers keep drawing input_required stops after bounded rounds and tells its user",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Servers MAY choose to return an `InputRequiredResult` on multiple attempts at the same request if they want
    to repeatedly prompt the user for information until they have what they need to complete the request"
    (2026-07-28, MRTR server requirements). The text bounds neither side; the loop is meant to prompt the user, so
    a client that keeps answering with no end of its own re-prompts (or auto-answers) without limit. The
    expectation (from a TypeScript SDK review that found a re-prompt loop until the round limit): a bounded number
    of rounds, then the user is told. Not a sentence of the spec, hence a SHOULD (WARN, never FAIL).

    Staged by `keep_asking` (2026-07-28 only: the 2025 eras have no MRTR loop for a client to end): each answer
    draws a new `input_required` with a new requestState and a new form; the endpoint itself ends the loop after
    LOOP_ROUNDS rounds (its last answer a complete error result), so nothing hangs and the recording shows where it
    stopped. Judged per run: the client retried the last round the endpoint asked, so only the endpoint ended it,
    WARN with the round count. It stopped on its own (a round left unretried): PASS when its error stream (the
    terminal under a tty) was written after that round reached it, or it exited non-zero, with that as evidence;
    WARN when it stopped silently (exit 0, nothing on stderr). No round of the tool: SKIP `not-exercised`; no round
    retried at all (the client could not or would not answer the first): SKIP `not-retried`."""
    found = loop_rounds(rec)
    if not found:
        yield Finding.skipped("not-exercised", f"no input_required round of {LOOP_TOOL} in any run")
        return
    for run_id, rounds in found.items():
        run = rec.run(run_id) if run_id is not None else None
        last = rounds[-1]
        answered = sum(1 for r in rounds if r.retry is not None)
        if last.retry is not None:
            stop = last.retry.answer
            evidence = [*last.evidence()] + ([cite(stop, "the endpoint's answer ending the loop")] if stop else [])
            yield Finding.warned(
                f"the client answered {answered} rounds of {LOOP_TOOL} and never stopped on its own: the endpoint "
                f"ended the loop after its {LOOP_ROUNDS}-round bound (expected: a bounded number of rounds, then the "
                "user is told)",
                *evidence,
                run=run_id,
            )
            continue
        if answered == 0:
            yield Finding.skipped("not-retried", f"the client retried no round of {LOOP_TOOL}: no loop to bound",
                                  *last.evidence(), run=run_id)  # fmt: skip
            continue
        told = _told(rec, run, last) if run is not None else None
        if told is None:
            yield Finding.warned(
                f"the client stopped after {answered} round(s) of {LOOP_TOOL} but told its user nothing (exit 0, "
                "nothing on its error stream after the last round)",
                *last.evidence(),
                run=run_id,
            )
            continue
        what, where = told
        yield Finding.passed(
            f"the client stopped after {answered} round(s) of {LOOP_TOOL}, within the endpoint's {LOOP_ROUNDS}, and "
            f"told its user: {what}",
            *last.evidence(),
            where,
            run=run_id,
        )
