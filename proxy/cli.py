"""The `backchannel` command line: parse, call one library function, render, set the exit code."""

from __future__ import annotations

import inspect
import json
import os
import shlex
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from backchannel.addons.plan import PlanError, parse_plan
from backchannel.addons.session import Limits, configure_limits
from backchannel.oracle import all_checks, judge
from backchannel.oracle.model import Report
from backchannel.oracle.registry import ScenarioError
from backchannel.oracle.render import FORMATS, render
from backchannel.proxy.bridge.command import bridge_command
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.explore.command import explore_command
from backchannel.proxy.judging.keep import keep_report
from backchannel.proxy.matrix.command import matrix_command
from backchannel.proxy.replay.command import replay_command
from backchannel.proxy.replay.session import ReplayError
from backchannel.proxy.replay.through_proxy import rerun
from backchannel.proxy.run.capture import MAX_OUTPUT, CaptureError, HarnessBroken
from backchannel.proxy.run.guard import Interrupted, is_locked
from backchannel.proxy.run.lab import parse_env
from backchannel.proxy.run.launcher import ProxyError
from backchannel.proxy.run.placeholders import McpConfigOptions
from backchannel.proxy.run.record import record_command, record_live
from backchannel.proxy.run.tty import TtyOptions, parse_answer, parse_tty_size
from backchannel.proxy.run.web_ui import record_web
from backchannel.proxy.scenarios.base import CheckError, CheckOptions, Option, Scenario, server_url_problem
from backchannel.proxy.scenarios.registry import all_scenarios, get_scenario
from backchannel.proxy.share.bug_report import bug_report_command
from backchannel.proxy.share.export import export_command
from backchannel.proxy.timeline import timeline
from backchannel.recordings import load, redact, store
from backchannel.recordings.errors import RecordingError
from backchannel.recordings.safe_text import neutralise

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    help="Watch and tamper with the channel through which an MCP server talks back to a client.",
)
out_console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)

_ENV_HELP = (
    "Set NAME in the client's lab: NAME (its value here) or NAME=VALUE (repeatable; names recorded, never values)."
)
_MAX_OUTPUT_HELP = "Bytes of the client's stdout and of its stderr kept per run; past it, an output-limit anomaly."
WIRE_DEFAULTS = Limits()
_MAX_BODY_HELP = "Bytes of each HTTP body the recording keeps per exchange (more is cut, with an anomaly)."
_MAX_SSE_EVENT_HELP = "Bytes the recording keeps per SSE event and per message text (more is cut, with an anomaly)."
_REPLAY_HELP = (
    "Re-run a recording's scenario against a replay of its server side (its runs, plans and checks; --client or"
    " --target give the client to run: a recording's own command lines are never run)."
)
_IDLE_HELP = "Seconds an upstream may send nothing before the client gets a JSON-RPC error (HTTP 504); 0: never."
_REDACT_HELP = "Also redact values whose name matches this regular expression (repeatable)."
_CONFIG_FORMAT_HELP = (
    "Shape of the MCP configuration {mcp-config} names: mcpServers (most desktop and CLI hosts), mcpServers-typed"
    " (the same with a type per server) or servers (with type, as VS Code)."
)
_TRANSPORT_HELP = "How the generated MCP configuration reaches the run: http (its URL) or stdio (backchannel bridge)."
_TTY_HELP = (
    "Run the client under a real terminal (a pseudo-terminal, TERM=xterm-256color) instead of pipes; --no-tty with"
    " --answer keeps it on pipes and answers its prompts there."
)
_TTY_SIZE_HELP = "The terminal's size as COLUMNSxROWS (implies --tty)."
_ANSWER_HELP = (
    "Type TEXT when REGEX appears on the screen: 'REGEX=>TEXT' (repeatable; implies --tty unless --no-tty is given,"
    " which writes TEXT to the piped client's stdin once its prompt was read)."
)
_CONFIG_FILE_HELP = "Also write the MCP configuration at this path inside the lab's HOME (a host's fixed config file)."
USER_ERRORS = (
    RecordingError,
    CaptureError,
    ProxyError,
    PlanError,
    CheckError,
    ScenarioError,
    ReplayError,
    OSError,
)


