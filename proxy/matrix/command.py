"""`backchannel matrix PATH... --out DIR`: judge recordings and write the clients × checks site.

The lead registers `matrix_command` in proxy/cli.py; everything it needs is here, so cli.py stays thin.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from backchannel.oracle import Report, judge
from backchannel.proxy.judging.inputs import Input, expand
from backchannel.recordings.errors import RecordingError
from backchannel.recordings.model import Recording
from backchannel.recordings.reader import load
from backchannel.recordings.safe_text import neutralise

from .model import build
from .render import SiteError, write_site


def _fail(message: str) -> typer.Exit:
    # one line, and nothing a path or a recording put in it may drive the terminal
    print(neutralise(f"backchannel: {message}".replace("\n", " ")), file=sys.stderr, flush=True)
    return typer.Exit(2)


def _judged(inputs: list[Input]) -> Iterator[tuple[Input, Recording, Report]]:
    for item in inputs:
        if item.problem is not None:  # a folder that could not be read
            raise RecordingError(item.problem)
        rec = load(item.path)  # its errors name the file already
        yield item, rec, judge(rec)


def build_site(paths: list[str], out: Path) -> list[Path]:
    """Judge every recording the paths name and write the site into `out`; the files written, index first."""
    return write_site(build(list(_judged(expand(paths)))), out)


def matrix_command(
    paths: Annotated[
        list[str],
        typer.Argument(metavar="PATH...", help="Recordings: files, folders (searched for *.sqlite) or globs."),
    ],
    out: Annotated[Path, typer.Option(help="The folder to write the site into (new, empty, or a previous matrix).")],
) -> None:
    """Build a static site: clients × checks, each cell linking to its case with the requirement and evidence."""
    try:
        written = build_site(paths, out)
    except (RecordingError, SiteError, OSError) as exc:
        raise _fail(str(exc)) from exc
    print(neutralise(f"wrote {len(written) - 2} case pages to {out / 'index.html'}"), flush=True)
