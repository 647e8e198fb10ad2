"""Why the suite and backchannel differ on a shared check id: hand-written, each reason quoting the spec it rests on.

Keyed by the suite's check id. A reason explains one row: backchannel's id it is compared with, and exactly one pair
of verdicts (the suite's status, backchannel's class as `verdicts.our_class` names it); when a run produces another
pair, the difference is unexplained again and the parity test says so. Each quote is the 2026-07-28 text verbatim
(the test finds it in /work/shared/spec/2026-07-28/docs/<source>, whitespace folded), so a reason cannot drift from
its sentence.
"""

from __future__ import annotations

from dataclasses import dataclass

from backchannel.proxy.conformance.verdicts import OBSERVED


@dataclass(frozen=True)
class Reason:
    """The row and verdict pair it explains, why the two tools part there, and the spec sentences that decide it."""

    our_id: str
    suite: str
    ours: str
    why: str
    quotes: tuple[str, ...]
    source: str  # the spec page's file under the 2026-07-28 docs
    anchor: str  # the same page's public address


REASONS: dict[str, Reason] = {
    "sep-2322-default-result-type-complete": Reason(
        our_id="mrtr-provenance-result-type-default",
        suite="SUCCESS",
        ours=OBSERVED,
        why=(
            "The suite's mock announces 2026-07-28 and answers `test_mrtr_no_result_type` without `resultType`; its "
            "check passes every client that does not retry that call with `inputResponses`, so an SDK that rejects "
            "the result as invalid (both do: at this revision the key is required) reads as SUCCESS. backchannel's "
            "resultType arm runs the same omission beside a control run: content surfaced is REFUTED, and a "
            "rejection on a 2026-07-28 connection is the observation `rejects-missing-result-type-on-modern-"
            "connection`, because the MUST's exact case is a server of an earlier revision, and a server of this "
            "revision that omits the key breaks its own MUST. The SUCCESS hides that the client never treated the "
            "result as complete."
        ),
        quotes=(
            "The `result` **MUST** include a `resultType` field to indicate the type of the result.",
            "For backward compatibility with servers implementing earlier protocol versions, which do not include "
            '`resultType`, clients **MUST** treat an absent `resultType` as `"complete"`.',
        ),
        source="basic_index.mdx",
        anchor="https://modelcontextprotocol.io/specification/2026-07-28/basic#resulttype",
    ),
}
