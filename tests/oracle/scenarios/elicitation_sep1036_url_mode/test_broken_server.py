"""The broken server's switches against the committed references: each breaks exactly one check, the others pass;
without test_url_elicitation every check is an untestable FAIL; the bundled server and the real SDK servers pass."""

import json

import pytest

from backchannel.oracle import all_checks
from tests.oracle.reference import path, results, server
from tests.servers.url_elicitation_broken import SWITCHES

CHECKS = {check.id for check in all_checks().values() if check.scenario == "elicitation-sep1036-url-mode"}


def test_the_scenario_has_the_seven_checks_the_seed_names():
    assert CHECKS == {
        "sep-1036-url-request-params",
        "sep-1036-url-valid",
        "sep-2322-server-handles-decline-cancel",
        "sep-1036-server-no-unsupported-mode",
        "sep-2575-server-rejects-undeclared-capability",
        "sep-2575-missing-capability-http-400",
        "sep-1036-server-no-url-elicitation-required-error",
    }


@pytest.mark.parametrize("switch", sorted(s for s, broken in SWITCHES.items() if broken))
def test_each_switch_of_the_broken_server_fails_its_own_check_and_passes_the_others(switch):
    found = results(server(f"broken-{switch}"))
    assert set(found) == CHECKS
    failing = {check for check, result in found.items() if result.status != "PASS"}
    assert failing == {SWITCHES[switch]}, {c: found[c].message for c in failing}
    assert found[SWITCHES[switch]].status == "FAIL"


def test_every_switch_has_its_committed_reference_and_every_check_is_broken_by_one():
    assert {broken for broken in SWITCHES.values() if broken} == CHECKS
    for switch in SWITCHES:
        assert path(server(f"broken-{switch}")).is_file(), switch


@pytest.mark.parametrize("variant", ["bundled", "ts-sdk"])
def test_a_conformant_server_passes_all_seven(variant):
    found = results(server(variant))
    assert {check: r.status for check, r in found.items()} == dict.fromkeys(CHECKS, "PASS")


def test_a_server_without_the_tool_fails_every_check_as_untestable_even_the_trivial_ones():
    found = results(server("broken-no-tool"))
    assert set(found) == CHECKS
    for result in found.values():
        assert result.status == "FAIL"
        assert result.message.startswith("Not testable: the server does not offer test_url_elicitation")
        assert result.as_dict()["untestable"] is True
    assert (
        "untestable"
        in json.loads(path(server("broken-no-tool")).with_suffix(".expected.json").read_text())["results"][0]
    )


def test_a_judged_result_says_untestable_only_when_it_is():
    assert all("untestable" not in r.as_dict() for r in results(server("broken-url-valid")).values())
