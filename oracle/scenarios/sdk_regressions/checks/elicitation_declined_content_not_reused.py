"""After a decline, a later accept in the same session carries nothing of the declined request (a Rust SDK shipped
the reverse: the declined form's content came back in the next accepted one)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import ELICITATION, SCENARIO, Asked, elicitations, marked

OVERLAP_BUDGET = 200_000  # substring comparisons for the WARN-only overlap test, per recording: never quadratic


@dataclass
class _Declines:
    """What the declined requests of one run so far offered (their schemas' keys, their minted values), each with
    the first decline (its index in recording order) that offered it: one accept is compared with all of them at
    once, never pair by pair (a recording from elsewhere may hold any number of declines and accepts)."""

    nonce: str
    keys: dict[str, tuple[int, Asked]] = field(default_factory=dict)
    values: dict[str, tuple[int, Asked]] = field(default_factory=dict)
    first: tuple[int, Asked] | None = None
    count: int = 0

    def add(self, index: int, declined: Asked) -> None:
        self.count += 1
        self.first = self.first or (index, declined)
        for key in declined.schema_keys:
            self.keys.setdefault(key, (index, declined))
        for value in marked(declined.params, self.nonce):
            self.values.setdefault(value, (index, declined))

    def leaks(self, accepted: Asked, budget: list[int]) -> tuple[list[_Leak], list[_Leak]]:
        """(what the accepted content carries that belongs only to a declined request, what only resembles it),
        each with the decline it came from; `budget` bounds the overlap test's comparisons."""
        content = accepted.content if isinstance(accepted.content, dict) else {}
        sure: list[_Leak] = []
        unsure: list[_Leak] = []
        for key in sorted(set(content) - accepted.schema_keys):
            if key in self.keys:
                why = f"key {json.dumps(key)} of the declined request's schema (not in the accepted one's)"
                sure.append((*self.keys[key], why))
        own = marked(accepted.params, self.nonce)
        for value in sorted(marked(content, self.nonce)):
            if value in self.values and value not in own:
                sure.append((*self.values[value], f"value {json.dumps(value)[:80]} minted for the declined request"))
                continue
            for minted, (index, declined) in self.values.items():
                if budget[0] <= 0:
                    break
                budget[0] -= 1
                if minted not in own and (minted in value or value in minted):
                    why = f"value {json.dumps(value)[:80]} overlaps a value minted for the declined request"
                    unsure.append((index, declined, why))
                    break
        return sure, unsure


_Leak = tuple[int, Asked, str]


def _leaks(declined: Asked, accepted: Asked, nonce: str) -> tuple[list[str], list[str]]:
    """(what the accepted content carries that belongs only to the declined request, what only resembles it)."""
    one = _Declines(nonce)
    one.add(0, declined)
    sure, unsure = one.leaks(accepted, [OVERLAP_BUDGET])
    return [why for _i, _d, why in sure], [why for _i, _d, why in unsure]


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
    in the accepted content is FAIL (each named once, with the first decline of the run that offered it). A value
    that only overlaps such a value (contains it, or is part of it) is WARN with evidence. Nothing of it: PASS. No
    decline followed by an accept in one run: SKIP `not-exercised`."""
    nonce = rec.info.nonce or ""
    declines: dict[str | None, _Declines] = {}
    budget = [OVERLAP_BUDGET]
    pairs = 0
    runs: set[str | None] = set()  # the runs with a (decline, later accept) pair
    first: tuple[int, int, Asked, Asked] | None = None  # the first (decline, later accept) pair, in recording order
    sure: list[tuple[int, int, str, Asked, Asked]] = []
    unsure: list[tuple[int, int, str, Asked, Asked]] = []
    for index, asked in enumerate(elicitations(rec)):
        if asked.action == "decline":
            declines.setdefault(asked.run_id, _Declines(nonce)).add(index, asked)
            continue
        run_declines = declines.get(asked.run_id)
        if run_declines is None or asked.action != "accept" or asked.answer is None or asked.mode != "form":
            continue
        pairs += run_declines.count
        runs.add(asked.run_id)
        if run_declines.first is not None and (first is None or run_declines.first[0] < first[0]):
            first = (run_declines.first[0], index, run_declines.first[1], asked)
        found, maybe = run_declines.leaks(asked, budget)
        sure += [(d_index, index, why, declined, asked) for d_index, declined, why in found]
        unsure += [(d_index, index, why, declined, asked) for d_index, declined, why in maybe]
    if first is None:
        yield Finding.skipped(
            "not-exercised", "no elicitation was declined and a later one accepted in the same run (nothing to compare)"
        )
        return
    sure.sort(key=lambda leak: leak[:2])  # as the pairs run: by decline, then by accept (stable within one pair)
    unsure.sort(key=lambda leak: leak[:2])
    run = next(iter(runs)) if len(runs) == 1 else None
    problems = sure or unsure
    if problems:
        _, _, _, declined, accepted = problems[0]
        evidence = (*declined.evidence("declined"), *accepted.evidence("the later accept, carrying it"))
        why = "; ".join(text for _, _, text, _, _ in problems[:4])
        more = f" (and {len(problems) - 4} more)" if len(problems) > 4 else ""
        if sure:
            yield Finding.failed(f"an accepted elicitation carries the declined request's content: {why}{more}",
                                 *evidence, run=run)  # fmt: skip
        else:
            yield Finding.warned(f"an accepted elicitation may carry the declined request's content: {why}{more}"
                                 " (a person should look)", *evidence, run=run)  # fmt: skip
        return
    _, _, declined, accepted = first
    evidence = (*declined.evidence("declined"), *accepted.evidence("the later accept: its own content only"))
    yield Finding.passed(
        f"{pairs} (decline, later accept) pair(s), each accept carrying nothing of the declined request (no key"
        " of its schema, no value minted for it)",
        *evidence,
        run=run,
    )
