"""How every command of the CLI ends: its two consoles, the one-line failure, a rendered report and its exit code.

Exit codes (DESIGN.md): 0 pass, 1 findings, 2 usage or unreadable input. A command catches only USER_ERRORS (the
tool's own error tree and OSError) and says in one line what happened, to what, and what to do next.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

import typer
from rich.console import Console

from backchannel.recordings.errors import UserError
from backchannel.recordings.safe_text import neutralise

if TYPE_CHECKING:
    from backchannel.oracle.model import Report

out_console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)

# every package's own errors share the root UserError (recordings/errors.py): RecordingError, CaptureError,
# ProxyError, PlanError, CheckError, ScenarioError, ReplayError; so catching them here imports none of the packages
USER_ERRORS = (UserError, OSError)


def fail(message: str, code: int = 2) -> typer.Exit:
    # messages quote paths, recordings and client output: escape control, escape and bidi characters once, here
    err_console.print(f"backchannel: {neutralise(message)}", markup=False)
    return typer.Exit(code)


def render_and_exit(report: Report, fmt: str) -> None:
    """Print the report in `fmt` on stdout and end with its exit code."""
    from backchannel.oracle.render import render

    write_out(lambda out: out.write(render(report, fmt)))
    raise typer.Exit(report.exit_code)


def write_out(write: Callable[[IO[str]], object]) -> None:
    """`write` the output to stdout and flush it. A stdout that cannot take it (a full disk, a closed pipe) ends the
    command with one line and exit 2, never a traceback and exit 1: a CI step that accepts exit 1 as "findings"
    would otherwise take a truncated report for a verdict."""
    try:
        write(out_console.file)
        out_console.file.flush()
    except OSError as exc:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - what is left unflushed goes nowhere
        raise fail(f"cannot print the output ({exc.strerror or exc}); what was printed of it is incomplete") from None