def tty_options(tty: bool | None, size: str | None, answers: list[str] | None) -> TtyOptions | None:
    """--tty/--no-tty, --tty-size and --answer as one TtyOptions; ValueError if bad.

    Either of the last two implies --tty; with --no-tty, --answer answers a piped client at its prompts."""
    parsed = tuple(parse_answer(a) for a in answers or ())
    if tty is False:
        if size:
            raise ValueError("--tty-size sizes a terminal, and --no-tty runs the client on pipes: give one of them")
        return TtyOptions(answers=parsed, piped=True) if parsed else None
    if not (tty or size or answers):
        return None
    cols, rows = parse_tty_size(size) if size else (TtyOptions().cols, TtyOptions().rows)
    return TtyOptions(cols=cols, rows=rows, answers=parsed)


def fail(message: str, code: int = 2) -> typer.Exit:
    # messages quote paths, recordings and client output: escape control, escape and bidi characters once, here
    err_console.print(f"backchannel: {neutralise(message)}", markup=False)
    return typer.Exit(code)


def _default_out() -> Path:
    return Path(time.strftime("backchannel-%Y%m%d-%H%M%S.sqlite"))


def _load_plan(path: Path | None) -> dict[str, object]:
    if path is None:
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise PlanError(f"{path} is not JSON: {exc}") from exc
    parse_plan(raw)
    return dict(raw)


_BROKEN_SCENARIOS: list[str] = []


def _names_help(what: str) -> str:
    """Help for a --scenario option naming every scenario, so check, serve and record list the same names."""
    try:
        return f"{what}: {', '.join(all_scenarios())} (backchannel scenarios describes them)."
    except (CheckError, ScenarioError):
        return f"{what} (backchannel scenarios lists them)."


@app.command()
def serve(
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0 picks a free one).")] = 0,
    scenario: Annotated[str, typer.Option(help=_names_help("Which scenario's tools to offer"))] = "default",
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


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def record(
    cmd: Annotated[
        list[str] | None,
        typer.Argument(help="Client command after --, with {url} (or {stdio-cmd}, {stdio-argv}, {mcp-config})."),
    ] = None,
    upstream: Annotated[str | None, typer.Option(help="Real MCP server URL; default: the scripted endpoint.")] = None,
    plan: Annotated[Path | None, typer.Option(help="Mutation plan (JSON) applied to this run.")] = None,
    out: Annotated[Path | None, typer.Option(help="Recording to create (.sqlite).")] = None,
    scenario: Annotated[str, typer.Option(help=_names_help("Scenario the scripted endpoint plays"))] = "default",
    timeout: Annotated[float, typer.Option(help="Seconds before the client's process group is killed.")] = 60.0,
    keep_lab: Annotated[bool, typer.Option(help="Keep the client's temp HOME and working folder.")] = False,
    force: Annotated[bool, typer.Option(help="Replace --out if it already exists.")] = False,
    flow_state: Annotated[bool, typer.Option(help="Also store mitmproxy's flow state per exchange (slower).")] = False,
    redact_names: Annotated[list[str] | None, typer.Option("--redact", help=_REDACT_HELP)] = None,
    env: Annotated[list[str] | None, typer.Option("--env", help=_ENV_HELP)] = None,
    max_output: Annotated[int, typer.Option(help=_MAX_OUTPUT_HELP)] = MAX_OUTPUT,
    max_body: Annotated[int, typer.Option(help=_MAX_BODY_HELP, min=0)] = WIRE_DEFAULTS.max_body,
    max_sse_event: Annotated[int, typer.Option(help=_MAX_SSE_EVENT_HELP, min=0)] = WIRE_DEFAULTS.max_sse_event,
    upstream_idle_timeout: Annotated[
        float, typer.Option(help=_IDLE_HELP, min=0.0)
    ] = WIRE_DEFAULTS.upstream_idle_timeout,
    ui: Annotated[
        str, typer.Option(help="How to watch a live client: terminal (one line per message) or web (mitmweb).")
    ] = "terminal",
    mcp_config_format: Annotated[str, typer.Option(help=_CONFIG_FORMAT_HELP)] = "mcpServers",
    transport: Annotated[str, typer.Option(help=_TRANSPORT_HELP)] = "http",
    mcp_config_file: Annotated[str | None, typer.Option(help=_CONFIG_FILE_HELP)] = None,
    tty: Annotated[bool | None, typer.Option("--tty/--no-tty", help=_TTY_HELP, show_default=False)] = None,
    tty_size: Annotated[str | None, typer.Option(help=_TTY_SIZE_HELP)] = None,
    answer: Annotated[list[str] | None, typer.Option("--answer", help=_ANSWER_HELP)] = None,
) -> None:
    """Record a client's traffic through the proxy: run CMD in a lab, or print a URL for a live client."""
    target = out or _default_out()
    if ui not in ("terminal", "web"):
        raise fail(f"unknown --ui {ui!r}; valid: terminal, web")
    if ui == "web" and cmd:
        raise fail("--ui web watches a live client; give no command after --")
    try:
        redact.configure(redact_names or ())
        configure_limits(Limits(max_body, max_sse_event, upstream_idle_timeout))
        lab_env = parse_env(env or (), os.environ)
        config = McpConfigOptions(mcp_config_format, transport, mcp_config_file)
        terminal = tty_options(tty, tty_size, answer)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    try:
        if force and is_locked(target):
            raise fail(f"{target} is being written by another backchannel process; wait for it or choose another --out")
        if force:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{target}{suffix}").unlink(missing_ok=True)
        mutation_plan = _load_plan(plan)
        tools = get_scenario(scenario).tools
        if cmd:
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
                env=lab_env,
                max_output=max_output,
                mcp_config=config,
                tty=terminal,
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
            )
    except Interrupted as exc:
        raise fail(f"{exc}; {target} is finalised with the interruption recorded", code=1) from exc
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc


