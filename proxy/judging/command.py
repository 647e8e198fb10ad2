"""`judge PATH...` and `merge-reports` end to end: inputs -> shard -> judge in parallel -> diff, store, baseline ->
one text or JSON output and the exit code. The two typer commands at the end only parse flags and print."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Annotated, Any

import typer

from backchannel.oracle import judge
from backchannel.oracle.render import FORMATS
from backchannel.oracle.render.from_json import ReportShapeError
from backchannel.proxy.cli_output import USER_ERRORS, err_console, fail, render_and_exit, write_out
from backchannel.recordings import load
from backchannel.recordings.safe_text import neutralise

from . import baseline as baseline_mod
from . import corpus, diff, inputs, merge, sent, shard, summary
from .cache import CacheError
from .corpus_sarif import CorpusLog, render_corpus_sarif
from .parallel import Task, default_jobs, judge_all, tasks_for
from .progress import progress_bar
from .spool import Spool, SpoolError

CORPUS_FORMATS = ("text", "json", "sarif")
STREAMED = ("json", "text")  # formats spooled as each recording is judged (SARIF's log is made as they come)
SHAPE_OF = {"json": "json", "text": "summary", "sarif": "sarif"}  # what each format's workers send (sent.py)
ERRORS = (
    baseline_mod.BaselineError,
    shard.ShardError,
    merge.MergeError,
    ReportShapeError,
    SpoolError,
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
    """What a command prints, and its exit code: `text` whole, or for a corpus judged as a stream, `text` (the part
    before the recordings), the recordings' parts spooled as each was judged, then `tail`."""

    text: str
    exit_code: int
    spooled: Spool | None = None
    tail: str = ""

    def write(self, out: IO[str]) -> None:
        out.write(self.text)
        if self.spooled is not None:
            self.spooled.copy_to(out)
        out.write(self.tail)

    def whole(self) -> str:
        """Everything it prints, as one string."""
        return self.text + (self.spooled.read() if self.spooled is not None else "") + self.tail

    def close(self) -> None:
        if self.spooled is not None:
            self.spooled.close()


def one_recording(arguments: list[str]) -> bool:
    """One argument that is not a folder or a glob: judged as it always was, one report in any format."""
    if len(arguments) != 1:
        return False
    path = Path(arguments[0])
    return not path.is_dir() and (path.exists() or not inputs.has_magic(arguments[0]))


def _no_progress(total: int) -> AbstractContextManager[Callable[[], None]]:
    return nullcontext(lambda: None)


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
    entries: list[dict[str, Any]],
    fmt: str,
    expected: tuple[str, ...] | None,
    extra: dict[str, Any] | None = None,
    spooled: Spool | None = None,
    verdict: baseline_mod.Verdict | None = None,
    log: CorpusLog | None = None,
) -> Output:
    """The output for judged (or merged) entries: the corpus document or text, with the baseline's say if any.
    With `spooled`, every recording's part of it is in the spool already and `entries` keep only what the rest
    reads (names, counts, exit codes, a diff when asked for), and a baseline's `verdict` is made as they came; with
    `log`, the SARIF log was made as they came too."""
    code = corpus.exit_code(entries)
    if verdict is None and expected is not None:
        verdict = baseline_mod.apply(expected, entries)
    if verdict is not None and code != 2:
        code = verdict.exit_code  # the baseline decides pass or fail; a recording that could not be read still 2
    more = dict(extra or {})
    if verdict is not None:
        more["baseline"] = baseline_mod.as_dict(verdict)
    if fmt == "sarif":  # one run, an artifact per recording (corpus_sarif.py); the baseline in its properties
        return Output(render_corpus_sarif(entries, code, more, log), code)
    if fmt == "json":
        doc = corpus.document(entries, extra=more)
        doc["exit_code"] = code
        if spooled is None:
            return Output(corpus.render_document(doc), code)
        head = corpus.head_text({key: value for key, value in doc.items() if key != "recordings"})
        if spooled.empty:
            return Output(head + corpus.NO_RECORDINGS, code, spooled)
        return Output(head + corpus.RECORDINGS_OPEN, code, spooled, corpus.RECORDINGS_CLOSE)
    body = "" if spooled is not None else "\n".join(summary.recording_text(item) for item in entries)
    tail = summary.closing_text(entries, code)
    diffs = [line for item in entries for line in _diff_lines(item)]
    # each one line, whatever a name, an error or a stored report holds (summary.one_line)
    if diffs:
        tail += "\n" + "\n".join(neutralise(summary.one_line(line)) for line in diffs) + "\n"
    if verdict is not None:
        tail += "\n" + "\n".join(neutralise(summary.one_line(line)) for line in baseline_mod.lines(verdict)) + "\n"
    return Output(body, code, spooled, tail) if spooled is not None else Output(body + tail, code)


