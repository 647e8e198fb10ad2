"""`backchannel check`: parse the flags, run the chosen scenario (or re-run a recording's), judge it, render it.

A harness that broke mid-run (the proxy died, a signal) still leaves a finalised recording saying why: it is judged
(ERROR) like any other, so the report, not a traceback, tells what happened.
"""

from __future__ import annotations

import shlex
import sys
import threading
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from backchannel.oracle import all_checks, judge
from backchannel.oracle.render import FORMATS
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
from backchannel.proxy.cli_output import USER_ERRORS, err_console, fail, render_and_exit
from backchannel.proxy.endpoint.tools import ERAS
from backchannel.proxy.judging.keep import keep_report
from backchannel.proxy.run import launcher
from backchannel.proxy.run.agent_lab import chosen_agent
from backchannel.proxy.run.capture import MAX_OUTPUT, HarnessBroken
from backchannel.proxy.run.guard import Interrupted
from backchannel.proxy.scenarios.base import CheckError, CheckOptions, Scenario, server_url_problem
from backchannel.proxy.scenarios.registry import all_scenarios, get_scenario
from backchannel.proxy.timings import mark
from backchannel.recordings import load
from backchannel.recordings.safe_text import neutralise

from .scenario_flags import settings_for, with_scenario_options

CLIENT_DEFAULT = "mrtr-provenance"
SERVER_DEFAULT = "elicitation-sep1036-url-mode"
_REPLAY_HELP = (
    "Re-run a recording's scenario against a replay of its server side (its runs, plans and checks; --client or"
    " --target give the client to run: a recording's own command lines are never run)."
)


def check_sides(
    chosen: Scenario, *, server: str | None, client: str | None, target: str | None, replay: Path | None
) -> None:
    """--server goes with a scenario that tests a server; --client and --target with one that tests a client."""
    if chosen.side == "server":
        if client or target:
            raise CheckError(
                f"--scenario {chosen.name} tests a server: give --server URL (or nothing, for its bundled"
                " conformant server), not --client or --target"
            )
        if replay is not None:
            raise CheckError(f"--replay re-runs a client scenario; {chosen.name} tests a server (judge its recording)")
        if server is not None:
            problem = server_url_problem(server)
            if problem:
                raise CheckError(f"--server {server!r}: {problem}")
    elif server is not None:
        servers = [s.name for s in all_scenarios().values() if s.side == "server"]
        raise CheckError(
            f"--scenario {chosen.name} tests a client, so it takes --client or --target; --server goes with a server"
            f" scenario: {', '.join(servers)}"
        )


def _run(chosen: Scenario, options: CheckOptions, *, replay: Path | None, target: str | None) -> Path:
    """The scenario's runs into `options.out` (or a recording's, its server side replayed); the recording's path."""
    try:
        if replay is not None:  # the recording's own runs, plans and scenario, its server side replayed
            from backchannel.proxy.replay.through_proxy import rerun  # only for --replay: a third of check's imports

            return rerun(
                replay,
                options.out,
                client=options.client,
                target=shlex.split(target) if target else None,
                timeout=options.timeout,
                stdin=options.stdin,
                redaction=options.redaction,
                limits=options.limits,
                note=lambda line: err_console.print(f"backchannel: {line}", markup=False),
            )
        return chosen.run(options, lambda text: err_console.print(f"· {text}", style="dim", markup=False))
    except (HarnessBroken, Interrupted, KeyboardInterrupt) as exc:  # the recording says why: judge it (ERROR)
        err_console.print(f"backchannel: {exc or type(exc).__name__}; judging what was recorded", markup=False)
        return options.out


CHECKS_IMPORT_WAIT_S = 30.0


def _checks_imported_in_background() -> threading.Thread:
    """A thread that imports every check's module (judging's start-up, a few tenths of a second) while the clients
    run, started once the proxy is ready: the check's own set-up goes first. Judging waits for it, so the two never
    overlap; what fails here fails again in the judging, which reports it."""

    def import_checks() -> None:
        try:
            all_checks()
        except Exception:  # noqa: BLE001 - see above: judging reports it
            return

    thread = threading.Thread(target=import_checks, name="backchannel-checks-import", daemon=True)
    launcher.when_ready(thread.start)
    return thread


