"""`judge PATH...` and `merge-reports` end to end, minus the terminal: inputs -> shard -> judge in parallel ->
diff, store, baseline -> one text or JSON output and the exit code. The CLI only parses flags and prints."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backchannel.recordings.safe_text import neutralise

from . import baseline as baseline_mod
from . import corpus, diff, inputs, merge, shard, summary
from .parallel import Outcome, default_jobs, judge_all, tasks_for
from .progress import progress_bar

CORPUS_FORMATS = ("text", "json")
ERRORS = (baseline_mod.BaselineError, shard.ShardError, merge.MergeError)  # each a one-line message: exit 2
__all__ = ["CORPUS_FORMATS", "ERRORS", "default_jobs", "judge_many", "merge_reports", "one_recording", "progress_bar"]
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
    tasks = tasks_for(found, read_stored=show_diff, store=store)
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
