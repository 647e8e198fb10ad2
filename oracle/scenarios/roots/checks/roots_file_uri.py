"""Every root a client gives is a file:// URI."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, answers, is_file_uri, shown, uri_of


@check(
    "roots-file-uri",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}#root",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
    title="Every root the client gives has a file:// uri (2026-07-28 and the 2025 eras)",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """A Root's `uri` "MUST be a `file://` URI in the current specification" (2026-07-28, as in 2025-06-18 and
    2025-11-25). Judged in every era on every roots list the client gave (an MRTR retry's inputResponses entry, or
    its POSTed answer to a server-initiated roots/list): a root that is not an object with a file:// `uri` FAILs,
    with the offending entries and the answer as evidence. No roots list given: SKIP."""
    given = [a for a in answers(rec) if a.roots is not None]
    if not given:
        yield Finding.skipped("not-exercised", "the client gave no roots list (none asked, or it answered none)")
        return
    broken = [(a, [r for r in a.roots or [] if not is_file_uri(uri_of(r))]) for a in given]
    broken = [(a, bad) for a, bad in broken if bad]
    run = given[0].run.id if len({a.run.id for a in given}) == 1 else None
    if broken:
        why = "; ".join(f"{shown(bad)} (roots/list via {a.via})" for a, bad in broken[:3])
        evidence = [e for a, _ in broken[:5] for e in a.evidence("the answer with a root that is not file://")]
        yield Finding.failed(f"{len(broken)} of {len(given)} roots list(s) hold a non-file:// root: {why}", *evidence,
                             run=run)  # fmt: skip
        return
    count = sum(len(a.roots or []) for a in given)
    evidence = [e for a in given[:3] for e in a.evidence("a roots list, every uri file://")]
    yield Finding.passed(f"{len(given)} roots list(s), {count} root(s), each a file:// URI", *evidence, run=run)
