"""The `backchannel` command line: parse, call one library function, render, set the exit code."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from backchannel.addons.plan import PlanError, parse_plan
from backchannel.oracle import all_checks, judge
from backchannel.oracle.model import Report
from backchannel.oracle.render import FORMATS, render
from backchannel.recordings import load, store
from backchannel.recordings.errors import RecordingError

from .capture import CaptureError
from .check import run_scenario
from .endpoint_tools import EndpointConfig, scenarios
from .mitm import ProxyError
from .probe_mrtr import ProbeError, ProbeOptions
from .record import record_command, record_live
from .timeline import timeline

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    help="Watch and tamper with the channel through which an MCP server talks back to a client.",
)
out_console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)

USER_ERRORS = (RecordingError, CaptureError, ProxyError, PlanError, ProbeError, OSError)


def fail(message: str, code: int = 2) -> typer.Exit:
    err_console.print(f"backchannel: {message}", markup=False)
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


@app.command()
def serve(
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0 picks a free one).")] = 0,
    scenario: Annotated[str, typer.Option(help="Which scenario's tools to offer.")] = "default",
) -> None:
    """Serve the scripted MCP endpoint on 127.0.0.1 and print its URL; Ctrl-C stops it."""
    from .endpoint_server import start_endpoint

    if scenario not in scenarios():
        raise fail(f"unknown scenario {scenario!r}; known: {', '.join(sorted(scenarios()))}")
    try:
        running = start_endpoint(EndpointConfig(scenario=scenario), port=port)
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
        list[str] | None, typer.Argument(help="Client command after --, with {url} for the server URL.")
    ] = None,
    upstream: Annotated[str | None, typer.Option(help="Real MCP server URL; default: the scripted endpoint.")] = None,
    plan: Annotated[Path | None, typer.Option(help="Mutation plan (JSON) applied to this run.")] = None,
    out: Annotated[Path | None, typer.Option(help="Recording to create (.sqlite).")] = None,
    scenario: Annotated[str, typer.Option(help="Scenario the scripted endpoint plays.")] = "default",
    timeout: Annotated[float, typer.Option(help="Seconds before the client's process group is killed.")] = 60.0,
    keep_lab: Annotated[bool, typer.Option(help="Keep the client's temp HOME and working folder.")] = False,
    force: Annotated[bool, typer.Option(help="Replace --out if it already exists.")] = False,
    flow_state: Annotated[bool, typer.Option(help="Also store mitmproxy's flow state per exchange (slower).")] = False,
) -> None:
    """Record a client's traffic through the proxy: run CMD in a lab, or print a URL for a live client."""
    target = out or _default_out()
    try:
        if force:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{target}{suffix}").unlink(missing_ok=True)
        mutation_plan = _load_plan(plan)
        if scenario not in scenarios():
            raise PlanError(f"unknown scenario {scenario!r}; known: {', '.join(sorted(scenarios()))}")
        if cmd:
            result = record_command(
                target,
                cmd,
                upstream=upstream,
                plan=mutation_plan,
                scenario=scenario,
                timeout=timeout,
                keep_lab=keep_lab,
                flow_state=flow_state,
                console=err_console,
            )
            if result.outcome == "failed-to-start":
                raise fail(f"the client did not start: {result.detail}; {target} holds the run and the proxy's side")
            err_console.print(
                f"recorded {result.messages} messages to {target}; client {result.outcome}"
                f" with exit code {result.exit_code}. See: backchannel show {target}",
                markup=False,
            )
        else:
            record_live(
                target,
                upstream=upstream,
                plan=mutation_plan,
                scenario=scenario,
                console=out_console,
                flow_state=flow_state,
            )
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc


def _render_and_exit(report: Report, fmt: str) -> None:
    out_console.file.write(render(report, fmt))
    out_console.file.flush()
    raise typer.Exit(report.exit_code)


def _default_target() -> list[str]:
    return [sys.executable, "-m", "backchannel.proxy.toy_agent"]


