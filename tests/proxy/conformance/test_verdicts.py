"""Comparing the suite's verdicts with backchannel's, one shared id at a time."""

from __future__ import annotations

import pytest

from backchannel.proxy.conformance.check_run import OurCheck
from backchannel.proxy.conformance.suite import SuiteCheck
from backchannel.proxy.conformance.verdicts import (
    AGREE,
    DIFFER,
    NOT_COMPARED,
    OBSERVED,
    compare,
    decisive,
    our_class,
    our_display,
)


def suite(check_id: str, status: str) -> SuiteCheck:
    return SuiteCheck(check_id, status, "s", "")


def ours(check_id: str, status: str, **more: object) -> OurCheck:
    return OurCheck(check_id, status, str(more.pop("scenario", "mrtr-provenance")), "", **more)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (ours("a", "PASS"), "pass"),
        (ours("a", "FAIL"), "fail"),
        (ours("a", "WARN"), "warn"),
        (ours("a", "SKIP", reason="not-exercised"), "skip"),
        (ours("a", "ERROR"), "error"),
        (ours("a", "FAIL", verdict="CONFIRMED"), "fail"),
        (ours("a", "PASS", verdict="REFUTED"), "pass"),
        (ours("a", "PASS", verdict="REFUTED", observations=("x",)), OBSERVED),
        (ours("a", "PASS", verdict="SKIP"), "pass"),
    ],
)
def test_a_backchannel_result_falls_in_one_class(result, expected):
    assert our_class(result) == expected


def test_the_table_shows_a_probe_by_its_verdict_a_skip_by_its_reason_and_every_observation():
    assert our_display(ours("a", "PASS", verdict="REFUTED", observations=("x", "y"))) == "REFUTED, observation `x`, `y`"
    assert our_display(ours("a", "SKIP", reason="not-exercised")) == "SKIP `not-exercised`"
    assert our_display(ours("a", "FAIL")) == "FAIL"


def test_of_several_scenarios_the_most_decisive_result_speaks_and_a_tie_keeps_the_first():
    skipped, passed, failed = ours("a", "SKIP", scenario="x"), ours("a", "PASS", scenario="y"), ours("a", "FAIL")
    assert decisive([skipped, passed, failed]) is failed
    assert decisive([skipped, passed]) is passed
    assert decisive([passed, ours("a", "PASS", scenario="z")]) is passed
    assert decisive([]) is None


def test_same_class_agrees_different_classes_differ_and_a_one_sided_skip_is_not_compared():
    rows = compare(
        {
            "same": suite("same", "SUCCESS"),
            "other": suite("other", "SUCCESS"),
            "skipped": suite("skipped", "SUCCESS"),
            "both-skipped": suite("both-skipped", "SKIPPED"),
            "warned": suite("warned", "WARNING"),
            "suite-only": suite("suite-only", "FAILURE"),
        },
        {
            "same": [ours("same", "PASS")],
            "other": [ours("other", "FAIL")],
            "skipped": [ours("skipped", "SKIP", reason="not-exercised")],
            "both-skipped": [ours("both-skipped", "SKIP")],
            "warned": [ours("warned", "WARN")],
        },
        aliases={},
    )
    assert [(r.suite_id, r.outcome) for r in rows] == [
        ("both-skipped", AGREE),
        ("other", DIFFER),
        ("same", AGREE),
        ("skipped", NOT_COMPARED),
        ("warned", AGREE),
    ]


def test_a_suite_id_is_compared_with_its_own_id_and_its_alias_each_in_a_row_of_its_own():
    theirs = {"suite-id": suite("suite-id", "SUCCESS"), "direct": suite("direct", "SUCCESS")}
    mine = {
        "our-id": [ours("our-id", "PASS", verdict="REFUTED", observations=("seen",))],
        "direct": [ours("direct", "PASS")],
        "alias-of-direct": [ours("alias-of-direct", "FAIL")],
    }
    rows = compare(theirs, mine, aliases={"suite-id": "our-id", "direct": "alias-of-direct", "absent": "our-id"})
    assert [(r.suite_id, r.our_id, r.outcome, r.pair) for r in rows] == [
        ("direct", "direct", AGREE, ("SUCCESS", "pass")),
        ("direct", "alias-of-direct", DIFFER, ("SUCCESS", "fail")),
        ("suite-id", "our-id", DIFFER, ("SUCCESS", OBSERVED)),
    ]
