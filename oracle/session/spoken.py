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
