"""Runs a person drove (`check --by-hand`): what the lab cannot see in them, said once for every scenario.

The by-hand lab records the wire of a host it did not start: no terminal, no screen, no files, no browser shim. A
check that judges what the client showed, wrote or opened has nothing to read in such a run, and an empty terminal
must not read as "the client showed nothing" (a false FAIL or WARN) or an empty shim as "nothing was opened" (a
false PASS). Such a check SKIPs those runs with the reason `by-hand`; the by-hand checks ask the person instead, and
the wire's own checks judge the same runs as always.
"""

from __future__ import annotations

from backchannel.recordings.model import Recording, Run

from .model import Finding

BY_HAND_FACT = "by_hand"  # the run fact the by-hand lab (proxy/byhand/lab.py) sets on every run it makes
REASON = "by-hand"


def is_by_hand(run: Run) -> bool:
    return run.detail.facts.get(BY_HAND_FACT) is True


def by_hand_runs(rec: Recording, names: tuple[str, ...] | None = None) -> list[Run]:
    """The runs the by-hand lab made (of these names, when given), in recording order."""
    return [r for r in rec.runs if is_by_hand(r) and (names is None or r.name in names)]


def unseen_by_lab(rec: Recording, run: Run | None = None) -> Finding | None:
    """SKIP `by-hand` when the run (or, none given, the recording) was driven by hand; None when the lab saw it."""
    driven = is_by_hand(run) if run is not None else bool(by_hand_runs(rec))
    if not driven:
        return None
    return Finding.skipped(
        REASON,
        "a host driven by hand: its screen, terminal, files and browser are not recorded, so this check has nothing"
        " to read; the by-hand-* checks hold the person's answers",
        run=None if run is None else run.id,
    )
