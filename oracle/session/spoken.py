"""Which protocol era each run of a recording spoke, for the report: read from the session facts, never guessed
beyond what they say (the era of the run's last answered request of the client, and how that is known)."""

from __future__ import annotations

from backchannel.recordings.model import Recording

from ..model import RunEra
from .eras import UNKNOWN
from .facts import sessions


def run_eras(rec: Recording) -> tuple[RunEra, ...]:
    """One entry per run that has messages, in the recording's run order: the era its client's last answered
    request spoke (a 2026-07-28 probe that was refused before a 2025 handshake does not count), else its last
    request's, else none."""
    by_run = {s.run_id: s for s in sessions(rec)}
    out = []
    for run in rec.runs:
        session = by_run.get(run.id)
        if session is None or not session.client:
            continue
        answered = [r for r in session.client if r.answer is not None and r.answer.kind == "response"]
        chosen = (answered or session.client)[-1]
        era = chosen.era if chosen.era_from != UNKNOWN else None
        out.append(RunEra(run=run.id, name=run.name, era=era, era_from=chosen.era_from))
    return tuple(out)


def eras_by_run(rec: Recording) -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """What the era gate (oracle/era_gate.py) reads, by run id: the era each run's session settled on (`run_eras`),
    and every era any message of the run spoke (a refused 2026-07-28 probe before a 2025 handshake included).
    A run nothing in which says its era is absent from both."""
    settled = {entry.run: frozenset({entry.era}) for entry in run_eras(rec) if entry.era is not None}
    spoken: dict[str, set[str]] = {}
    for session in sessions(rec):
        if session.run_id is None:
            continue
        eras = {sent.era for sent in session.sent if sent.era is not None and sent.era_from != UNKNOWN}
        if eras:
            spoken.setdefault(session.run_id, set()).update(eras)
    return settled, {run: frozenset(eras) for run, eras in spoken.items()}
