"""Judging many recordings across cores: a process pool (fork: workers inherit the loaded checks and schemas),
results in input order whatever order they finish in, a progress callback per recording."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from backchannel.oracle import ORACLE_VERSION, all_checks, judge
from backchannel.oracle.registry import ScenarioError
from backchannel.oracle.render import render
from backchannel.oracle.render.json_report import report_dict
from backchannel.recordings import load
from backchannel.recordings.errors import RecordingError
from backchannel.recordings.model import Recording
from backchannel.recordings.reports import StoredReport, store_report, stored_report

from . import diff
from .cache import JudgeCache, file_state, oracle_fingerprint, recording_key
from .inputs import Input
from .pool import in_order
from .sent import JsonReport, shaped

__all__ = ["JsonReport", "Outcome", "Task", "default_jobs", "judge_all", "run_task", "tasks_for"]


@dataclass(frozen=True, slots=True)
class Task:
    """What to do with one recording: judge it; also read its stored report, and/or store today's."""

    path: str
    name: str  # how the output names it: the path as the user's argument led to it
    read_stored: bool = False  # and say what changed since the report stored in it (`judge --diff`)
    store: bool = False
    shape: str = "report"  # what of the report the parent reads (sent.py): report, json, summary or sarif
    statuses: bool = False  # with json, summary or sarif: every result's scenario, id and status (a baseline's)
    cache: str | None = None  # `judge --cache DIR`: a report kept from an earlier judging of the same bytes (cache.py)
    problem: str | None = None  # why it cannot be judged, known before it is opened (inputs.Input.problem)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One recording's result: its report (as JSON data, in the task's shape), or why it could not be judged; what
    changed since its stored report when asked for (made here, where the whole report is at hand)."""

    name: str
    report: Mapping[str, Any] | None = None
    error: str | None = None
    diff: Mapping[str, Any] | None = None
    cached: bool = False  # the report was read from `--cache`, not judged


def run_task(task: Task) -> Outcome:
    """Judge one recording. Every failure is an Outcome naming it, so one hostile file never stops a corpus."""
    unjudged = {"stored": None} if task.read_stored else None
    if task.problem is not None:
        return Outcome(task.name, error=task.problem, diff=unjudged)
    cached = _cached(task)
    if cached is not None:
        said = cached.cache.get(cached.key)
        if said is not None:
            try:
                shown = shaped(said, task.shape, statuses=task.statuses, name=task.name)
                return Outcome(task.name, report=shown, cached=True)
            except Exception:  # noqa: BLE001, S110 - an entry that is not a report this oracle makes: a miss
                pass
    try:
        rec = load(task.path)
        report = judge(rec)
    except (RecordingError, OSError) as exc:
        return Outcome(task.name, error=str(exc), diff=unjudged)
    except ScenarioError:  # the checks could not be loaded (a cached run loads them at its first miss): no file's fault
        raise
    except Exception as exc:  # a check that breaks on a hostile file: said for this file, the rest still judged
        error = f"{task.path}: the oracle failed on it ({type(exc).__name__}: {exc})"
        return Outcome(task.name, error=error, diff=unjudged)
    said = report_dict(report)
    if cached is not None and file_state(task.path) == cached.state:  # not rewritten meanwhile
        cached.cache.put(cached.key, said)
    changed = _changes(rec, said) if task.read_stored else None
    sent = shaped(said, task.shape, statuses=task.statuses, name=task.name)
    if task.store:
        try:
            store_report(task.path, render(report, "json"), ORACLE_VERSION)
        except (RecordingError, OSError) as exc:
            return Outcome(task.name, report=sent, error=f"cannot store its report: {exc}", diff=changed)
    return Outcome(task.name, report=sent, diff=changed)


class _Cached(NamedTuple):
    cache: JudgeCache
    key: str  # the recording's entry
    state: tuple[int, int, int]  # the file's, when it was hashed (cache.file_state)


def _cached(task: Task) -> _Cached | None:
    """The cache this task may read and fill, the recording's key in it, and the file's state when it was hashed;
    None when it has none. Never with --diff (it reads the stored report from the recording) or --store (it writes
    into the recording), nor for a file that is not a regular one, is left open or cannot be read (the judging says
    why)."""
    if task.cache is None or task.read_stored or task.store:
        return None
    before = file_state(task.path)
    if before is None:
        return None
    try:
        key = recording_key(task.path)
    except OSError:
        return None
    return None if key is None else _Cached(JudgeCache(Path(task.cache), oracle_fingerprint()), key, before)


def _changes(rec: Recording, said: Mapping[str, Any]) -> dict[str, Any]:
    """What changed since the report the recording stores (`judge --diff`), or why that cannot be said."""
    try:
        stored: StoredReport | None = stored_report(rec)
    except RecordingError as exc:
        return {"stored": None, "error": str(exc)}
    if stored is None:
        return {"stored": None}
    found = diff.changes(stored.document, said)
    return {"stored_oracle_version": stored.oracle_version, "changes": [c.as_dict() for c in found]}


def default_jobs() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def tasks_for(
    inputs: list[Input],
    *,
    read_stored: bool = False,
    store: bool = False,
    shape: str = "report",
    statuses: bool = False,
    cache: Path | None = None,
) -> list[Task]:
    folder = None
    if cache is not None and not (read_stored or store):  # CacheError: the cache cannot be used
        folder = str(JudgeCache.open(cache).root)
    return [Task(str(i.path), str(i.path), read_stored, store, shape, statuses, folder, i.problem) for i in inputs]


def judge_all(tasks: list[Task], jobs: int, advance: Callable[[], None] = lambda: None) -> Iterator[Outcome]:
    """Every task's outcome, in task order; `jobs` workers (1: in this process, no pool at all)."""
    if not all(task.cache for task in tasks):
        # import every scenario's checks here, once, so forked workers start with them loaded. A cached run does not:
        # a report kept in the cache needs no check, and importing them all is a fifth of a second; each worker
        # imports them at its first miss (a ScenarioError then ends the run as it would here)
        all_checks()
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield run_task(task)
            advance()
        return
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    workers = min(jobs, len(tasks))
    size = chunk_size(len(tasks), workers)
    judged = in_order(tasks, run_task, _died, workers=workers, size=size, context=multiprocessing.get_context(method))
    for outcome in judged:  # a worker that dies is survived there (pool.py): only its own recording is lost
        yield outcome
        advance()


def chunk_size(tasks: int, workers: int) -> int:
    """Recordings sent to a worker at a time: big enough to amortise IPC, small enough to balance."""
    return max(1, min(32, tasks // (workers * 8)))


def _died(task: Task) -> Outcome:
    return Outcome(task.name, error=f"{task.path}: the process judging it died (killed, or out of memory)")
