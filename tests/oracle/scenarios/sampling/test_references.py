"""The toy agent's sampling client against the sampling scenario, committed (scripts/make-reference-recordings): the
careful build passes (or SKIPs, where its era cannot judge) every check in every era; each --sampling-flaw build
trips exactly its own check in the era that can see it; the SDK drivers as shipped declare no sampling, so every
check SKIPs."""

import pytest

from backchannel.oracle import all_checks
from backchannel.proxy.clients.toy_agent_sampling import SAMPLING_FLAWS
from tests.oracle.reference import results, session_results

# the by-hand checks judge a person's answers: a build a command ran has no person, so they SKIP not-by-hand on every
# one of these (their verdicts: checks/test_by_hand_*.py, on the sampling-by-hand-* references)
BY_HAND = {c.id for c in all_checks().values() if c.scenario == "sampling" and c.id.startswith("by-hand-")}
CHECKS = {c.id for c in all_checks().values() if c.scenario == "sampling"} - BY_HAND
STATUS = {
    "sampling-human-in-the-loop": "WARN",
    "sampling-names-requesting-server": "WARN",
    "sampling-tools-undeclared-error": "FAIL",
    "sampling-no-undeclared-context": "WARN",
    "sep-2322-client-constructs-inputs-all-kinds": "FAIL",
}
SEEN_IN = {"answer-undeclared-tools": "-2025-11-25", "split-round": ""}  # the era a flaw shows in (default: both)
# what each era cannot judge, on the careful build
ERA_SKIPS = {
    "": {"sampling-tools-undeclared-error": "no-error-slot"},
    "-2025-11-25": {"sep-2322-client-constructs-inputs-all-kinds": "legacy-era"},
    "-2025-06-18": {"sampling-tools-undeclared-error": "no-tools-sent",
                    "sep-2322-client-constructs-inputs-all-kinds": "legacy-era"},
}  # fmt: skip


def test_every_flaw_names_a_check_of_the_scenario():
    assert set(SAMPLING_FLAWS.values()) == CHECKS == set(STATUS)


@pytest.mark.parametrize("era", sorted(ERA_SKIPS))
def test_the_careful_build_passes_every_check_its_era_can_judge(era):
    found = results(f"sampling-toy-careful{era}")
    assert {(found.pop(c).status, c in BY_HAND) for c in list(found) if c.startswith("by-hand-")} == {("SKIP", True)}
    assert set(found) == CHECKS
    assert {c: r.reason for c, r in found.items() if r.status == "SKIP"} == ERA_SKIPS[era]
    assert {c for c, r in found.items() if r.status not in ("PASS", "SKIP")} == set()
    assert {
        r for r, f in session_results(f"sampling-toy-careful{era}").items() if f.status in ("FAIL", "WARN")
    } == set()


@pytest.mark.parametrize("flaw", sorted(SAMPLING_FLAWS))
@pytest.mark.parametrize("era", ["", "-2025-11-25"])
def test_each_flawed_build_trips_exactly_its_own_check_in_the_era_that_shows_it(flaw, era):
    found = results(f"sampling-toy-{flaw}{era}")
    tripped = {c: r.status for c, r in found.items() if r.status in ("FAIL", "WARN", "ERROR")}
    check = SAMPLING_FLAWS[flaw]
    shows = SEEN_IN.get(flaw, era) == era
    assert tripped == ({check: STATUS[check]} if shows else {})


@pytest.mark.parametrize("name", ["sampling-py-sdk", "sampling-ts-sdk"])
def test_a_driver_that_declares_no_sampling_gets_none_and_every_check_skips(name):
    found = results(name)
    assert {c: r.reason for c, r in found.items()} == {
        **dict.fromkeys(BY_HAND, "not-by-hand"),
        "sampling-human-in-the-loop": "sampling-not-declared",
        "sampling-names-requesting-server": "not-shown",
        "sampling-tools-undeclared-error": "sampling-not-declared",
        "sampling-no-undeclared-context": "sampling-not-declared",
        # the drivers declare elicitation only: one kind, no mixed round
        "sep-2322-client-constructs-inputs-all-kinds": "fewer-than-two-kinds",
    }
