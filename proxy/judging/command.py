"""`judge PATH...` and `merge-reports` end to end: inputs -> shard -> judge in parallel -> diff, store, baseline ->
one text or JSON output and the exit code. The two typer commands at the end only parse flags and print."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from backchannel.oracle import judge
from backchannel.oracle.render import FORMATS
from backchannel.oracle.render.from_json import ReportShapeError
from backchannel.proxy.cli_output import USER_ERRORS, err_console, fail, out_console, render_and_exit
from backchannel.recordings import load
from backchannel.recordings.safe_text import neutralise

from . import baseline as baseline_mod
from . import corpus, diff, inputs, merge, shard, summary
from .corpus_sarif import render_corpus_sarif
from .parallel import Outcome, default_jobs, judge_all, tasks_for
from .progress import progress_bar

CORPUS_FORMATS = ("text", "json", "sarif")
ERRORS = (
    baseline_mod.BaselineError,
    shard.ShardError,
    merge.MergeError,
    ReportShapeError,
)  # each a one-line message: exit 2
__all__ = [
    "CORPUS_FORMATS",
    "ERRORS",
    "default_jobs",
    "judge_command",
    "judge_many",
    "merge_reports",
    "merge_reports_command",
    "one_recording",
    "progress_bar",
]
Progress = Callable[[int], AbstractContextManager[Callable[[], None]]]  # total -> a context giving `advance`


@dataclass(frozen=True, slots=True)
class Output:
    text: str
    exit_code: int


def one_recording(arguments: list[str]) -> bool:
    """One argument that is not a folder or a glob: judged as it always was, one report in any format."""
    if len(arguments) != 1:
        return False
    path = Path(arguments[0])
    return not path.is_dir() and (path.exists() or not inputs.has_magic(arguments[0]))


def _no_progress(total: int) -> AbstractContextManager[Callable[[], None]]:
    return nullcontext(lambda: None)


def _diff_entry(outcome: Outcome) -> dict[str, Any]:
    if outcome.stored_error is not None:
        return {"stored": None, "error": outcome.stored_error}
    if outcome.stored is None or outcome.report is None:
        return {"stored": None}
    found = diff.changes(outcome.stored.document, outcome.report)
    return {"stored_oracle_version": outcome.stored.oracle_version, "changes": [c.as_dict() for c in found]}


def _diff_lines(item: dict[str, Any]) -> list[str]:
    said = item.get("diff")
    if said is None or "report" not in item:
        return []
    head = f"{item['name']}: "
    if "error" in said:
        return [head + f"stored report unreadable: {said['error']}"]
    if said.get("stored") is None and "changes" not in said:
        return [head + "no stored report (write one with --store)"]
    changes = [diff.Change(**c) for c in said["changes"]]
    version = f"stored by oracle {said['stored_oracle_version']}"
    if not changes:
        return [head + f"unchanged since the stored report ({version})"]
    return [head + f"{len(changes)} change(s) since the stored report ({version})"] + [c.line() for c in changes]


def finish(
    entries: list[dict[str, Any]], fmt: str, expected: tuple[str, ...] | None, extra: dict[str, Any] | None = None
) -> Output:
    """The output for judged (or merged) entries: the corpus document or text, with the baseline's say if any."""
    code = corpus.exit_code(entries)
    verdict = baseline_mod.apply(expected, entries) if expected is not None else None
    if verdict is not None and code != 2:
        code = verdict.exit_code  # the baseline decides pass or fail; a recording that could not be read still 2
    more = dict(extra or {})
    if verdict is not None:
        more["baseline"] = baseline_mod.as_dict(verdict)
    if fmt == "sarif":  # one run, an artifact per recording (corpus_sarif.py); the baseline in its properties
        return Output(render_corpus_sarif(entries, code, more), code)
    if fmt == "json":
        doc = corpus.document(entries, extra=more)
        doc["exit_code"] = code
        return Output(corpus.render_document(doc), code)
    text = summary.render_text(entries, code)
    diffs = [line for item in entries for line in _diff_lines(item)]
    if diffs:
        text += "\n" + "\n".join(neutralise(line) for line in diffs) + "\n"
    if verdict is not None:
        text += "\n" + "\n".join(neutralise(line) for line in baseline_mod.lines(verdict)) + "\n"
    return Output(text, code)


