"""The removed -32042 (URLElicitationRequiredError) appears in no response of the scenario."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.oracle.session.facts import sessions
from backchannel.recordings.model import Message, Recording

from ..facts import BOTH_MODES, SCENARIO, SPEC, URL_ELICITATION_REQUIRED, URL_TOOL, gate, probe, stopped, unanswered

LEGACY_ERAS = ("2025-06-18", "2025-11-25")


def spoken_in_2025(rec: Recording) -> set[tuple[str | None, int]]:
    """The (run, seq) of every message the session facts place in a 2025 era: there -32042 is still legitimate
    (2025-11-25 defines it), so this 2026-07-28 rule never counts it."""
    return {
        (sent.message.run_id, sent.message.seq)
        for session in sessions(rec)
        for sent in session.sent
        if sent.era in LEGACY_ERAS
    }


def counts(message: Message, legacy: set[tuple[str | None, int]]) -> bool:
    """A server message this rule judges: sent to the client in a 2026-07-28 exchange (or one of unknown era)."""
    return message.direction == "to-client" and (message.run_id, message.seq) not in legacy


def _code(payload: object) -> object:
    error = payload.get("error") if isinstance(payload, dict) else None
    return error.get("code") if isinstance(error, dict) else None


@check(
    "sep-1036-server-no-url-elicitation-required-error",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/basic#error-codes",
    title="The removed -32042 (URL elicitation required) appears in no response",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """The 2026-07-28 base protocol lists codes of earlier revisions that implementations must not emit any more;
    -32042 (URL elicitation required, 2025-11-25 only) is one. Every message the server sent in every run of the
    scenario is searched for it (a server ported from 2025-11-25 returns it where an InputRequiredResult belongs).
    Era: 2026-07-28 only: a message of a 2025 session (by the session facts' era of each message) is not counted,
    since 2025-11-25 defines -32042 and a server may answer a 2025 call with it."""
    stop = gate(rec)
    if stop is not None:
        yield stop
        return
    why = stopped(rec)
    if why:  # the probes most likely to draw a -32042 were never sent: no clean bill
        yield Finding.errored("server-stopped-answering", f"not every probe was sent: {why}")
        return
    calls = [found.call for name in BOTH_MODES if (found := probe(rec, name)) and found.call]
    if calls and not any(step.answered for step in calls):
        yield unanswered(calls, f"{URL_TOOL} got no JSON-RPC answer to a client declaring both modes")
        return
    seen, bad = 0, []
    legacy = spoken_in_2025(rec)
    for message in rec.messages:
        if not counts(message, legacy):
            continue
        seen += 1
        if _code(message.payload) == URL_ELICITATION_REQUIRED:
            run = rec.run(message.run_id).name if message.run_id else "?"
            bad.append(Evidence(kind="message", run=message.run_id, seq=message.seq, note=f"{run}: -32042"))
    if bad:
        yield Finding.failed(f"-32042 in {len(bad)} response(s): {', '.join(e.note for e in bad)}", *bad)
    else:
        yield Finding.passed(f"none of the server's {seen} message(s) carries -32042")
