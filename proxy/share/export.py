"""`backchannel export FILE --format har|mitm|sqlite`: a recording (or some of its runs) in a shareable form, redacted.

The lead registers `export_command` in proxy/cli.py; everything it needs is here.
Default `--out`: beside FILE, its name with the format's suffix (`rec.har`, `rec.mitm`, `rec.export.sqlite`);
an existing file is never overwritten (exit 2). A `sqlite` export keeps a person's screenshots (`check --by-hand`)
as given, and stderr says so; `--no-screenshots` leaves them out (HAR and mitm hold none).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from backchannel.proxy.share.files import ShareError, publish
from backchannel.proxy.share.flows import client_flows
from backchannel.proxy.share.har import har_text
from backchannel.proxy.share.mitm import write_mitm
from backchannel.proxy.share.redaction import ExportPolicy, export_policy, summary_lines
from backchannel.proxy.share.screenshots import screenshot_lines, screenshots_in
from backchannel.recordings import load, redact
from backchannel.recordings.errors import RecordingError
from backchannel.recordings.model import Recording
from backchannel.recordings.safe_text import neutralise
from backchannel.recordings.trim import trim_copy

FORMATS = ("har", "mitm", "sqlite")
SUFFIX = {"har": ".har", "mitm": ".mitm", "sqlite": ".export.sqlite"}


@dataclass(frozen=True, slots=True)
class Exported:
    """What one export wrote and what it redacted (kind -> name -> count; never a value)."""

    out: Path
    flows: int
    counts: dict[str, dict[str, int]]
    policy: ExportPolicy
    screenshots: tuple[str, ...] = ()  # what stderr says about a person's screenshots (a sqlite export only)

    def lines(self) -> list[str]:
        return [*summary_lines(self.counts, self.policy), *self.screenshots, f"wrote {self.out}"]


def default_out(file: Path, fmt: str) -> Path:
    return file.with_name(file.stem + SUFFIX[fmt]) if file.suffix else file.with_name(file.name + SUFFIX[fmt])


def load_recording(file: Path) -> Recording:
    try:
        return load(file)
    except RecordingError as exc:
        raise ShareError(str(exc)) from exc


def choose_runs(rec: Recording, wanted: Sequence[str]) -> list[str] | None:
    """The ids of the runs named by id, name or ordinal; None when none are named (every run)."""
    if not wanted:
        return None
    chosen: list[str] = []
    for name in wanted:
        found = [r.id for r in rec.runs if name in (r.id, r.name, str(r.ordinal))]
        if not found:
            known = ", ".join(f"{r.name} ({r.id})" for r in rec.runs) or "none"
            raise ShareError(f"no run {name!r} in {rec.path}; its runs: {known}")
        chosen.extend(run_id for run_id in found if run_id not in chosen)
    return chosen


def export(
    file: Path,
    fmt: str,
    *,
    runs: Sequence[str] = (),
    out: Path | None = None,
    patterns: Sequence[str] = (),
    screenshots: bool = True,
) -> Exported:
    """Export `file` as `fmt` into `out` (default: beside it), redacted with its own patterns and `patterns`;
    without `screenshots`, a sqlite copy holds none."""
    if fmt not in FORMATS:
        raise ShareError(f"unknown --format {fmt!r}; valid formats: {', '.join(FORMATS)}")
    rec = load_recording(file)  # proves it is a readable recording before anything is written
    run_ids = choose_runs(rec, runs)
    target = out if out is not None else default_out(file, fmt)
    try:
        policy = export_policy(rec.meta, patterns)
        return _write(file, fmt, rec, run_ids, target, policy, screenshots=screenshots)
    except ValueError as exc:  # a bad --redact pattern
        raise ShareError(str(exc)) from exc


def _write(
    file: Path,
    fmt: str,
    rec: Recording,
    run_ids: list[str] | None,
    target: Path,
    policy: ExportPolicy,
    *,
    screenshots: bool,
) -> Exported:
    if fmt == "sqlite":
        try:
            summary = trim_copy(file, target, run_ids, policy.redaction, screenshots=screenshots)
        except RecordingError as exc:
            raise ShareError(str(exc)) from exc
        kept = sum(1 for x in rec.exchanges if run_ids is None or x.run_id in run_ids)
        said = screenshot_lines(screenshots_in(rec, run_ids), kept=screenshots)
        return Exported(target, kept, {k: dict(v) for k, v in summary.counts.items()}, policy, tuple(said))
    with redact.applying(redact.Redactor(policy.redaction)) as redactor:  # this export's policy, and its tally
        flows = client_flows(rec, run_ids)
    if fmt == "har":
        text = har_text(flows).encode("utf-8", "surrogateescape")
        publish(target, lambda handle: handle.write(text))
    else:
        publish(target, lambda handle: write_mitm(flows, handle))
    return Exported(target, len(flows), redactor.tally(), policy)


def fail(message: str) -> typer.Exit:
    # one line, and nothing a recording put in it (a run's name, a path) may drive the terminal
    print(neutralise(f"backchannel: {message}".replace("\n", " ")), file=sys.stderr, flush=True)
    return typer.Exit(2)


def export_command(
    file: Annotated[Path, typer.Argument(help="The recording to export (.sqlite).")],
    fmt: Annotated[str, typer.Option("--format", help="har (HTTP Archive 1.2), mitm (mitmproxy flows) or sqlite.")],
    run: Annotated[
        list[str] | None, typer.Option("--run", help="Only this run (id, name or ordinal); repeatable. Default: all.")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Where to write (default: beside FILE, .har / .mitm / .export.sqlite); never overwritten."),
    ] = None,
    redact_names: Annotated[
        list[str] | None,
        typer.Option("--redact", help="Also redact names matching this regular expression; repeatable."),
    ] = None,
    no_screenshots: Annotated[
        bool,
        typer.Option(
            "--no-screenshots",
            help="Leave a person's screenshots out of a sqlite export (redaction cannot read images).",
        ),
    ] = False,
) -> None:
    """Export a recording as HAR, mitmproxy flows or a trimmed SQLite copy, redacted; stderr says what was redacted."""
    try:
        done = export(file, fmt, runs=run or (), out=out, patterns=redact_names or (), screenshots=not no_screenshots)
    except ShareError as exc:
        raise fail(str(exc)) from exc
    except OSError as exc:
        raise fail(f"cannot write the export: {exc.strerror or exc}") from exc
    for line in done.lines():
        print(neutralise(line), file=sys.stderr, flush=True)