def judge_many(
    arguments: list[str],
    *,
    fmt: str = "text",
    jobs: int = 1,
    show_diff: bool = False,
    store: bool = False,
    baseline: Path | None = None,
    shard_spec: str | None = None,
    progress: Progress = _no_progress,
) -> Output:
    """Judge every recording the arguments name (or this shard's part of them) and say so in one output."""
    expected = baseline_mod.load_baseline(baseline) if baseline is not None else None  # a bad baseline: before work
    found = inputs.expand(arguments)
    extra: dict[str, Any] = {}
    if shard_spec is not None:
        k, n = shard.parse_shard(shard_spec)
        found = shard.select(found, k, n)
        extra["shard"] = f"{k}/{n}"
    # a JSON document with no diff and no baseline reads only each report's text, summary and exit code: the
    # workers encode the reports (corpus.render_document splices them in)
    as_json = fmt == "json" and not show_diff and expected is None
    tasks = tasks_for(found, read_stored=show_diff, store=store, as_json=as_json)
    entries = []
    with progress(len(tasks)) as advance:
        for outcome in judge_all(tasks, jobs, advance):
            item = corpus.entry(outcome)
            if show_diff:
                item["diff"] = _diff_entry(outcome)
            entries.append(item)
    return finish(entries, fmt, expected, extra)


def merge_reports(paths: list[Path], *, fmt: str = "json", baseline: Path | None = None) -> Output:
    """Several judge JSON outputs as one document (or text), with the aggregated exit code."""
    expected = baseline_mod.load_baseline(baseline) if baseline is not None else None
    return finish(merge.merge(paths), fmt, expected)


_BASELINE_HELP = "YAML whose expected-failures lists scenario or scenario:check-id."


def _print_and_exit(output: Output) -> None:
    out_console.file.write(output.text)
    out_console.file.flush()
    raise typer.Exit(output.exit_code)


def judge_command(
    recordings: Annotated[
        list[str], typer.Argument(help="Recordings: .sqlite files, folders (searched for *.sqlite) or globs.")
    ],
    fmt: Annotated[
        str,
        typer.Option(
            "--format", help="Report format: text, json, junit or sarif (many recordings: text, json or sarif)."
        ),
    ] = "text",
    jobs: Annotated[int, typer.Option(help="Processes judging at once; 0: one per CPU.", min=0)] = 0,
    diff: Annotated[
        bool, typer.Option("--diff", help="Show what changed since each recording's stored report.")
    ] = False,
    store: Annotated[bool, typer.Option("--store", help="Store today's report in each recording.")] = False,
    baseline: Annotated[Path | None, typer.Option(help=_BASELINE_HELP)] = None,
    shard: Annotated[str | None, typer.Option(help="Judge only shard K of N (K/N), the same on every machine.")] = None,
) -> None:
    """Judge recordings offline: one prints its report exactly as `check` did; many, in parallel, a summary."""
    if fmt not in FORMATS:
        raise fail(f"unknown --format {fmt!r}; valid formats: {', '.join(FORMATS)}")
    if one_recording(recordings) and not (diff or store or baseline or shard):  # exactly as before
        try:
            report = judge(load(recordings[0]))
        except USER_ERRORS as exc:
            raise fail(str(exc)) from exc
        render_and_exit(report, fmt)
    if fmt not in CORPUS_FORMATS:
        raise fail(
            f"--format {fmt} renders one recording; for many (or with --diff, --store, --baseline, --shard)"
            f" use {', '.join(CORPUS_FORMATS[:-1])} or {CORPUS_FORMATS[-1]}"
        )
    try:
        output = judge_many(
            recordings,
            fmt=fmt,
            jobs=jobs or default_jobs(),
            show_diff=diff,
            store=store,
            baseline=baseline,
            shard_spec=shard,
            progress=progress_bar(err_console),
        )
    except (*USER_ERRORS, *ERRORS) as exc:
        raise fail(str(exc)) from exc
    _print_and_exit(output)


def merge_reports_command(
    reports: Annotated[list[Path], typer.Argument(help="`judge --format json` outputs (shards or single reports).")],
    fmt: Annotated[str, typer.Option("--format", help="Output format: json, text or sarif.")] = "json",
    baseline: Annotated[Path | None, typer.Option(help=_BASELINE_HELP)] = None,
) -> None:
    """Merge the JSON outputs of several `judge` runs into one document, with the aggregated exit code."""
    if fmt not in CORPUS_FORMATS:
        raise fail(f"unknown --format {fmt!r}; valid formats: {', '.join(CORPUS_FORMATS)}")
    try:
        output = merge_reports(reports, fmt=fmt, baseline=baseline)
    except (*USER_ERRORS, *ERRORS) as exc:
        raise fail(str(exc)) from exc
    _print_and_exit(output)
