"""`scenarios` lists and describes the scenarios; `serve` refuses a scenario that does not exist (in process)."""

from typer.testing import CliRunner

from backchannel.proxy import cli
from backchannel.proxy.scenarios.registry import all_scenarios


def invoke(*args: str):
    return CliRunner().invoke(cli.build_app(args[0]), list(args), prog_name="backchannel")


def test_scenarios_lists_every_scenario_with_its_side_one_a_line():
    done = invoke("scenarios")
    assert done.exit_code == 0
    names = [line.split("  ")[0] for line in done.output.splitlines()]
    assert names == list(all_scenarios())
    assert all("[client]" in line or "[server]" in line for line in done.output.splitlines())


def test_one_scenario_is_shown_with_its_tools_checks_and_options():
    done = invoke("scenarios", "elicitation-url-mode")
    assert done.exit_code == 0
    assert done.output.startswith("elicitation-url-mode: ")
    assert "\nchecks: " in done.output and "sep-1036-client-held-sse-retry-complete" in done.output
    assert "option --hold-ms (default 5000)" in done.output


def test_an_unknown_scenario_is_one_line_and_exit_2_for_both_commands():
    for args in (("scenarios", "no-such"), ("serve", "--scenario", "no-such")):
        done = invoke(*args)
        assert done.exit_code == 2, args
        assert "no-such" in done.output and "Traceback" not in done.output
