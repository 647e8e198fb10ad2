"""Comparing the suite's verdicts with backchannel's, one check id at a time (pure: no processes, no files).

The two vocabularies meet on five classes: pass (suite SUCCESS; backchannel PASS, or a probe REFUTED), fail (FAILURE;
FAIL, or CONFIRMED), warn (WARNING; WARN), skip (SKIPPED; SKIP) and error (backchannel's ERROR: the harness could
not see). A backchannel result that carries an observation is its own class, `pass+observation`: it passed, and it
says something the suite's SUCCESS does not (the known case: a rejection of an absent resultType). A check id is
shared when both report it, or when the committed ALIASES name backchannel's id for the same spec sentence (then
each of backchannel's ids that reported is compared, in a row of its own).
Two verdicts of one class agree; otherwise they differ, except when one side skipped (it never exercised the
rule): that row is "not compared", with the skip's reason shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from backchannel.proxy.conformance.check_run import OurCheck
from backchannel.proxy.conformance.suite import SuiteCheck

SUITE_CLASS = {"SUCCESS": "pass", "FAILURE": "fail", "WARNING": "warn", "SKIPPED": "skip"}
OUR_CLASS = {"PASS": "pass", "FAIL": "fail", "WARN": "warn", "SKIP": "skip", "ERROR": "error"}
PROBE_CLASS = {"CONFIRMED": "fail", "REFUTED": "pass"}
OBSERVED = "pass+observation"
# which of several backchannel scenarios' results for one id speaks for it: the most decisive
DECISIVE = {"fail": 5, "error": 4, "warn": 3, OBSERVED: 2, "pass": 1, "skip": 0}

AGREE, DIFFER, NOT_COMPARED = "agree", "differ", "not compared"

# the suite's id -> backchannel's id, where backchannel tests the same sentence under another name
ALIASES: dict[str, str] = {
    "sep-2322-default-result-type-complete": "mrtr-provenance-result-type-default",
    "sep-2322-client-request-state-echoed": "session-client-request-state-echoed",
    "sep-2243-client-includes-standard-headers": "sep-2575-http-routing-headers-match-body",
    "wire-schema-valid": "session-client-wire-schema-valid",
}


def our_class(check: OurCheck) -> str:
    """The class of one backchannel result (a probe by its verdict; an observation makes its own class)."""
    base = PROBE_CLASS.get(check.verdict or "") or OUR_CLASS.get(check.status, "error")
    return OBSERVED if base == "pass" and check.observations else base


def our_display(check: OurCheck) -> str:
    """How the table shows a backchannel result: the verdict word, then its skip reason or its observations."""
    word = check.verdict if check.verdict in PROBE_CLASS else check.status
    if check.observations:
        return f"{word}, observation " + ", ".join(f"`{o}`" for o in check.observations)
    if check.status == "SKIP" and check.reason:
        return f"{word} `{check.reason}`"
    return word


def decisive(results: Iterable[OurCheck]) -> OurCheck | None:
    """Of one id's results across backchannel's scenarios, the one that decides (ties: the first scenario's)."""
    chosen: OurCheck | None = None
    for result in results:
        if chosen is None or DECISIVE[our_class(result)] > DECISIVE[our_class(chosen)]:
            chosen = result
    return chosen


@dataclass(frozen=True)
class Row:
    """One shared check id for one driver: both verdicts and whether they agree."""

    suite_id: str
    our_id: str
    suite: SuiteCheck
    ours: OurCheck
    outcome: str

    @property
    def pair(self) -> tuple[str, str]:
        """(the suite's status, backchannel's class): what a committed reason must name to explain a difference."""
        return self.suite.status, our_class(self.ours)


def outcome(suite: SuiteCheck, ours: OurCheck) -> str:
    theirs, mine = SUITE_CLASS[suite.status], our_class(ours)
    if theirs == mine:
        return AGREE
    if "skip" in (theirs, mine):
        return NOT_COMPARED
    return DIFFER


def compare(
    suite: Mapping[str, SuiteCheck], ours: Mapping[str, Iterable[OurCheck]], aliases: Mapping[str, str] = ALIASES
) -> list[Row]:
    """The rows of every shared id, in the suite's id order (sorted): the same id, then its alias, each that
    backchannel reported (both, when backchannel judges the sentence twice: each judgment is compared)."""
    rows: list[Row] = []
    for suite_id in sorted(suite):
        for our_id in dict.fromkeys((suite_id, aliases.get(suite_id, suite_id))):
            chosen = decisive(ours.get(our_id, ()))
            if chosen is not None:
                rows.append(Row(suite_id, our_id, suite[suite_id], chosen, outcome(suite[suite_id], chosen)))
    return rows
