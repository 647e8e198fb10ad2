"""The command line as a whole: every command registered answers --help, and a broken scenario stops them all."""

import pytest
import typer.main
from typer.testing import CliRunner

from backchannel.proxy import cli
from backchannel.proxy.check import scenario_flags

COMMANDS = (
    "serve record check replay matrix export bug-report explore bridge judge merge-reports"  # fmt: skip
    " checks scenarios show upgrade"
)


def test_every_command_is_registered_in_order_and_answers_help():
    group = typer.main.get_command(cli.app)
    assert list(group.commands) == COMMANDS.split()  # type: ignore[attr-defined]
    for name in COMMANDS.split():
        assert CliRunner().invoke(cli.app, [name, "--help"]).exit_code == 0, name


def test_a_scenario_package_that_cannot_be_listed_makes_every_command_exit_2_saying_why(monkeypatch, capsys):
    monkeypatch.setattr(scenario_flags, "BROKEN_SCENARIOS", ["scenario x declares --a twice"])
    monkeypatch.setattr(cli, "BROKEN_SCENARIOS", scenario_flags.BROKEN_SCENARIOS)
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code == 2
    assert capsys.readouterr().err == "backchannel: scenario x declares --a twice\n"
