"""The two commands that take a scenario by name: `serve` its tools, and `scenarios` to list or describe them."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from backchannel.oracle import all_checks
from backchannel.proxy.cli_options import scenario_names_help
from backchannel.proxy.cli_output import USER_ERRORS, fail, out_console
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.recordings.errors import UserError

from .registry import all_scenarios, get_scenario


def serve_command(
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0 picks a free one).")] = 0,
    scenario: Annotated[str, typer.Option(help=scenario_names_help("Which scenario's tools to offer"))] = "default",
) -> None:
    """Serve the scripted MCP endpoint on 127.0.0.1 and print its URL; Ctrl-C stops it."""
    from backchannel.proxy.endpoint.server import start_endpoint

    try:
        tools = get_scenario(scenario).tools
    except UserError as exc:
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


def scenarios_command(
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
