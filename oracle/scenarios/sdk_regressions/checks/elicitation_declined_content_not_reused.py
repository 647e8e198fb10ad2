"""After a decline, a later accept in the same session carries nothing of the declined request (a Rust SDK shipped
the reverse: the declined form's content came back in the next accepted one)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import ELICITATION, SCENARIO, Asked, elicitations, marked


def _leaks(declined: Asked, accepted: Asked, nonce: str) -> tuple[list[str], list[str]]:
    """(what the accepted content carries that belongs only to the declined request, what only resembles it)."""
    content = accepted.content if isinstance(accepted.content, dict) else {}
    sure: list[str] = []
    unsure: list[str] = []
    foreign = declined.schema_keys - accepted.schema_keys
    for key in sorted(set(content) & foreign):
        sure.append(f"key {json.dumps(key)} of the declined request's schema (not in the accepted one's)")
    declined_only = marked(declined.params, nonce) - marked(accepted.params, nonce)
    for value in sorted(marked(content, nonce)):
        if value in declined_only:
            sure.append(f"value {json.dumps(value)[:80]} minted for the declined request")
        elif any(d in value or value in d for d in declined_only):
            unsure.append(f"value {json.dumps(value)[:80]} overlaps a value minted for the declined request")
    return sure, unsure


@check(
    "elicitation-declined-content-not-reused",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{ELICITATION}#response-actions",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
    title="An accepted elicitation carries nothing of an earlier declined one (its schema's keys, its minted values)",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Accept (`action: "accept"`): User explicitly approved and submitted with data - For form mode: The `content`
    field contains the submitted data matching the requested schema"; "Decline (`action: "decline"`): User
    explicitly declined the request" (2026-07-28, Response Actions; the 2025 eras alike). What a user declined is
    not theirs to send: an accept carries the data submitted for its own request. A Rust SDK shipped the reverse
    (the declined form's content reused in the next accept).

    Staged by `decline_then_accept`: a form whose message starts `DECLINE:` (the contract's user declines it), then
    a form with another requestedSchema (accepted); every value either offers is minted for it with the recording's
    nonce. Judged by structure on every (declined, later accepted) pair in one run, any tool: a key of the declined
    request's schema that the accepted one's lacks, or a nonce-marked value that only the declined request carried,
    in the accepted content is FAIL. A value that only overlaps such a value (contains it, or is part of it) is WARN
    with evidence. Nothing of it: PASS. No decline followed by an accept in one run: SKIP `not-exercised`."""
    nonce = rec.info.nonce or ""
    asked = elicitations(rec)
    pairs = [
        (d, a)
        for i, d in enumerate(asked)
        if d.action == "decline"
        for a in asked[i + 1 :]
        if a.run_id == d.run_id and a.action == "accept" and a.answer is not None and a.mode == "form"
    ]
    if not pairs:
        yield Finding.skipped(
            "not-exercised", "no elicitation was declined and a later one accepted in the same run (nothing to compare)"
        )
        return
    sure: list[tuple[str, Asked, Asked]] = []
    unsure: list[tuple[str, Asked, Asked]] = []
    for declined, accepted in pairs:
        found, maybe = _leaks(declined, accepted, nonce)
        sure += [(why, declined, accepted) for why in found]
        unsure += [(why, declined, accepted) for why in maybe]
    runs = {d.run_id for d, _ in pairs}
    run = next(iter(runs)) if len(runs) == 1 else None
    problems = sure or unsure
    if problems:
        _, declined, accepted = problems[0]
        evidence = (*declined.evidence("declined"), *accepted.evidence("the later accept, carrying it"))
        why = "; ".join(text for text, _, _ in problems[:4])
        more = f" (and {len(problems) - 4} more)" if len(problems) > 4 else ""
        if sure:
            yield Finding.failed(f"an accepted elicitation carries the declined request's content: {why}{more}",
                                 *evidence, run=run)  # fmt: skip
        else:
            yield Finding.warned(f"an accepted elicitation may carry the declined request's content: {why}{more}"
                                 " (a person should look)", *evidence, run=run)  # fmt: skip
        return
    declined, accepted = pairs[0]
    evidence = (*declined.evidence("declined"), *accepted.evidence("the later accept: its own content only"))
    yield Finding.passed(
        f"{len(pairs)} (decline, later accept) pair(s), each accept carrying nothing of the declined request (no key"
        " of its schema, no value minted for it)",
        *evidence,
        run=run,
    )