def _render_and_exit(report: Report, fmt: str) -> None:
    out_console.file.write(render(report, fmt))
    out_console.file.flush()
    raise typer.Exit(report.exit_code)


def _scenario_options() -> dict[str, tuple[Option, list[str]]]:
    """Every option any scenario declares, by name, with the scenarios that declare it (they must agree)."""
    found: dict[str, tuple[Option, list[str]]] = {}
    for scenario in all_scenarios().values():
        for option in scenario.options:
            if option.name in found:
                first, owners = found[option.name]
                if (first.kind, first.default, first.choices) != (option.kind, option.default, option.choices):
                    raise CheckError(f"scenarios {owners[0]} and {scenario.name} declare {option.flag} differently")
                owners.append(scenario.name)
            else:
                found[option.name] = (option, [scenario.name])
    return found


def _with_scenario_options(command: Callable[..., None]) -> Callable[..., None]:
    """Give `check` the flags the scenarios declare: they arrive as one `settings` dict, not as parameters."""
    try:
        declared = _scenario_options()
    except (CheckError, ScenarioError) as exc:  # a broken scenario package: every command says so (see main)
        _BROKEN_SCENARIOS.append(str(exc))
        declared = {}
    base = [p for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != "settings"]
    extra = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=option.default,
            annotation=Annotated[
                option.kind, typer.Option(option.flag, help=f"{option.help} (scenario {', '.join(owners)})")
            ],
        )
        for name, (option, owners) in declared.items()
    ]

    def wrapper(**kwargs: Any) -> None:
        settings = {name: kwargs.pop(name) for name in declared}
        command(**kwargs, settings=settings)

    wrapper.__signature__ = inspect.Signature(base + extra)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in base + extra}
    wrapper.__doc__ = command.__doc__
    wrapper.__name__ = command.__name__
    return wrapper


