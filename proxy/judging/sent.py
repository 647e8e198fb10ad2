"""What a worker sends the parent for one judged recording: only what the corpus output it makes will read.

A whole report crosses processes as a pickle of nested dicts (about 20 KB of JSON a recording) and then stays in
the parent until the output is written: for thousands of recordings that was most of the parent's memory and a good
part of its time. So the worker sends one of four shapes:

  report   the report's dict, whole (for callers that ask for it)
  json     a JsonReport: the report's JSON text, for a corpus JSON document to splice in, and the fields it counts
  summary  what the text output shows: the counts, the exit code and the results that need a look
  sarif    the counts and exit code, and what the recording adds to a corpus SARIF log (`part`): made
           in the worker, in parallel, where the parent made it for every report after the last

With `statuses`, json, summary and sarif also carry every result's scenario, check id and status: what a baseline
judges.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from typing import Any

from backchannel.oracle.render.from_json import report_from_dict
from backchannel.oracle.render.sarif import sarif_log
from backchannel.recordings.safe_text import neutralise_json

SHAPES = ("report", "json", "summary", "sarif")
LISTED_KINDS = ("fail", "open")  # what a corpus SARIF log lists: FAIL and WARN are kind fail, ERROR open
SHOWN = ("FAIL", "ERROR", "WARN")  # statuses the text output lists one per line; a PASS or SKIP is only counted
COUNTED_FIELDS = ("summary", "exit_code")  # what a corpus counts of every report
_IDENTITY = ("scenario", "id", "status")  # what a baseline reads of every result
_LISTED = ("id", "scenario", "status", "verdict", "subject", "message")  # what the text output prints of one
MESSAGE_CHARS = 200  # of a message the text output prints (summary.py); one more says whether it was cut


class JsonReport(Mapping[str, Any]):
    """One report as the JSON text a corpus document prints for it, made in the worker, with the fields a corpus
    counts (its summary and exit code, and with `statuses` every result's identity) readable as in the report's
    dict. The parent then neither unpickles the whole report nor encodes it again.

    The text is neutralised here too (safe_text.neutralise_json: one character at a time, so a part neutralised
    alone reads as it would inside the whole document)."""

    __slots__ = ("_counted", "text")

    def __init__(self, report: Mapping[str, Any], *, statuses: bool = False) -> None:
        self.text = neutralise_json(json.dumps(report, ensure_ascii=False))
        self._counted = counted(report)
        if statuses:
            self._counted["results"] = identities(report)

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


def counted(report: Mapping[str, Any]) -> dict[str, Any]:
    """What a corpus counts of a report: its summary and exit code."""
    return {key: report[key] for key in COUNTED_FIELDS if key in report}


def identities(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every result's scenario, check id and status, in report order."""
    return [_identity(result) for result in _results(report)]


def _identity(result: Any) -> dict[str, Any]:
    return {key: result.get(key) for key in _IDENTITY}


def summary_report(report: Mapping[str, Any], *, statuses: bool = False) -> dict[str, Any]:
    """The part of a report the text output reads: counts, exit code, and of each result it lists what it prints
    of it; with `statuses`, every other result's identity too, in report order (the text skips them by status)."""
    out = counted(report)
    out["results"] = [
        _listed(result) if result.get("status") in SHOWN else _identity(result)
        for result in _results(report)
        if statuses or result.get("status") in SHOWN
    ]
    return out


def _listed(result: Any) -> dict[str, Any]:
    listed = {key: result[key] for key in _LISTED if key in result}
    if isinstance(listed.get("message"), str):
        listed["message"] = listed["message"][: MESSAGE_CHARS + 1]
    return listed


class SarifReport(dict[str, Any]):
    """A report as a worker sends it for a corpus SARIF log: its counts and exit code (and with `statuses` every
    result's identity) and, under `sarif`, what it adds to the log. Its own type, so that the log trusts only what a
    worker made, never a member of that name in a report read from a file (`merge-reports`)."""


def part(report: Mapping[str, Any], name: str) -> dict[str, Any]:
    """What one judged recording adds to a corpus SARIF log: its SARIF run's properties, rules and the results that
    need a look, located in it by `name`. Made by the worker that judged it, in parallel, or by the corpus log from
    a report's dict (merge-reports, and callers that hold whole reports)."""
    named = dataclasses.replace(report_from_dict(report, where=name), recording=name)
    run: dict[str, Any] = sarif_log(named)["runs"][0]  # type: ignore[index]  # plain data sarif_log just built
    return {
        "tool_version": named.tool_version,
        "properties": run["properties"],
        "rules": run["tool"]["driver"]["rules"],
        "results": [result for result in run["results"] if result["kind"] in LISTED_KINDS],
    }


def sarif_report(report: Mapping[str, Any], name: str, *, statuses: bool = False) -> SarifReport:
    """The counts and exit code, what the recording adds to a corpus SARIF log, and with `statuses` every result's
    identity."""
    out = SarifReport(counted(report))
    out["sarif"] = part(report, name)
    if statuses:
        out["results"] = identities(report)
    return out


def shaped(report: Mapping[str, Any], shape: str, *, statuses: bool = False, name: str = "") -> Mapping[str, Any]:
    """`report` (a report's dict) in the shape the parent asked for; `name`: the recording's, as the output names
    it (the sarif shape locates its results in it)."""
    if shape == "json":
        return JsonReport(report, statuses=statuses)
    if shape == "summary":
        return summary_report(report, statuses=statuses)
    if shape == "sarif":
        return sarif_report(report, name, statuses=statuses)
    if shape == "report":
        return report
    raise ValueError(f"unknown shape {shape!r}; one of {', '.join(SHAPES)}")


def _results(report: Mapping[str, Any]) -> list[Any]:
    results = report.get("results", [])
    return results if isinstance(results, list) else []
