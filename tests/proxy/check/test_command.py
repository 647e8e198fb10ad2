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


def test_an_unknown_era_is_a_usage_error_that_lists_the_eras(tmp_path):
    from typer.testing import CliRunner

    from backchannel.proxy import cli

    out = tmp_path / "r.sqlite"
    result = CliRunner().invoke(cli.app, ["check", "--era", "2024-11-05", "--out", str(out)], prog_name="backchannel")
    assert result.exit_code == 2
    assert "unknown --era '2024-11-05'" in result.output and "2025-06-18" in result.output
    assert not out.exists()


def test_an_era_is_refused_for_a_server_scenario_whose_server_is_not_backchannels(tmp_path):
    from typer.testing import CliRunner

    from backchannel.proxy import cli

    argv = ["check", "--server", "http://127.0.0.1:1/mcp", "--era", "2025-11-25", "--out", str(tmp_path / "r.sqlite")]
    result = CliRunner().invoke(cli.app, argv, prog_name="backchannel")
    assert result.exit_code == 2
    assert "--era sets the era of backchannel's own endpoint" in result.output
