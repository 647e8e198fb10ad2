"""How a command ends: one neutralised line on stderr and the exit code, or the report and its exit code."""

import typer

from backchannel.oracle.model import Report
from backchannel.proxy import cli_output


def test_a_failure_is_one_line_with_its_control_characters_escaped_and_exit_2(capsys):
    exit_ = cli_output.fail("bad \x1b[31mname\x1b[0m")
    assert isinstance(exit_, typer.Exit) and exit_.exit_code == 2
    err = capsys.readouterr().err
    assert err.startswith("backchannel: bad ") and "\x1b" not in err and err.count("\n") == 1
    assert cli_output.fail("interrupted", code=1).exit_code == 1


def test_a_report_is_rendered_whole_and_its_exit_code_is_the_commands(capsys):
    report = Report(
        tool_version="t", oracle_version="o", recording="r.sqlite", recording_format="m", nonce=None, scenarios=()
    )
    try:
        cli_output.render_and_exit(report, "json")
    except typer.Exit as done:
        assert done.exit_code == report.exit_code
    assert '"results": []' in capsys.readouterr().out
