"""The `backchannel` command line: parse, call one library function, render, set the exit code.

Each command that does more than a few lines lives beside the library it drives (proxy/check, proxy/record,
proxy/replay, proxy/judging ...); this module registers them, keeps the small ones, and holds the entry point.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from backchannel.oracle import all_checks
from backchannel.proxy.bridge.command import bridge_command
from backchannel.proxy.check.command import check
from backchannel.proxy.check.scenario_flags import BROKEN_SCENARIOS, with_scenario_options
from backchannel.proxy.cli_options import scenario_names_help
from backchannel.proxy.cli_output import USER_ERRORS, err_console, fail, out_console
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.explore.command import explore_command
from backchannel.proxy.judging.command import judge_command, merge_reports_command
from backchannel.proxy.matrix.command import matrix_command
from backchannel.proxy.record.command import record
from backchannel.proxy.replay.command import replay_command
from backchannel.proxy.scenarios.base import CheckError
from backchannel.proxy.scenarios.registry import all_scenarios, get_scenario
from backchannel.proxy.share.bug_report import bug_report_command
from backchannel.proxy.share.export import export_command
from backchannel.proxy.timeline import timeline
from backchannel.recordings import load, store
from backchannel.recordings.safe_text import neutralise

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    help="Watch and tamper with the channel through which an MCP server talks back to a client.",
)


@app.command()
def serve(
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0 picks a free one).")] = 0,
    scenario: Annotated[str, typer.Option(help=scenario_names_help("Which scenario's tools to offer"))] = "default",
) -> None:
    """Serve the scripted MCP endpoint on 127.0.0.1 and print its URL; Ctrl-C stops it."""
    from backchannel.proxy.endpoint.server import start_endpoint

    try:
        tools = get_scenario(scenario).tools
    except CheckError as exc:
        raise fail(str(exc)) from exc
    try:
        running = start_endpoint(EndpointConfig(tools=tools), port=port)
    except OSError as exc:
        raise fail(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}") from exc
    out_console.print(running.url, markup=False)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        running.stop()


app.command("record", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(record)
app.command("check")(with_scenario_options(check))
app.command("replay")(replay_command)
app.command("matrix")(matrix_command)
app.command("export")(export_command)
app.command("bug-report")(bug_report_command)
app.command("explore")(explore_command)
app.command("bridge")(bridge_command)
app.command("judge")(judge_command)
app.command("merge-reports")(merge_reports_command)


@app.command("checks")
def list_checks() -> None:
    """List every check: id, scenario, level, title."""
    try:
        for item in all_checks().values():
            out_console.print(f"{item.id}  [{item.scenario}] {item.level}  {item.title}", markup=False)
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc


@app.command("scenarios")
def list_scenarios(
    name: Annotated[str | None, typer.Argument(help="A scenario: print its options and contract.")] = None,
) -> None:
    """List every scenario (the names check, serve and record take), or show one scenario's options and contract."""
    try:
        if name is None:
            for scenario in all_scenarios().values():
                out_console.print(f"{scenario.name}  [{scenario.side}] {scenario.description}", markup=False)
            return
        scenario = get_scenario(name)
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    checks = [c.id for c in all_checks().values() if scenario.name in (c.scenario, *c.also)]
    lines = [f"{scenario.name}: {scenario.description}", f"tools: {', '.join(t.name for t in scenario.tools) or '-'}"]
    lines += [f"checks: {', '.join(checks) or '-'}"]
    lines += [f"option {o.flag} (default {o.default!r}): {o.help}" for o in scenario.options]
    if scenario.contract:
        lines += ["", scenario.contract.rstrip()]
    out_console.print("\n".join(lines), markup=False)


@app.command()
def show(recording: Annotated[Path, typer.Argument(help="A .sqlite recording.")]) -> None:
    """Print a recording as a timeline: runs, messages (mutations marked), SSE items, terminal output."""
    try:
        rec = load(recording)
    except USER_ERRORS as exc:
        raise fail(neutralise(str(exc))) from exc  # a hostile file's names may reach the message
    for style, text in timeline(rec):
        out_console.print(text, style=style or None, markup=False)


@app.command()
def upgrade(recording: Annotated[Path, typer.Argument(help="A recording in an older format.")]) -> None:
    """Bring a recording written by an older backchannel up to this tool's format (a checked copy, swapped in)."""
    try:
        applied = store.upgrade(recording)
    except USER_ERRORS as exc:
        raise fail(neutralise(str(exc))) from exc
    shown = neutralise(str(recording))
    out_console.print(
        f"{shown}: applied {', '.join(applied)}" if applied else f"{shown}: already current", markup=False
    )


def main() -> None:
    """Entry point of the `backchannel` script."""
    if BROKEN_SCENARIOS:
        err_console.print(f"backchannel: {BROKEN_SCENARIOS[0]}", markup=False)
        raise SystemExit(2)
    app(prog_name="backchannel")


if __name__ == "__main__":
    main()
