"""`backchannel` commands run in the test's own process: the typer app's command, as the console script runs it,
without a Python start-up and the CLI's imports per call (about a CPU second each, the bulk of a recording's cost
beside the client's). For tests whose subject is what a recording shows, not the installed script: the tests that
run the README's commands as written start the script itself."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner, Result


def backchannel(*argv: str) -> Result:
    """`backchannel ARGV...` in this process: its exit code, stdout and stderr (the app with only the command named,
    as `main` builds it)."""
    from backchannel.proxy import cli

    return CliRunner().invoke(cli.build_app(argv[0]), list(argv), prog_name="backchannel")


def record_upstream(upstream: str, client: list[str], out: Path, *, timeout: float = 40) -> None:
    """`backchannel record --upstream UPSTREAM --out OUT --force --timeout TIMEOUT -- CLIENT...`, which must exit 0.
    The client runs in its lab as ever (its own process group, killed after `timeout`), mitmdump as ever."""
    argv = ["--upstream", upstream, "--out", str(out), "--force", "--timeout", str(timeout)]
    done = backchannel("record", *argv, "--", *client)
    assert done.exit_code == 0, f"exit {done.exit_code}: {done.output}{done.exception!r}"