@app.command()
def check(
    target: Annotated[str | None, typer.Option(help='A CLI to discover from its own help, e.g. "fastmcp".')] = None,
    client: Annotated[
        str | None, typer.Option(help="The client invocation, with {url} where the server URL goes.")
    ] = None,
    scenario: Annotated[str, typer.Option(help="Which scenario to run.")] = "mrtr-provenance",
    out: Annotated[Path | None, typer.Option(help="Where to keep the recording (.sqlite).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="Report format: text, json, junit or sarif.")] = "text",
    ignore_capabilities: Annotated[
        bool, typer.Option(help="Send the probe's input request even if the client did not declare it (out of spec).")
    ] = False,
    result_type_rule: Annotated[
        str, typer.Option(help="Grade the modern ABSENT run by the spec or as the seed.")
    ] = "spec",
    timeout: Annotated[float, typer.Option(help="Seconds each client run may take.")] = 30.0,
    hold_ms: Annotated[int, typer.Option(help="elicitation-url-mode: how long the server holds a retry.")] = 5000,
    stdin: Annotated[
        str | None, typer.Option(help="Text each client run reads on stdin, for CLIs that prompt (\\n for Enter).")
    ] = None,
) -> None:
    """Run a scenario against a client, record it, and judge it. With no target, the bundled toy agent's flawed twin."""
    if fmt not in FORMATS:
        raise fail(f"unknown --format {fmt!r}; valid formats: {', '.join(FORMATS)}")
    if result_type_rule not in ("spec", "seed"):
        raise fail(f"unknown --result-type-rule {result_type_rule!r}; valid: spec, seed")
    if target and client:
        raise fail("give --target (a CLI to discover) or --client (an invocation with {url}), not both")
    target_argv = shlex.split(target) if target else (None if client else _default_target())
    options = ProbeOptions(
        out=out or Path(time.strftime("backchannel-check-%Y%m%d-%H%M%S.sqlite")),
        target=target_argv,
        client=shlex.split(client) if client else None,
        ignore_capabilities=ignore_capabilities,
        result_type_rule=result_type_rule,
        timeout=timeout,
        hold_ms=hold_ms,
        stdin=None if stdin is None else stdin.replace("\\n", "\n").encode(),
    )
    try:
        path = run_scenario(
            scenario, options, progress=lambda text: err_console.print(f"· {text}", style="dim", markup=False)
        )
        report = judge(load(path))
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    err_console.print(f"recording: {path}  (re-judge with: backchannel judge {path})", style="dim", markup=False)
    _render_and_exit(report, fmt)


@app.command("judge")
def judge_command(
    recording: Annotated[Path, typer.Argument(help="A .sqlite recording.")],
    fmt: Annotated[str, typer.Option("--format", help="Report format: text, json, junit or sarif.")] = "text",
) -> None:
    """Judge a recording offline and print the report, exactly as `check` did when it was made."""
    if fmt not in FORMATS:
        raise fail(f"unknown --format {fmt!r}; valid formats: {', '.join(FORMATS)}")
    try:
        report = judge(load(recording))
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    _render_and_exit(report, fmt)


@app.command("checks")
def list_checks() -> None:
    """List every check: id, scenario, level, title."""
    for item in all_checks().values():
        out_console.print(f"{item.id}  [{item.scenario}] {item.level}  {item.title}", markup=False)


@app.command()
def show(recording: Annotated[Path, typer.Argument(help="A .sqlite recording.")]) -> None:
    """Print a recording as a timeline: runs, messages (mutations marked), SSE items, terminal output."""
    try:
        rec = load(recording)
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    for style, text in timeline(rec):
        out_console.print(text, style=style or None, markup=False)


@app.command()
def upgrade(recording: Annotated[Path, typer.Argument(help="A recording in an older format.")]) -> None:
    """Bring a recording written by an older backchannel up to this tool's format, in place."""
    try:
        applied = store.upgrade(recording)
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    out_console.print(f"{recording}: applied {', '.join(applied)}" if applied else f"{recording}: already current")


def main() -> None:
    """Entry point of the `backchannel` script."""
    app(prog_name="backchannel")


if __name__ == "__main__":
    main()
