"""The `backchannel` command line: parse, call one library function, render, set the exit code.

Each command that does more than a few lines lives beside the library it drives (proxy/check, proxy/record,
proxy/replay, proxy/judging ...); this module names every command, keeps the smallest, and holds the entry point.

A run imports only the module of the command it names: `backchannel judge` or `show` need the oracle and the
recordings, not mitmproxy, the scenario packages and the proxy launcher that `check` and `record` load, and start in
a third of the time (docs/benchmarks.md). `backchannel --help`, and a name that is no command, build the whole app.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from backchannel.proxy.cli_output import USER_ERRORS, err_console, fail, out_console

if TYPE_CHECKING:
    from backchannel.oracle.model import Check

HELP = "Watch and tamper with the channel through which an MCP server talks back to a client."


@dataclass(frozen=True)
class Command:
    """Where a command's function lives, imported when the command is built; and typer's context settings."""

    module: str
    function: str
    context_settings: dict[str, Any] = field(default_factory=dict)

    def load(self) -> Callable[..., None]:
        return getattr(importlib.import_module(self.module), self.function)  # type: ignore[no-any-return]


CHECKS_FORMATS = ("text", "json", "markdown")


def list_checks(
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="text (one line per check), or the requirements registry as json or markdown: each check's "
            "quoted sentence and spec anchor, level, official suite and OWASP AISVS ids, and what is deliberately "
            "not checked.",
        ),
    ] = "text",
) -> None:
    """List every check: id, scenario, level, title, and the protocol eras it applies to."""
    from backchannel.oracle import all_checks

    if fmt not in CHECKS_FORMATS:
        raise fail(f"unknown --format {fmt!r}; valid formats: {', '.join(CHECKS_FORMATS)}")
    try:
        checks = all_checks()
        if fmt != "text":
            typer.echo(_requirements_registry(checks, fmt), nl=False)
            return
        for item in checks.values():
            eras = ", ".join(item.eras)
            out_console.print(f"{item.id}  [{item.scenario}] {item.level}  {item.title}  (eras: {eras})", markup=False)
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc


def _requirements_registry(checks: dict[str, Check], fmt: str) -> str:
    """Every check joined with its requirement (oracle/requirements/), rendered as json or markdown."""
    from backchannel.oracle.requirements import load_requirements, traced
    from backchannel.oracle.requirements.render import as_json, as_markdown

    requirements = load_requirements()
    rows = traced(checks, requirements)
    return as_json(rows, requirements) if fmt == "json" else as_markdown(rows, requirements)


def show(recording: Annotated[Path, typer.Argument(help="A .sqlite recording.")]) -> None:
    """Print a recording as a timeline: runs, messages (mutations marked), SSE items, terminal output."""
    from backchannel.proxy.timeline import timeline
    from backchannel.recordings import load
    from backchannel.recordings.safe_text import neutralise

    try:
        rec = load(recording)
    except USER_ERRORS as exc:
        raise fail(neutralise(str(exc))) from exc  # a hostile file's names may reach the message
    for style, text in timeline(rec):
        out_console.print(text, style=style or None, markup=False)


def upgrade(recording: Annotated[Path, typer.Argument(help="A recording in an older format.")]) -> None:
    """Bring a recording written by an older backchannel up to this tool's format (a checked copy, swapped in)."""
    from backchannel.recordings import store
    from backchannel.recordings.safe_text import neutralise

    try:
        applied = store.upgrade(recording)
    except USER_ERRORS as exc:
        raise fail(neutralise(str(exc))) from exc
    shown = neutralise(str(recording))
    out_console.print(
        f"{shown}: applied {', '.join(applied)}" if applied else f"{shown}: already current", markup=False
    )


# `check` flags after which it starts no proxy (a help text, a by-hand session's own front), so none is prespawned
NO_PROXY_FLAGS = frozenset({"--help", "--by-hand"})
HERE = __name__  # the small commands above (`python -m backchannel.proxy.cli` runs this module as __main__)
EXTRA_ARGS = {"allow_extra_args": True, "ignore_unknown_options": True}  # `record ... -- CLIENT ARGV`

