"""A client exposes only the folders its user configured: not the whole HOME, not `/`, nothing outside them."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from backchannel.oracle.by_hand import is_by_hand, skipped_by_hand
from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, RootsAnswer, answers, configured, is_file_uri, path_of, shown, uri_of, within


@check(
    "roots-within-configured",
    scenario=SCENARIO,
    level="SHOULD",
    spec=f"{SPEC}#security-considerations",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
    title="The roots are folders the lab configured, not the whole HOME or / (heuristic: WARN, never FAIL)",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients "MUST only expose roots with appropriate permissions" and "SHOULD prompt users for consent before
    exposing roots" (2026-07-28; the 2025 eras alike). The lab knows which folders it gave the client: its working
    folder (the run's `lab_folders` fact, as given and as resolved). Judged in every era on each file:// root of
    every roots list the client gave: the filesystem root `/`, the lab's whole HOME, or a folder outside the
    configured ones WARNs with the list as evidence, for a person to judge (the client may have asked its user, or
    its user may have configured more than the lab knows: never a FAIL). All inside: PASS. No file:// root given:
    SKIP; a run that recorded no configured folders: SKIP (nothing to compare with); a host a person drove: SKIP
    `by-hand` (its folders are the person's, not the lab's)."""
    found = [a for a in answers(rec) if a.roots]
    if found and all(is_by_hand(a.run) for a in found):  # the person's own folders: the lab never configured them
        yield skipped_by_hand(found[0].run)
        return
    problems: list[tuple[str, RootsAnswer]] = []
    judged = 0
    for answer in found:
        folders, home = configured(answer.run)
        if not folders:
            continue
        for root in answer.roots or []:
            uri = uri_of(root)
            if not is_file_uri(uri):
                continue  # roots-file-uri judges it
            judged += 1
            path = path_of(uri)
            if path == "/":
                problems.append((f"{uri} exposes the whole filesystem", answer))
            elif home is not None and path == posixpath.normpath(home):
                problems.append((f"{uri} exposes the whole HOME", answer))
            elif not within(path, folders):
                problems.append((f"{uri} is outside the lab's folders", answer))
    if judged == 0:
        yield Finding.skipped("not-exercised", "no file:// root given in a run whose configured folders are known")
        return
    runs = {a.run.id for a in found}
    run = next(iter(runs)) if len(runs) == 1 else None
    folders = sorted({f for a in found for f in configured(a.run)[0]})
    if problems:
        why = "; ".join(text for text, _ in problems[:3])
        cited = {id(a): a for _, a in problems}.values()
        evidence = [e for a in list(cited)[:5] for e in a.evidence(f"roots given: {shown(a.roots or [])}")]
        yield Finding.warned(
            f"{len(problems)} of {judged} root(s) beyond what the lab configured ({shown(folders, 2)}): {why}"
            " (a person should look: the client may have asked its user)",
            *evidence,
            run=run,
        )
        return
    evidence = [e for a in found[:3] for e in a.evidence("roots inside the lab's folders")]
    yield Finding.passed(f"{judged} root(s), each inside the lab's folders {shown(folders, 2)}", *evidence, run=run)
