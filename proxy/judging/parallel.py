"""Judging many recordings across cores: a process pool (fork: workers inherit the loaded checks and schemas),
results in input order whatever order they finish in, a progress callback per recording."""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from backchannel.oracle import ORACLE_VERSION, all_checks, judge
from backchannel.oracle.render import render
from backchannel.oracle.render.json_report import report_dict
from backchannel.recordings import load
from backchannel.recordings.errors import RecordingError
from backchannel.recordings.reports import StoredReport, store_report, stored_report
from backchannel.recordings.safe_text import neutralise_json

from .inputs import Input


@dataclass(frozen=True, slots=True)
class Task:
    """What to do with one recording: judge it; also read its stored report, and/or store today's."""

    path: str
    name: str  # how the output names it: the path as the user's argument led to it
    read_stored: bool = False
    store: bool = False
    as_json: bool = False  # the report as a JsonReport: for a corpus JSON document, nothing else reads it


class JsonReport(Mapping[str, Any]):
    """One report as the JSON text a corpus document prints for it, made in the worker, with the two fields a corpus
    counts (its summary and exit code) readable as in the report's dict. The parent then neither unpickles the whole
    report nor encodes it again: together about a millisecond per recording, on the cores the workers share.

    The text is neutralised here too (safe_text.neutralise_json: one character at a time, so a part neutralised
    alone reads as it would inside the whole document): run over the whole document in the parent, after every
    worker had finished, it was 0.16 s of a 1,000-recording run that nothing else overlapped."""

    __slots__ = ("_counted", "text")

    def __init__(self, report: Mapping[str, Any]) -> None:
        self.text = neutralise_json(json.dumps(report, ensure_ascii=False))
        self._counted = {key: report[key] for key in ("summary", "exit_code") if key in report}

    def __getitem__(self, key: str) -> Any:
        return self._counted[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._counted)

    def __len__(self) -> int:
        return len(self._counted)

    def __getstate__(self) -> tuple[str, dict[str, Any]]:
        return self.text, self._counted

    def __setstate__(self, state: tuple[str, dict[str, Any]]) -> None:
        self.text, self._counted = state


@dataclass(frozen=True, slots=True)
class Outcome:
    """One recording's result: its report (as JSON data: plain dicts cross processes cheaply), or why it could not be
    judged; its stored report when asked for."""

    name: str
    report: Mapping[str, Any] | None = None
    error: str | None = None
    stored: StoredReport | None = None
    stored_error: str | None = None


def run_task(task: Task) -> Outcome:
    """Judge one recording. Every failure is an Outcome naming it, so one hostile file never stops a corpus."""
    try:
        rec = load(task.path)
        report = judge(rec)
    except (RecordingError, OSError) as exc:
        return Outcome(task.name, error=str(exc))
    except Exception as exc:  # a check that breaks on a hostile file: said for this file, the rest still judged
        return Outcome(task.name, error=f"{task.path}: the oracle failed on it ({type(exc).__name__}: {exc})")
    stored, stored_error = None, None
    if task.read_stored:
        try:
            stored = stored_report(rec)
        except RecordingError as exc:
            stored_error = str(exc)
    said = report_dict(report)
    sent: Mapping[str, Any] = JsonReport(said) if task.as_json else said
    if task.store:
        try:
            store_report(task.path, render(report, "json"), ORACLE_VERSION)
        except (RecordingError, OSError) as exc:
            return Outcome(task.name, report=sent, error=f"cannot store its report: {exc}", stored=stored)
    return Outcome(task.name, report=sent, stored=stored, stored_error=stored_error)


def default_jobs() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def tasks_for(
    inputs: list[Input], *, read_stored: bool = False, store: bool = False, as_json: bool = False
) -> list[Task]:
    return [Task(str(i.path), str(i.path), read_stored, store, as_json) for i in inputs]


def judge_all(tasks: list[Task], jobs: int, advance: Callable[[], None] = lambda: None) -> Iterator[Outcome]:
    """Every task's outcome, in task order; `jobs` workers (1: in this process, no pool at all)."""
    all_checks()  # import every scenario's checks here, once, so forked workers start with them loaded
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield run_task(task)
            advance()
        return
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    workers = min(jobs, len(tasks))
    chunk = max(1, min(32, len(tasks) // (workers * 8)))  # big enough to amortise IPC, small enough to balance
    with multiprocessing.get_context(method).Pool(workers) as pool:
        for outcome in pool.imap(run_task, tasks, chunksize=chunk):
            yield outcome
            advance()
