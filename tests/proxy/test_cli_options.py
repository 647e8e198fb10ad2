"""The shared option groups: declared once, turned into the values a capture is handed."""

import pytest
import typer
from typer.testing import CliRunner

from backchannel.addons.session import Limits
from backchannel.proxy import cli_options as o
from backchannel.proxy.run.placeholders import McpConfigOptions


def _settings(**overrides: object) -> o.RunSettings:
    given: dict[str, object] = {
        "redact_names": None,
        "env": None,
        "max_body": 10,
        "max_sse_event": 5,
        "upstream_idle_timeout": 1.5,
        "mcp_config_format": "mcpServers",
        "transport": "http",
        "mcp_config_file": None,
        "tty": None,
        "tty_size": None,
        "answer": None,
    }
    return o.run_settings(**(given | overrides))  # type: ignore[arg-type]


def test_the_groups_become_one_value_each_with_nothing_set_process_wide():
    settings = _settings(redact_names=["tenant"], env=["A=1"], tty_size="100x30")
    assert settings.limits == Limits(10, 5, 1.5)
    assert settings.redaction.extra == ("tenant",)
    assert settings.env == {"A": "1"}
    assert settings.mcp_config == McpConfigOptions()
    assert settings.tty is not None and (settings.tty.cols, settings.tty.rows) == (100, 30)
    assert _settings().redaction.extra == ()  # the next command's settings are its own


@pytest.mark.parametrize(
    ("overrides", "says"),
    [
        ({"redact_names": ["("]}, "--redact"),
        ({"env": ["1BAD"]}, "--env"),
        ({"transport": "carrier-pigeon"}, "--transport"),
        ({"tty": False, "tty_size": "80x24"}, "--no-tty"),
    ],
)
def test_a_bad_flag_of_any_group_is_a_value_error_naming_it(overrides, says):
    with pytest.raises(ValueError, match=says):
        _settings(**overrides)


def test_an_alias_gives_a_command_the_flag_its_help_and_its_bounds():
    app = typer.Typer()

    @app.command()
    def command(max_body: o.MaxBodyFlag = 3, redact_names: o.RedactFlag = None) -> None:
        print(max_body, redact_names)

    runner = CliRunner()
    assert runner.invoke(app, ["--max-body", "7", "--redact", "a", "--redact", "b"]).output == "7 ['a', 'b']\n"
    assert runner.invoke(app, ["--max-body", "-1"]).exit_code == 2
