"""`backchannel record`: parse the flags, record one client command (or a live client, in the terminal or in
mitmweb) through the proxy, and say where the recording is. The recording itself is proxy/run/record.py's."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

from backchannel.addons.plan import PlanError, parse_plan
from backchannel.proxy.cli_options import (
    WIRE_DEFAULTS,
    AgentFlag,
    AgentRecipeFlag,
    AnswerFlag,
    EnvFlag,
    IdleTimeoutFlag,
    MaxBodyFlag,
    MaxOutputFlag,
    MaxSseEventFlag,
    McpConfigFileFlag,
    McpConfigFormatFlag,
    RedactFlag,
    TransportFlag,
    TtyFlag,
    TtySizeFlag,
    run_settings,
    scenario_names_help,
)
from backchannel.proxy.cli_output import USER_ERRORS, err_console, fail, out_console
from backchannel.proxy.run.agent_lab import chosen_agent, scripted
from backchannel.proxy.run.capture import MAX_OUTPUT
from backchannel.proxy.run.guard import Interrupted, is_locked
from backchannel.proxy.run.record import record_command, record_live
from backchannel.proxy.run.web_ui import record_web
from backchannel.proxy.scenarios.registry import get_scenario

UI_HELP = "How to watch a live client: terminal (one line per message) or web (mitmweb)."


def _default_out() -> Path:
    return Path(time.strftime("backchannel-%Y%m%d-%H%M%S.sqlite"))


def load_plan(path: Path | None) -> dict[str, object]:
    """The mutation plan in the JSON file at `path` (none: the empty plan); PlanError if it is not one."""
    if path is None:
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise PlanError(f"{path} is not JSON: {exc}") from exc
    parse_plan(raw)
    return dict(raw)


def _clear(target: Path) -> None:
    """--force: remove the recording at `target` and its -wal/-shm, unless another process is writing it."""
    if is_locked(target):
        raise fail(f"{target} is being written by another backchannel process; wait for it or choose another --out")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)


def record(
    cmd: Annotated[
        list[str] | None,
        typer.Argument(help="Client command after --, with {url} (or {stdio-cmd}, {stdio-argv}, {mcp-config})."),
    ] = None,
    upstream: Annotated[str | None, typer.Option(help="Real MCP server URL; default: the scripted endpoint.")] = None,
    plan: Annotated[Path | None, typer.Option(help="Mutation plan (JSON) applied to this run.")] = None,
    out: Annotated[Path | None, typer.Option(help="Recording to create (.sqlite).")] = None,
    scenario: Annotated[
        str, typer.Option(help=scenario_names_help("Scenario the scripted endpoint plays"))
    ] = "default",
    timeout: Annotated[float, typer.Option(help="Seconds before the client's process group is killed.")] = 60.0,
    keep_lab: Annotated[bool, typer.Option(help="Keep the client's temp HOME and working folder.")] = False,
    force: Annotated[bool, typer.Option(help="Replace --out if it already exists.")] = False,
    flow_state: Annotated[bool, typer.Option(help="Also store mitmproxy's flow state per exchange (slower).")] = False,
    redact_names: RedactFlag = None,
    env: EnvFlag = None,
    max_output: MaxOutputFlag = MAX_OUTPUT,
    max_body: MaxBodyFlag = WIRE_DEFAULTS.max_body,
    max_sse_event: MaxSseEventFlag = WIRE_DEFAULTS.max_sse_event,
    upstream_idle_timeout: IdleTimeoutFlag = WIRE_DEFAULTS.upstream_idle_timeout,
    ui: Annotated[str, typer.Option(help=UI_HELP)] = "terminal",
    mcp_config_format: McpConfigFormatFlag = "mcpServers",
    transport: TransportFlag = "http",
    mcp_config_file: McpConfigFileFlag = None,
    tty: TtyFlag = None,
    tty_size: TtySizeFlag = None,
    answer: AnswerFlag = None,
    agent: AgentFlag = None,
    agent_recipe: AgentRecipeFlag = None,
) -> None:
    """Record a client's traffic through the proxy: run CMD in a lab, or print a URL for a live client."""
    target = out or _default_out()
    if ui not in ("terminal", "web"):
        raise fail(f"unknown --ui {ui!r}; valid: terminal, web")
    if ui == "web" and (cmd or agent or agent_recipe):
        raise fail("--ui web watches a live client; give no command after -- and no --agent")
    if (agent or agent_recipe) and cmd:
        raise fail("--agent runs a coding agent as the client: give it instead of a command after --, not with one")
    if (agent or agent_recipe) and upstream:
        raise fail(
            "--agent runs against the scenario's own endpoint (its model calls the scenario's tool), not --upstream"
        )
    try:
        run = run_settings(
            redact_names=redact_names,
            env=env,
            max_body=max_body,
            max_sse_event=max_sse_event,
            upstream_idle_timeout=upstream_idle_timeout,
            mcp_config_format=mcp_config_format,
            transport=transport,
            mcp_config_file=mcp_config_file,
            tty=tty,
            tty_size=tty_size,
            answer=answer,
        )
    except ValueError as exc:
        raise fail(str(exc)) from exc
    try:
        if force:
            _clear(target)
        mutation_plan = load_plan(plan)
        chosen = get_scenario(scenario)
        tools = chosen.tools  # the endpoint is handed them: it never looks a scenario up
        agent_argv = chosen_agent(agent, agent_recipe)
        if agent_argv is not None:
            cmd = list(agent_argv)
        if cmd:
            with scripted(chosen.model_script):  # the scenario's model script, for a coding agent's model
                result = record_command(
                    target,
                    cmd,
                    upstream=upstream,
                    plan=mutation_plan,
                    scenario=scenario,
                    tools=tools,
                    timeout=timeout,
                    keep_lab=keep_lab,
                    flow_state=flow_state,
                    console=err_console,
                    env=run.env,
                    max_output=max_output,
                    mcp_config=run.mcp_config,
                    tty=run.tty,
                    redaction=run.redaction,
                    limits=run.limits,
                )
            if result.outcome == "failed-to-start":
                raise fail(f"the client did not start: {result.detail}; {target} holds the run and the proxy's side")
            err_console.print(
                f"recorded {result.messages} messages to {target}; client {result.outcome}"
                f" with exit code {result.exit_code}. See: backchannel show {target}",
                markup=False,
            )
        elif ui == "web":
            record_web(
                target,
                upstream=upstream,
                plan=mutation_plan,
                scenario=scenario,
                tools=tools,
                console=out_console,
                flow_state=flow_state,
                redaction=run.redaction,
                limits=run.limits,
            )
        else:
            record_live(
                target,
                upstream=upstream,
                plan=mutation_plan,
                scenario=scenario,
                tools=tools,
                console=out_console,
                flow_state=flow_state,
                redaction=run.redaction,
                limits=run.limits,
            )
    except Interrupted as exc:
        raise fail(f"{exc}; {target} is finalised with the interruption recorded", code=1) from exc
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
