"""`check`'s own rules, before anything runs: which flags go with which side of a scenario."""

from pathlib import Path

import pytest

from backchannel.proxy.check.command import check_sides
from backchannel.proxy.scenarios.base import CheckError
from backchannel.proxy.scenarios.registry import get_scenario


def test_a_server_scenario_takes_no_client_and_no_replay():
    server = get_scenario("elicitation-sep1036-url-mode")
    with pytest.raises(CheckError, match="tests a server"):
        check_sides(server, server=None, client="x {url}", target=None, replay=None)
    with pytest.raises(CheckError, match="--replay re-runs a client scenario"):
        check_sides(server, server=None, client=None, target=None, replay=Path("r.sqlite"))
    with pytest.raises(CheckError, match="--server 'ftp://x'"):
        check_sides(server, server="ftp://x", client=None, target=None, replay=None)


def test_a_client_scenario_names_the_server_scenarios_when_given_a_server():
    with pytest.raises(CheckError, match="server scenario: elicitation-sep1036-url-mode"):
        check_sides(
            get_scenario("mrtr-provenance"), server="http://127.0.0.1:1/mcp", client=None, target=None, replay=None
        )
