"""The `backchannel` command line: parse, call one library function, render, set the exit code."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from backchannel.addons.plan import PlanError, parse_plan
from backchannel.recordings import load, store
from backchannel.recordings.errors import RecordingError

from .capture import CaptureError
from .endpoint_tools import EndpointConfig, scenarios
from .mitm import ProxyError
from .record import record_command, record_live
from .timeline import timeline

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    help="Watch and tamper with the channel through which an MCP server talks back to a client.",
)
out_console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False)

USER_ERRORS = (RecordingError, CaptureError, ProxyError, PlanError, OSError)


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
                console=err_console,
            )
            err_console.print(
                f"recorded {result.messages} messages to {target}; client {result.outcome}"
                f" with exit code {result.exit_code}. See: backchannel show {target}",
                markup=False,
            )
        else:
            record_live(target, upstream=upstream, plan=mutation_plan, scenario=scenario, console=out_console)
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc


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
