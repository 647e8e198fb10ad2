"""A 2025 client that declared roots.listChanged announces a changed roots list (notifications/roots/list_changed)."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.oracle.session.facts import cite, sessions
from backchannel.recordings.model import Recording

from ..facts import LIST_CHANGED, SCENARIO, SPEC_2025, RootsAnswer, answers, handshake_roots, uri_of


@check(
    "roots-list-changed-notified",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC_2025}#root-list-changes",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
    title="A changed roots list is announced with notifications/roots/list_changed (2025 eras only)",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """2025-06-18 and 2025-11-25: "When roots change, clients that support listChanged MUST send a notification"
    (`notifications/roots/list_changed`). 2026-07-28 has neither `listChanged` nor the notification: its answers
    are not judged. Judged per 2025 session whose client declared `roots.listChanged: true`: each pair of successive
    roots lists it gave, in the order it answered (its answers to server-initiated roots/list, on a call's stream or
    its GET stream), that differ must have a list_changed notification from the client after the first answer that
    gave the earlier list and before the answer that gives the new one (so a stale answer racing the notification is
    no finding); none: FAIL citing both. Every change announced: PASS. No 2025 answer, listChanged not declared, or
    the list never changed: SKIP."""
    found = [a for a in answers(rec) if not a.modern and a.roots is not None]
    if not found:
        modern = any(a.modern for a in answers(rec))
        why = "2026-07-28 has no notifications/roots/list_changed" if modern else "no 2025-era roots list given"
        yield Finding.skipped("not-exercised", why)
        return
    groups: dict[tuple[str, str | None], list[RootsAnswer]] = {}
    for answer in found:
        groups.setdefault((answer.run.id, answer.session), []).append(answer)
    declared = [g for g in groups.values() if _list_changed(handshake_roots(rec, g[0].run, g[0].session))]
    if not declared:
        yield Finding.skipped("capability-not-declared", "the client did not declare roots.listChanged: true")
        return
    changes = broken = 0
    evidence = []
    problems = []
    for group in declared:
        notes = _notifications(rec, group[0].run.id)
        # (the client's answer, the list it gave) in the order it answered; a change is judged from the first answer
        # that gave the earlier list, so a stale answer sent just after the notification (a race of concurrent
        # requests) makes no false finding
        given = sorted(((a.answer, _uris(a)) for a in group if a.answer is not None), key=lambda g: g[0].seq)
        since = given[0][0] if given else None
        for (before, old), (after, new) in zip(given, given[1:], strict=False):
            if since is None or old == new:
                continue
            changes += 1
            between = [seq for seq in notes if since.seq < seq < after.seq]
            since = after
            if between:
                evidence.append(cite(next(m for m in rec.messages_in(group[0].run.id) if m.seq == between[0]),
                                     "the list_changed notification between two differing roots lists"))  # fmt: skip
                continue
            broken += 1
            problems.append(f"{sorted(old)} then {sorted(new)} with no {LIST_CHANGED} between")
            evidence.extend((cite(before, "a roots list"), cite(after, "a later, different roots list")))
    run = declared[0][0].run.id if len(declared) == 1 else None
    if changes == 0:
        yield Finding.skipped("not-exercised", "the roots list never changed within a session", run=run)
    elif broken:
        yield Finding.failed(f"{broken} of {changes} roots change(s) unannounced: " + "; ".join(problems[:2]),
                             *evidence[:10], run=run)  # fmt: skip
    else:
        yield Finding.passed(f"{changes} roots change(s), each announced with {LIST_CHANGED}", *evidence[:3], run=run)


def _list_changed(declared: object) -> bool:
    return isinstance(declared, dict) and declared.get("listChanged") is True


def _uris(answer: RootsAnswer) -> frozenset[str]:
    return frozenset(str(uri_of(root)) for root in answer.roots or [])


def _notifications(rec: Recording, run_id: str) -> list[int]:
    """The seqs of the list_changed notifications the run's client sent."""
    found = []
    for session in sessions(rec):
        if session.run_id == run_id:
            found += [s.message.seq for s in session.sent if s.sender == "client" and s.message.method == LIST_CHANGED]
    return found