def _settings_for(scenario_name: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The chosen scenario's own settings; a flag of another scenario given a non-default value is a usage error."""
    scenario = get_scenario(scenario_name)
    own = {option.name: option for option in scenario.options}
    for name, (option, owners) in _scenario_options().items():
        value = settings.get(name, option.default)
        if name not in own and value != option.default:
            raise CheckError(f"{option.flag} belongs to scenario {', '.join(owners)}, not {scenario_name}")
        if option.choices and value not in option.choices:
            raise CheckError(f"unknown {option.flag} {value!r}; valid: {', '.join(option.choices)}")
    return {name: settings.get(name, option.default) for name, option in own.items()}


CLIENT_DEFAULT = "mrtr-provenance"
SERVER_DEFAULT = "elicitation-sep1036-url-mode"


def _check_sides(
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
    scenario: Annotated[
        str | None,
        typer.Option(
            help=_names_help(f"Which scenario to run (default: {CLIENT_DEFAULT}; with --server, {SERVER_DEFAULT})")
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Where to keep the recording (.sqlite).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="Report format: text, json, junit or sarif.")] = "text",
    timeout: Annotated[float, typer.Option(help="Seconds each client run may take.")] = 30.0,
    stdin: Annotated[
        str | None, typer.Option(help="Text each client run reads on stdin, for CLIs that prompt (\\n for Enter).")
    ] = None,
    redact_names: Annotated[list[str] | None, typer.Option("--redact", help=_REDACT_HELP)] = None,
    env: Annotated[list[str] | None, typer.Option("--env", help=_ENV_HELP)] = None,
    max_output: Annotated[int, typer.Option(help=_MAX_OUTPUT_HELP)] = MAX_OUTPUT,
    max_body: Annotated[int, typer.Option(help=_MAX_BODY_HELP, min=0)] = WIRE_DEFAULTS.max_body,
    max_sse_event: Annotated[int, typer.Option(help=_MAX_SSE_EVENT_HELP, min=0)] = WIRE_DEFAULTS.max_sse_event,
    upstream_idle_timeout: Annotated[
        float, typer.Option(help=_IDLE_HELP, min=0.0)
    ] = WIRE_DEFAULTS.upstream_idle_timeout,
    replay: Annotated[Path | None, typer.Option(help=_REPLAY_HELP)] = None,
    mcp_config_format: Annotated[str, typer.Option(help=_CONFIG_FORMAT_HELP)] = "mcpServers",
    transport: Annotated[str, typer.Option(help=_TRANSPORT_HELP)] = "http",
    mcp_config_file: Annotated[str | None, typer.Option(help=_CONFIG_FILE_HELP)] = None,
    tty: Annotated[bool | None, typer.Option("--tty/--no-tty", help=_TTY_HELP, show_default=False)] = None,
    tty_size: Annotated[str | None, typer.Option(help=_TTY_SIZE_HELP)] = None,
    answer: Annotated[list[str] | None, typer.Option("--answer", help=_ANSWER_HELP)] = None,
    settings: dict[str, Any] | None = None,
) -> None:
    """Run a scenario against a client, record it, and judge it. With no target, the scenario's default target."""
    try:
        redact.configure(redact_names or ())
        configure_limits(Limits(max_body, max_sse_event, upstream_idle_timeout))
        lab_env = parse_env(env or (), os.environ)
        config = McpConfigOptions(mcp_config_format, transport, mcp_config_file)
        terminal = tty_options(tty, tty_size, answer)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    if fmt not in FORMATS:
        raise fail(f"unknown --format {fmt!r}; valid formats: {', '.join(FORMATS)}")
    if target and client:
        raise fail("give --target (a CLI to discover) or --client (an invocation with {url}), not both")
    try:
        scenario = scenario or (SERVER_DEFAULT if server else CLIENT_DEFAULT)
        chosen = get_scenario(scenario)
        _check_sides(chosen, server=server, client=client, target=target, replay=replay)
        own_settings = _settings_for(scenario, settings or {})
        default_target = list(chosen.default_target) if chosen.default_target else None
        options = CheckOptions(
            out=out or Path(time.strftime("backchannel-check-%Y%m%d-%H%M%S.sqlite")),
            target=shlex.split(target) if target else (None if client else default_target),
            client=shlex.split(client) if client else None,
            server=server,
            timeout=timeout,
            stdin=None if stdin is None else stdin.replace("\\n", "\n").encode(),
            settings=own_settings,
            env=lab_env,
            max_output=max_output,
            mcp_config=config,
            tty=terminal,
        )
        try:
            if replay is not None:  # the recording's own runs, plans and scenario, its server side replayed
                path = rerun(
                    replay,
                    options.out,
                    client=options.client,
                    target=shlex.split(target) if target else None,
                    timeout=timeout,
                    stdin=options.stdin,
                )
            else:
                path = chosen.run(options, lambda text: err_console.print(f"· {text}", style="dim", markup=False))
        except (HarnessBroken, Interrupted, KeyboardInterrupt) as exc:  # the recording says why: judge it (ERROR)
            err_console.print(f"backchannel: {exc or type(exc).__name__}; judging what was recorded", markup=False)
            path = options.out
        report = judge(load(path))
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    warning = keep_report(path, report)
    if warning is not None:
        err_console.print(f"backchannel: {neutralise(warning)}", style="dim", markup=False)
    err_console.print(f"recording: {path}  (re-judge with: backchannel judge {path})", style="dim", markup=False)
    _render_and_exit(report, fmt)


app.command("check")(_with_scenario_options(check))
app.command("replay")(replay_command)
app.command("matrix")(matrix_command)
app.command("export")(export_command)
app.command("bug-report")(bug_report_command)
app.command("explore")(explore_command)
app.command("bridge")(bridge_command)


@app.command("judge")
def judge_command(
    recordings: Annotated[
        list[str], typer.Argument(help="Recordings: .sqlite files, folders (searched for *.sqlite) or globs.")
    ],
    fmt: Annotated[
        str, typer.Option("--format", help="Report format: text, json, junit or sarif (many recordings: text, json).")
    ] = "text",
    jobs: Annotated[int, typer.Option(help="Processes judging at once; 0: one per CPU.", min=0)] = 0,
    diff: Annotated[
        bool, typer.Option("--diff", help="Show what changed since each recording's stored report.")
    ] = False,
    store: Annotated[bool, typer.Option("--store", help="Store today's report in each recording.")] = False,
    baseline: Annotated[
        Path | None, typer.Option(help="YAML whose expected-failures lists scenario or scenario:check-id.")
    ] = None,
    shard: Annotated[str | None, typer.Option(help="Judge only shard K of N (K/N), the same on every machine.")] = None,
) -> None:
    """Judge recordings offline: one prints its report exactly as `check` did; many, in parallel, a summary."""
    from backchannel.proxy.judging import command as judging

    if fmt not in FORMATS:
        raise fail(f"unknown --format {fmt!r}; valid formats: {', '.join(FORMATS)}")
    if judging.one_recording(recordings) and not (diff or store or baseline or shard):  # exactly as before
        try:
            report = judge(load(recordings[0]))
        except USER_ERRORS as exc:
            raise fail(str(exc)) from exc
        _render_and_exit(report, fmt)
    if fmt not in judging.CORPUS_FORMATS:
        raise fail(
            f"--format {fmt} renders one recording; for many (or with --diff, --store, --baseline, --shard)"
            f" use {' or '.join(judging.CORPUS_FORMATS)}"
        )
    try:
        output = judging.judge_many(
            recordings,
            fmt=fmt,
            jobs=jobs or judging.default_jobs(),
            show_diff=diff,
            store=store,
            baseline=baseline,
            shard_spec=shard,
            progress=judging.progress_bar(err_console),
        )
    except (*USER_ERRORS, *judging.ERRORS) as exc:
        raise fail(str(exc)) from exc
    out_console.file.write(output.text)
    out_console.file.flush()
    raise typer.Exit(output.exit_code)


@app.command("merge-reports")
def merge_reports_command(
    reports: Annotated[list[Path], typer.Argument(help="`judge --format json` outputs (shards or single reports).")],
    fmt: Annotated[str, typer.Option("--format", help="Output format: json or text.")] = "json",
    baseline: Annotated[
        Path | None, typer.Option(help="YAML whose expected-failures lists scenario or scenario:check-id.")
    ] = None,
) -> None:
    """Merge the JSON outputs of several `judge` runs into one document, with the aggregated exit code."""
    from backchannel.proxy.judging import command as judging

    if fmt not in judging.CORPUS_FORMATS:
        raise fail(f"unknown --format {fmt!r}; valid formats: {', '.join(judging.CORPUS_FORMATS)}")
    try:
        output = judging.merge_reports(reports, fmt=fmt, baseline=baseline)
    except (*USER_ERRORS, *judging.ERRORS) as exc:
        raise fail(str(exc)) from exc
    out_console.file.write(output.text)
    out_console.file.flush()
    raise typer.Exit(output.exit_code)


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
    if _BROKEN_SCENARIOS:
        err_console.print(f"backchannel: {_BROKEN_SCENARIOS[0]}", markup=False)
        raise SystemExit(2)
    app(prog_name="backchannel")


if __name__ == "__main__":
    main()
