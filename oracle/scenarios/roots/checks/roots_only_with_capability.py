"""A client that did not declare `roots` gives no roots list, even when a server asks."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, UNDECLARED_RUN, answers, declared_roots, roots_runs, shown


@check(
    "roots-only-with-capability",
    scenario=SCENARIO,
    level="MUST",
    spec="https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#capability-negotiation",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
    title="A client that declared no roots capability answers no roots/list with roots (2026-07-28 and 2025)",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Both parties MUST only use capabilities that were successfully negotiated" (2025 eras); in 2026-07-28
    "Clients that support roots MUST declare the roots capability" on each request. Judged on the dedicated run
    (`undeclared`), where backchannel's endpoint asks for roots even a client that did not declare them (the only
    run where it does: the session rules do not judge backchannel's side). A client that declared no roots there and
    answered with a roots list FAILs, citing the answer; an error, no answer, or no retry is PASS. A client that
    declared roots in that run: SKIP (asking it was in its rights); no such run, or nothing asked in it: SKIP."""
    runs = [run for run in roots_runs(rec) if run.name == UNDECLARED_RUN]
    if not runs:
        yield Finding.skipped("not-exercised", f"the recording has no {UNDECLARED_RUN!r} run of the roots scenario")
        return
    undeclared = [run for run in runs if declared_roots(rec, run) is None]
    if not undeclared:
        yield Finding.skipped(
            "capability-declared", "the client declared roots: a roots/list was in its rights", run=runs[0].id
        )
        return
    ids = {run.id for run in undeclared}
    asked = [a for a in answers(rec) if a.run.id in ids]
    run = undeclared[0].id
    if not asked:
        yield Finding.skipped("not-exercised", "the client declared no roots and was never asked (no call)", run=run)
        return
    given = [a for a in asked if a.roots is not None]
    if given:
        why = "; ".join(f"{shown(a.roots or [])} (roots/list via {a.via})" for a in given[:3])
        evidence = [e for a in given[:5] for e in a.evidence("a roots list, from a client that declared no roots")]
        yield Finding.failed(f"declared no roots capability, yet answered roots/list with {why}", *evidence, run=run)
        return
    evidence = [e for a in asked[:3] for e in a.evidence("no roots list in the answer")]
    yield Finding.passed(
        f"declared no roots capability; {len(asked)} roots/list asked, none answered with roots", *evidence, run=run
    )