def _ask_on_stderr(prompt: str) -> str:
    """input() with its prompt on stderr: stdout carries only the report (--format json stays parseable)."""
    sys.stderr.write(prompt)
    sys.stderr.flush()
    return input()


def _by_hand(scenario: str, out: Path | None, config_dir: Path | None, port: int, timeout: float, era: str) -> Path:
    """The guided by-hand session (proxy/byhand/), its recording judged like any other."""
    from backchannel.proxy.byhand.guide import GuideOptions, run_guide
    from backchannel.proxy.byhand.plans import Era, plan_for

    out = out or Path(time.strftime("backchannel-by-hand-%Y%m%d-%H%M%S.sqlite"))
    folder = config_dir or out.with_name(out.stem + "-configs")
    try:
        get_scenario(scenario)
        plan = plan_for(scenario, Era(era, answer_timeout_s=timeout))
        options = GuideOptions(out=out, config_dir=folder, port=port, timeout=timeout)
        path = run_guide(plan, options, err_console, ask=_ask_on_stderr)
        keep_report(path)
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    return path


def check(
    target: Annotated[str | None, typer.Option(help='A CLI to discover from its own help, e.g. "fastmcp".')] = None,
    client: Annotated[
        str | None,
        typer.Option(
            help="The client invocation, with {url} (or {stdio-cmd}, {stdio-argv}, {mcp-config}) for the server."
        ),
    ] = None,
    server: Annotated[
        str | None, typer.Option(help="A server to test (its MCP URL): runs a server scenario against it.")
    ] = None,
    agent: AgentFlag = None,
    agent_recipe: AgentRecipeFlag = None,
    scenario: Annotated[
        str | None,
        typer.Option(
            help=scenario_names_help(
                f"Which scenario to run (default: {CLIENT_DEFAULT}; with --server, {SERVER_DEFAULT})"
            )
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Where to keep the recording (.sqlite).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="Report format: text, json, junit or sarif.")] = "text",
    timeout: Annotated[float, typer.Option(help="Seconds each client run may take.")] = 30.0,
    stdin: Annotated[
        str | None, typer.Option(help="Text each client run reads on stdin, for CLIs that prompt (\\n for Enter).")
    ] = None,
    redact_names: RedactFlag = None,
    env: EnvFlag = None,
    max_output: MaxOutputFlag = MAX_OUTPUT,
    max_body: MaxBodyFlag = WIRE_DEFAULTS.max_body,
    max_sse_event: MaxSseEventFlag = WIRE_DEFAULTS.max_sse_event,
    upstream_idle_timeout: IdleTimeoutFlag = WIRE_DEFAULTS.upstream_idle_timeout,
    replay: Annotated[Path | None, typer.Option(help=_REPLAY_HELP)] = None,
    mcp_config_format: McpConfigFormatFlag = "mcpServers",
    transport: TransportFlag = "http",
    mcp_config_file: McpConfigFileFlag = None,
    tty: TtyFlag = None,
    tty_size: TtySizeFlag = None,
    answer: AnswerFlag = None,
    era: Annotated[
        str,
        typer.Option(
            help="The protocol era the scripted endpoint speaks: auto (the one the client negotiates on its first"
            " request), 2026-07-28, 2025-11-25 or 2025-06-18. In a 2025 era a scenario's input requests go out as"
            " server-initiated requests on the call's stream."
        ),
    ] = "auto",
    by_hand: Annotated[
        bool,
        typer.Option(
            "--by-hand",
            help="Check a host a person drives (an IDE or desktop app): the scenario as a lab on one stable URL on"
            " 127.0.0.1, paste-ready configurations, and a guided session whose answers are kept as attested evidence"
            " (scenarios: default, elicitation-ui, elicitation-url-mode, mrtr-provenance, roots, sampling)."
            " --timeout is each step's wait for the host's call (and a 2025 host's answer); --era pins the era the"
            " lab speaks.",
        ),
    ] = False,
    port: Annotated[
        int, typer.Option(help="With --by-hand: the stable URL's port on 127.0.0.1 (0: a free one).", min=0, max=65535)
    ] = 0,
    config_dir: Annotated[
        Path | None,
        typer.Option(help="With --by-hand: where the configurations are written (default: beside --out)."),
    ] = None,
    settings: dict[str, Any] | None = None,
) -> None:
    """Run a scenario against a client, record it, and judge it. With no target, the scenario's default target."""
    mark("check-called")
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
    if era not in ERAS:
        raise fail(f"unknown --era {era!r}; valid eras: {', '.join(ERAS)}")
    if fmt not in FORMATS:
        raise fail(f"unknown --format {fmt!r}; valid formats: {', '.join(FORMATS)}")
    if by_hand:
        if target or client or server or agent or agent_recipe or replay is not None:
            raise fail(
                "--by-hand checks a host a person drives: give no --client, --target, --server, --agent or --replay"
            )
        path = _by_hand(scenario or CLIENT_DEFAULT, out, config_dir, port, timeout, era)
        report = judge(load(path))
        err_console.print(f"recording: {path}  (re-judge with: backchannel judge {path})", style="dim", markup=False)
        render_and_exit(report, fmt)
    elif port or config_dir is not None:
        raise fail("--port and --config-dir belong to --by-hand")
    if target and client:
        raise fail("give --target (a CLI to discover) or --client (an invocation with {url}), not both")
    if (agent or agent_recipe) and (target or client):
        raise fail("--agent runs a coding agent as the client: give it instead of --client/--target, not with them")
    if (agent or agent_recipe) and replay is not None:
        raise fail("--replay re-runs a recording with --client or --target; --agent is not supported with it")
    try:
        agent_argv = chosen_agent(agent, agent_recipe)
        scenario = scenario or (SERVER_DEFAULT if server else CLIENT_DEFAULT)
        chosen = get_scenario(scenario)
        check_sides(
            chosen,
            server=server,
            client=client or agent or (str(agent_recipe) if agent_recipe else None),
            target=target,
            replay=replay,
        )
        if era != "auto" and (chosen.side == "server" or replay is not None):
            raise CheckError("--era sets the era of backchannel's own endpoint: not for a server scenario or --replay")
        own_settings = settings_for(scenario, settings or {})
        default_target = list(chosen.default_target) if chosen.default_target else None
        options = CheckOptions(
            out=out or Path(time.strftime("backchannel-check-%Y%m%d-%H%M%S.sqlite")),
            target=shlex.split(target) if target else (None if client or agent_argv else default_target),
            client=shlex.split(client) if client else (list(agent_argv) if agent_argv else None),
            server=server,
            timeout=timeout,
            stdin=None if stdin is None else stdin.replace("\\n", "\n").encode(),
            settings=own_settings,
            env=run.env,
            max_output=max_output,
            mcp_config=run.mcp_config,
            tty=run.tty,
            redaction=run.redaction,
            limits=run.limits,
            era=era,
        )
        importing = _checks_imported_in_background()
        try:
            path = _run(chosen, options, replay=replay, target=target)
        finally:
            launcher.cancel_when_ready(importing.start)
            if importing.ident is not None:  # judged (or failed) with every check imported, never beside it
                importing.join(CHECKS_IMPORT_WAIT_S)
        mark("runner-returned")
        recording = load(path)
        mark("recording-loaded")
        report = judge(recording)
        mark("judged")
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    warning = keep_report(path, report)
    mark("report-kept")
    if warning is not None:
        err_console.print(f"backchannel: {neutralise(warning)}", style="dim", markup=False)
    err_console.print(f"recording: {path}  (re-judge with: backchannel judge {path})", style="dim", markup=False)
    mark("rendering")
    render_and_exit(report, fmt)


# the command as the CLI registers it: with the flags every scenario declares (scenario_flags.py)
check_command = with_scenario_options(check)