def _kept(item: dict[str, Any]) -> dict[str, Any]:
    """What the end of a streamed output still reads of a recording whose part is spooled: its name, counts and
    exit code, why it was not judged, its diff (the report's text and the results it lists are printed already)."""
    kept = {key: value for key, value in item.items() if key != "report"}
    report = item.get("report")
    if report is not None:
        kept["report"] = sent.counted(report)
    return kept


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
    cache: Path | None = None,
) -> Output:
    """Judge every recording the arguments name (or this shard's part of them) and say so in one output.

    JSON and text are streamed: each recording's part is written to a spool as it is judged. SARIF's log is made
    as they come (at most MAX_RESULTS results are kept). The workers send only what the output shows (sent.py), so
    the parent's memory does not grow with the reports of the corpus."""
    expected = baseline_mod.load_baseline(baseline) if baseline is not None else None  # a bad baseline: before work
    found = inputs.expand(arguments)
    extra: dict[str, Any] = {}
    if shard_spec is not None:
        k, n = shard.parse_shard(shard_spec)
        found = shard.select(found, k, n)
        extra["shard"] = f"{k}/{n}"
    shape = SHAPE_OF.get(fmt, "report")
    cached_in = str(cache) if cache is not None and not (show_diff or store) else None  # as tasks_for uses it
    try:
        tasks = tasks_for(
            found, read_stored=show_diff, store=store, shape=shape, statuses=expected is not None, cache=cache
        )
    except CacheError as exc:  # only slower without it: said, and judged anyway
        print(f"backchannel: {exc}; judging without the cache", file=sys.stderr, flush=True)
        tasks = tasks_for(found, read_stored=show_diff, store=store, shape=shape, statuses=expected is not None)
        cached_in = None
    spooled = Spool() if fmt in STREAMED else None
    log = CorpusLog() if fmt == "sarif" else None
    part = corpus.item_text if fmt == "json" else summary.recording_text
    separator = corpus.SEPARATOR if fmt == "json" else "\n"
    tally = baseline_mod.Tally(expected) if expected is not None else None
    entries: list[dict[str, Any]] = []
    from_cache: list[bool] = []
    try:
        for item in _each_judged(tasks, jobs, progress, show_diff, from_cache):
            if spooled is not None:
                spooled.write((separator if entries else "") + part(item))
            if log is not None:
                log.add(item)
            if tally is not None:
                tally.add(item)
            entries.append(_kept(item))
        if spooled is not None:
            spooled.finish()  # a temporary file that could not be written is said now, before anything is printed
        if cached_in is not None:  # a CI log then shows whether the cache did its job (an empty shard's too)
            print(f"backchannel: {_cache_line(cached_in, from_cache, entries)}", file=sys.stderr, flush=True)
        verdict = tally.result() if tally is not None else None
        return finish(entries, fmt, expected, extra, spooled, verdict, log)
    except BaseException:
        if spooled is not None:
            spooled.close()
        raise


def _cache_line(folder: str, from_cache: list[bool], entries: list[dict[str, Any]]) -> str:
    """How many reports came from the cache, how many were judged, and how many recordings could not be read."""
    kept, total = sum(from_cache), len(entries)
    unread = sum(1 for item in entries if "report" not in item)
    said = f"{kept} of {total} report{'s' if total != 1 else ''} read from the cache ({folder})"
    said += f"; {total - kept - unread} judged"
    return said + (f"; {unread} could not be judged" if unread else "")


def _each_judged(
    tasks: list[Task], jobs: int, progress: Progress, show_diff: bool, from_cache: list[bool]
) -> Iterator[dict[str, Any]]:
    """Each recording's entry as it is judged, in input order; whether its report came from the cache is added to
    `from_cache`."""
    with progress(len(tasks)) as advance:
        for outcome in judge_all(tasks, jobs, advance):
            from_cache.append(outcome.cached)
            item = corpus.entry(outcome)
            if show_diff:
                item["diff"] = outcome.diff  # run_task says it for every task that reads the stored report
            yield item


def merge_reports(paths: list[Path], *, fmt: str = "json", baseline: Path | None = None) -> Output:
    """Several judge JSON outputs as one document (or text), with the aggregated exit code."""
    expected = baseline_mod.load_baseline(baseline) if baseline is not None else None
    return finish(merge.merge(paths), fmt, expected)


_BASELINE_HELP = "YAML whose expected-failures lists scenario or scenario:check-id."
_CACHE_HELP = (
    "Folder keeping each report under the recording's bytes, its path and the oracle's code: an unchanged recording"
    " is not judged again (not with --diff or --store)."
)


def _print_and_exit(output: Output) -> None:
    try:
        write_out(output.write)
    finally:
        output.close()
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
    cache: Annotated[Path | None, typer.Option(help=_CACHE_HELP)] = None,
) -> None:
    """Judge recordings offline: one prints its report exactly as `check` did; many, in parallel, a summary."""
    if fmt not in FORMATS:
        raise fail(f"unknown --format {fmt!r}; valid formats: {', '.join(FORMATS)}")
    if one_recording(recordings) and not (diff or store or baseline or shard or cache):  # exactly as before
        try:
            report = judge(load(recordings[0]))
        except USER_ERRORS as exc:
            raise fail(str(exc)) from exc
        render_and_exit(report, fmt)
    if fmt not in CORPUS_FORMATS:
        raise fail(
            f"--format {fmt} renders one recording; for many (or with --diff, --store, --baseline, --shard, --cache)"
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
            cache=cache,
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
