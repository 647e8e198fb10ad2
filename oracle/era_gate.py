"""The era gate: a check applied to a run of an era it does not apply to reports SKIP `not-in-era`, never a verdict.

Each check declares its eras (`@check(..., eras=...)`, oracle/registry.py). A scenario check judges what a client did
in the session it settled on, so a run's era for it is the one that session spoke (`run_eras`: a refused 2026-07-28
probe before a 2025 handshake does not count). A session rule judges each message in that message's own era, so for
it a run spoke every era any of its messages spoke. A finding about one run is gated by that run's eras, a finding
about no run by the eras of every run; a run nothing in which says its era is not gated (the check decides, as
before), and an ERROR always stands (a harness that could not see is never a quiet SKIP)."""

from __future__ import annotations

from collections.abc import Mapping

from .model import Check, Evidence, Finding

NOT_IN_ERA = "not-in-era"


def in_era(check: Check, finding: Finding, eras_of: Mapping[str, frozenset[str]]) -> Finding:
    """`finding` as it stands, or SKIP `not-in-era` naming the era(s) spoken when none is one `check` applies to."""
    if finding.status == "ERROR":
        return finding
    # the common case first, without building the lists the SKIP's message needs: an era spoken that the check
    # applies to, or none spoken at all (every finding of every check passes here)
    if finding.run is not None:
        said = eras_of.get(finding.run)
        if not said or not said.isdisjoint(check.eras):
            return finding
    elif all(not said for said in eras_of.values()) or any(not s.isdisjoint(check.eras) for s in eras_of.values()):
        return finding
    runs = [finding.run] if finding.run is not None else sorted(eras_of)
    spoken = sorted({era for run in runs for era in eras_of.get(run, frozenset())})
    if not spoken or set(spoken) & set(check.eras):
        return finding
    where = f"run {finding.run} spoke" if finding.run is not None else "the recording's runs spoke"
    message = (
        f"{check.id} applies to {_listed(check.eras)} only, and {where} {_listed(spoken)}: not judged (a party "
        "is held only to the rules of the era it spoke)"
    )
    evidence = [
        Evidence(kind="run", run=run, note=f"spoke {_listed(sorted(eras_of[run]))}") for run in runs if run in eras_of
    ]
    return Finding.skipped(NOT_IN_ERA, message, *evidence, run=finding.run)


def _listed(eras: tuple[str, ...] | list[str]) -> str:
    return " and ".join(eras) if len(eras) < 3 else ", ".join(eras[:-1]) + f" and {eras[-1]}"
