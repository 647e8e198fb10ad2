"""Many recordings as one SARIF 2.1.0 log: one run, one artifact per recording, each result in its recording.

One run, not one per recording: code scanning takes a log best as a single run of a tool, and a rule (a check id)
is then declared once however many recordings it judged. A corpus log carries the results that need a look (FAIL,
WARN, ERROR); PASS and SKIP are counted in the run's properties (`summary`) but not listed, and past
`MAX_RESULTS` (code scanning refuses a run of more than 25,000) the rest are counted as `results_left_out`, so a
corpus of any size uploads. One recording's SARIF (`judge FILE --format sarif`) lists every result.

Each recording is an artifact named as the corpus names it, so a result's location is the recording it came from.
A recording that could not be judged is an artifact too, with an error notification saying why: it is never
silently absent.
"""

from __future__ import annotations

import json
from typing import Any

from backchannel.oracle import ORACLE_VERSION
from backchannel.oracle.render.sarif import RECORDING_MIME, SCHEMA, SPEC_URI
from backchannel.recordings.safe_text import neutralise_json

from .corpus import totals
from .sent import SarifReport, part

Json = dict[str, Any]
MAX_RESULTS = 25_000  # GitHub code scanning's limit on the results of one run


def _point_at(locations: list[Json], index: int) -> None:
    for location in locations:
        artifact = location.get("physicalLocation", {}).get("artifactLocation")
        if artifact is not None:
            artifact["index"] = index


class CorpusLog:
    """The corpus log made one recording at a time: what it keeps is bounded by the checks (rules), the recordings
    (an artifact each) and MAX_RESULTS, not by the reports."""

    def __init__(self) -> None:
        self.rules: list[Json] = []
        self.rule_index: dict[str, int] = {}
        self.artifacts: list[Json] = []
        self.results: list[Json] = []
        self.notifications: list[Json] = []
        self.tool_version = ""
        self.left_out = 0

    def add(self, item: dict[str, Any]) -> None:
        """One corpus entry: its name and its report (a report's dict, or a worker's SarifReport), or the error
        that kept it from being judged."""
        name = str(item["name"])
        index = len(self.artifacts)
        artifact: Json = {"location": {"uri": name}, "roles": ["analysisTarget"], "mimeType": RECORDING_MIME}
        self.artifacts.append(artifact)
        if "error" in item:
            self.notifications.append(
                {
                    "level": "error",
                    "message": {"text": f"{name}: {item['error']}"},
                    "locations": [{"physicalLocation": {"artifactLocation": {"uri": name, "index": index}}}],
                }
            )
        if "report" not in item:
            artifact["properties"] = {"judged": False}
            return
        report = item["report"]
        made = report["sarif"] if isinstance(report, SarifReport) else part(report, name)  # a worker's, or made here
        self.tool_version = self.tool_version or made["tool_version"]
        artifact["properties"] = {"judged": True, **made["properties"]}
        for rule in made["rules"]:
            if rule["id"] not in self.rule_index:
                self.rule_index[rule["id"]] = len(self.rules)
                self.rules.append(rule)
        for result in made["results"]:
            if len(self.results) >= MAX_RESULTS:
                self.left_out += 1
                continue
            result["ruleIndex"] = self.rule_index[result["ruleId"]]
            _point_at(result["locations"], index)
            self.results.append(result)

    def log(self, entries: list[dict[str, Any]], exit_code: int, extra: dict[str, Any] | None = None) -> Json:
        """The log, with the totals of `entries` (every entry added, whole or as the corpus kept it)."""
        properties: Json = {"summary": totals(entries), "exit_code": exit_code, "results_left_out": self.left_out}
        properties.update(extra or {})
        errors = self.notifications
        return {
            "$schema": SCHEMA,
            "version": "2.1.0",
            "runs": [
                {
                    "tool": {
                        "driver": {
                            "name": "backchannel",
                            "version": self.tool_version or "unknown",
                            "informationUri": SPEC_URI,
                            "rules": self.rules,
                            "properties": {"oracle_version": ORACLE_VERSION},
                        }
                    },
                    "invocations": [{"executionSuccessful": not errors, "toolExecutionNotifications": errors}],
                    "artifacts": self.artifacts,
                    "results": self.results,
                    "properties": properties,
                }
            ],
        }


def corpus_sarif(entries: list[dict[str, Any]], exit_code: int, extra: dict[str, Any] | None = None) -> Json:
    """The SARIF log for judged (or merged) corpus entries, as plain data."""
    made = CorpusLog()
    for item in entries:
        made.add(item)
    return made.log(entries, exit_code, extra)


def render_corpus_sarif(
    entries: list[dict[str, Any]], exit_code: int, extra: dict[str, Any] | None = None, made: CorpusLog | None = None
) -> str:
    """Indented SARIF JSON, the same escaping as every other report (no raw C1, DEL or bidi bytes). `made`: the
    log already made from every entry as it came (judge DIR), else it is made here from `entries`."""
    log = made.log(entries, exit_code, extra) if made is not None else corpus_sarif(entries, exit_code, extra)
    return neutralise_json(json.dumps(log, indent=2, ensure_ascii=False)) + "\n"
