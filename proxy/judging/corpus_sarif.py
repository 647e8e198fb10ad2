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

import dataclasses
import json
from typing import Any

from backchannel.oracle import ORACLE_VERSION
from backchannel.oracle.render.from_json import report_from_dict
from backchannel.oracle.render.sarif import RECORDING_MIME, SCHEMA, SPEC_URI, sarif_log
from backchannel.recordings.safe_text import neutralise_json

from .corpus import totals

Json = dict[str, Any]
MAX_RESULTS = 25_000  # GitHub code scanning's limit on the results of one run
LISTED_KINDS = ("fail", "open")  # FAIL and WARN are kind fail, ERROR open; PASS is pass, SKIP notApplicable


def _point_at(locations: list[Json], index: int) -> None:
    for location in locations:
        artifact = location.get("physicalLocation", {}).get("artifactLocation")
        if artifact is not None:
            artifact["index"] = index


def corpus_sarif(entries: list[dict[str, Any]], exit_code: int, extra: dict[str, Any] | None = None) -> Json:
    """The SARIF log for judged (or merged) corpus entries, as plain data."""
    rules: list[Json] = []
    rule_index: dict[str, int] = {}
    artifacts: list[Json] = []
    results: list[Json] = []
    notifications: list[Json] = []
    tool_version = ""
    left_out = 0
    for item in entries:
        name = str(item["name"])
        index = len(artifacts)
        artifact: Json = {"location": {"uri": name}, "roles": ["analysisTarget"], "mimeType": RECORDING_MIME}
        artifacts.append(artifact)
        if "error" in item:
            notifications.append(
                {
                    "level": "error",
                    "message": {"text": f"{name}: {item['error']}"},
                    "locations": [{"physicalLocation": {"artifactLocation": {"uri": name, "index": index}}}],
                }
            )
        if "report" not in item:
            artifact["properties"] = {"judged": False}
            continue
        report = dataclasses.replace(report_from_dict(item["report"], where=name), recording=name)
        tool_version = tool_version or report.tool_version
        run: Json = sarif_log(report)["runs"][0]  # type: ignore[index]  # plain data this module just built
        artifact["properties"] = {"judged": True, **run["properties"]}
        for rule in run["tool"]["driver"]["rules"]:
            if rule["id"] not in rule_index:
                rule_index[rule["id"]] = len(rules)
                rules.append(rule)
        for result in run["results"]:
            if result["kind"] not in LISTED_KINDS:
                continue
            if len(results) >= MAX_RESULTS:
                left_out += 1
                continue
            result["ruleIndex"] = rule_index[result["ruleId"]]
            _point_at(result["locations"], index)
            results.append(result)
    properties: Json = {"summary": totals(entries), "exit_code": exit_code, "results_left_out": left_out}
    properties.update(extra or {})
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "backchannel",
                        "version": tool_version or "unknown",
                        "informationUri": SPEC_URI,
                        "rules": rules,
                        "properties": {"oracle_version": ORACLE_VERSION},
                    }
                },
                "invocations": [
                    {"executionSuccessful": not notifications, "toolExecutionNotifications": notifications}
                ],
                "artifacts": artifacts,
                "results": results,
                "properties": properties,
            }
        ],
    }


def render_corpus_sarif(entries: list[dict[str, Any]], exit_code: int, extra: dict[str, Any] | None = None) -> str:
    """Indented SARIF JSON, the same escaping as every other report (no raw C1, DEL or bidi bytes)."""
    log = corpus_sarif(entries, exit_code, extra)
    return neutralise_json(json.dumps(log, indent=2, ensure_ascii=False)) + "\n"
