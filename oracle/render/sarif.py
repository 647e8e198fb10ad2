"""The report as SARIF 2.1.0: one run, one rule per check id, one result per finding, locations in the recording.

Each location's `physicalLocation` names the recording file; a terminal or file evidence adds a `region` whose
byte offsets count inside that carrier (the run's stdout or stderr, or the lab file), which the location's
`logicalLocations` and `message` name. Consumers that open the artifact itself should use the logical location.
"""

from __future__ import annotations

import json

from backchannel.recordings.safe_text import neutralise_json

from ..model import Evidence, Report, Result
from .json_report import summary
from .text import evidence_line

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SPEC_URI = "https://modelcontextprotocol.io/specification/2026-07-28"
RECORDING_MIME = "application/vnd.sqlite3"

# SARIF 3.27.10: a level other than "none" is allowed only with kind "fail". A WARN is a SHOULD broken (a failure
# at warning level); an ERROR is a check that could not decide (open).
KIND = {"PASS": "pass", "FAIL": "fail", "WARN": "fail", "SKIP": "notApplicable", "ERROR": "open"}
LEVEL = {"PASS": "none", "FAIL": "error", "WARN": "warning", "SKIP": "none", "ERROR": "none"}
DEFAULT_LEVEL = {"MUST": "error", "SHOULD": "warning", "MAY": "note"}

Json = dict[str, object]


def _rule(result: Result) -> Json:
    tags = ["security", *result.cwe] if result.verdict is not None or result.cwe else []
    rule: Json = {
        "id": result.id,
        "name": result.title or result.id,
        "shortDescription": {"text": result.title or result.id},
        "defaultConfiguration": {"level": DEFAULT_LEVEL.get(result.level, "warning")},
        "properties": {"tags": [*tags, "mcp"], "level": result.level, "scenario": result.scenario},
    }
    if result.spec:
        rule["helpUri"] = result.spec
    return rule


def _logical(ev: Evidence) -> Json | None:
    prefix = f"run/{ev.run}" if ev.run is not None else ""
    kind: str
    if ev.kind in ("message", "exchange", "sse", "anomaly"):
        name = f"{ev.kind}/{ev.seq}" if ev.seq is not None else ev.kind
        kind = ev.kind
    elif ev.kind == "terminal":
        name, kind = ev.stream or "terminal", "terminal"
    elif ev.kind == "file":
        name, kind = f"file/{ev.path}" if ev.path else "file", "file"
    elif ev.kind == "model":  # its offset counts bytes of one segment's text, not of the recording: no region
        name, kind = f"model/{ev.seq}" + (f"/{ev.path}" if ev.path else ""), "model"
    elif ev.kind == "recording":
        return {"fullyQualifiedName": "recording", "kind": "recording"}
    else:
        if ev.run is None:
            return None
        return {"fullyQualifiedName": prefix, "kind": "run"}
    return {"fullyQualifiedName": f"{prefix}/{name}" if prefix else name, "kind": kind}


def _artifact(report: Report) -> Json:
    return {"uri": report.recording, "index": 0}


def _location(report: Report, ev: Evidence) -> Json:
    physical: Json = {"artifactLocation": _artifact(report)}
    if ev.kind in ("terminal", "file") and ev.offset is not None:
        region: Json = {"byteOffset": ev.offset}
        if ev.length is not None:
            region["byteLength"] = ev.length
        physical["region"] = region
    location: Json = {"physicalLocation": physical, "message": {"text": evidence_line(ev)}}
    logical = _logical(ev)
    if logical is not None:
        location["logicalLocations"] = [logical]
    return location


def _locations(report: Report, result: Result) -> list[Json]:
    if result.evidence:
        return [_location(report, ev) for ev in result.evidence]
    location: Json = {"physicalLocation": {"artifactLocation": _artifact(report)}}
    if result.run is not None:
        location["logicalLocations"] = [{"fullyQualifiedName": f"run/{result.run}", "kind": "run"}]
    return [location]


def _properties(result: Result) -> Json:
    props: Json = {"status": result.status, "scenario": result.scenario, "level": result.level}
    if result.verdict is not None:
        props["verdict"] = result.verdict
        props["signals"] = list(result.signals)
    for key, value in (("subject", result.subject), ("run", result.run), ("reason", result.reason)):
        if value is not None:
            props[key] = value
    if result.observations:
        props["observations"] = list(result.observations)
    if result.cwe:
        props["cwe"] = list(result.cwe)
    if result.untestable:
        props["untestable"] = True
    props["evidence"] = [ev.as_dict() for ev in result.evidence]
    return props


def _message(result: Result) -> str:
    shown = result.verdict if result.verdict is not None else result.status
    subject = f" [{result.subject}]" if result.subject else ""
    reason = f" ({result.reason})" if result.reason else ""
    return f"{shown}{reason}{subject}: {result.message}"


def sarif_log(report: Report) -> Json:
    """The SARIF log as plain data."""
    rules: list[Json] = []
    index: dict[str, int] = {}
    for result in report.results:
        if result.id not in index:
            index[result.id] = len(rules)
            rules.append(_rule(result))
    results: list[Json] = [
        {
            "ruleId": result.id,
            "ruleIndex": index[result.id],
            "kind": KIND[result.status],
            "level": LEVEL[result.status],
            "message": {"text": _message(result)},
            "locations": _locations(report, result),
            "properties": _properties(result),
        }
        for result in report.results
    ]
    run: Json = {
        "tool": {
            "driver": {
                "name": "backchannel",
                "version": report.tool_version,
                "informationUri": SPEC_URI,
                "rules": rules,
                "properties": {"oracle_version": report.oracle_version},
            }
        },
        "artifacts": [{"location": {"uri": report.recording}, "roles": ["analysisTarget"], "mimeType": RECORDING_MIME}],
        "results": results,
        "properties": {
            "recording_format": report.recording_format,
            "nonce": report.nonce,
            "scenarios": list(report.scenarios),
            "summary": summary(report),
            "exit_code": report.exit_code,
        },
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def render_sarif(report: Report) -> str:
    """The report as indented SARIF 2.1.0 JSON, ending with a newline."""
    return neutralise_json(json.dumps(sarif_log(report), indent=2, ensure_ascii=False)) + "\n"
