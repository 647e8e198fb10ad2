"""The conformance references against every check of the scenario: the careful toy passes all, the flawed build
fails (or warns) every check but the two its companion build shows."""

from backchannel.oracle import all_checks
from tests.oracle.reference import results

CHECKS = {c.id for c in all_checks().values() if c.scenario == "conformance"}


def test_the_careful_client_passes_every_check():
    assert {i: r.status for i, r in results("conformance-toy").items()} == dict.fromkeys(CHECKS, "PASS")


def test_every_check_fails_or_warns_on_one_flawed_reference():
    broken = {
        i
        for name in ("conformance-toy-flawed", "conformance-toy-no-param-headers")
        for i, r in results(name).items()
        if r.status in ("FAIL", "WARN")
    }
    assert broken == CHECKS