# every command, in the order `backchannel --help` lists them
COMMANDS: dict[str, Command] = {
    "serve": Command("backchannel.proxy.scenarios.command", "serve_command"),
    "record": Command("backchannel.proxy.record.command", "record", EXTRA_ARGS),
    "check": Command("backchannel.proxy.check.command", "check_command"),
    "replay": Command("backchannel.proxy.replay.command", "replay_command"),
    "matrix": Command("backchannel.proxy.matrix.command", "matrix_command"),
    "export": Command("backchannel.proxy.share.export", "export_command"),
    "bug-report": Command("backchannel.proxy.share.bug_report", "bug_report_command"),
    "explore": Command("backchannel.proxy.explore.command", "explore_command"),
    "bridge": Command("backchannel.proxy.bridge.command", "bridge_command"),
    "judge": Command("backchannel.proxy.judging.command", "judge_command"),
    "merge-reports": Command("backchannel.proxy.judging.command", "merge_reports_command"),
    "checks": Command(HERE, "list_checks"),
    "scenarios": Command("backchannel.proxy.scenarios.command", "scenarios_command"),
    "agents": Command("backchannel.proxy.agents.command", "agents_command"),
    "show": Command(HERE, "show"),
    "upgrade": Command(HERE, "upgrade"),
}


def _as_group() -> None:
    """(A group's callback: with one command registered, typer would otherwise run it without its name.)"""


def build_app(only: str | None = None) -> typer.Typer:
    """The CLI with every command, or with only the one named (the rest are never imported)."""
    built = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_show_locals=False, help=HELP)
    for name, command in COMMANDS.items():
        if only in (None, name):
            built.command(name, context_settings=command.context_settings or None)(command.load())
    if only is not None:
        built.callback()(_as_group)
    return built


def broken_scenarios() -> list[str]:
    """Why the scenario packages could not be listed when `check` was built with their flags (scenario_flags.py)."""
    from backchannel.proxy.check import scenario_flags

    return list(scenario_flags.BROKEN_SCENARIOS)


def __getattr__(name: str) -> typer.Typer:
    if name == "app":  # the whole app, for tests and tools that walk every command
        return build_app()
    raise AttributeError(name)


def script() -> None:
    """Entry point of the `backchannel` script (and `python -m backchannel.proxy.cli`): `main`, then the fast exit."""
    try:
        main()
    except SystemExit as done:
        _exit_now(done.code)
    _exit_now(0)


def _exit_now(code: object) -> None:
    """End the process as SystemExit would, without the interpreter's teardown of every module and object (a
    tenth to half a second at the end of every command, after its output is written): the atexit handlers run,
    threads that are not daemons are waited for, the standard streams flushed, then the process exits."""
    import atexit
    import os
    import threading

    if code is not None and not isinstance(code, int):  # SystemExit("message"): printed, exit code 1
        print(code, file=sys.stderr)
        code = 1
    # the interpreter's own order: threading's shutdown (its exit hooks, such as an executor's, then every thread
    # that is not a daemon joined), then the atexit handlers
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    else:  # pragma: no cover - CPython has it
        for thread in threading.enumerate():
            if thread is not threading.main_thread() and not thread.daemon:
                thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: what Python's own exit would report as exit code 120
            code = 120 if stream is sys.stdout else code
    os._exit(code or 0)


def main() -> None:
    """The command line: parse, run the command named, end with SystemExit (as a test calling it expects)."""
    from backchannel.proxy.timings import mark

    mark("cli-main")
    named = sys.argv[1] if len(sys.argv) > 1 else None
    only = named if named in COMMANDS else None
    if only == "check" and not NO_PROXY_FLAGS & set(sys.argv[2:]):
        from backchannel.proxy.run import launcher

        launcher.prespawn()  # the proxy's Python imports mitmproxy while this one imports the scenarios and sets up
        try:
            _run(only)
        finally:
            launcher.discard_warm()  # unused: the check failed before its proxy started, or started none
        return
    _run(only)


def _run(only: str | None) -> None:
    app = build_app(only)
    # `check` offers every scenario's flags: without them it would be another command; the rest run regardless
    if only in (None, "check") and (broken := broken_scenarios()):
        err_console.print(f"backchannel: {broken[0]}", markup=False)
        raise SystemExit(2)
    app(prog_name="backchannel")


if __name__ == "__main__":
    script()
