"""The registry as `backchannel checks --format json|markdown` prints it. The JSON field names are an interface
(README, docs/requirements.md): add fields, never rename or drop one."""

from __future__ import annotations

import json
from collections.abc import Sequence

from .model import NotChecked, Requirement, Requirements
from .traced import TracedCheck

JSON_FORMAT = "backchannel-requirements"
JSON_FORMAT_VERSION = 1


def as_json(rows: Sequence[TracedCheck], requirements: Requirements) -> str:
    """One JSON document: every check with its requirement, then the requirements deliberately not checked."""
    document = {
        "format": JSON_FORMAT,
        "format_version": JSON_FORMAT_VERSION,
        "aisvs_version": requirements.aisvs_version,
        "aisvs_source": requirements.aisvs_source,
        "checks": [_check(row) for row in rows],
        "not_checked": [_not_checked(item) for item in requirements.not_checked],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _check(row: TracedCheck) -> dict[str, object]:
    check, req = row.check, row.requirement
    return {
        "id": check.id,
        "scenario": check.scenario,
        "level": check.level,
        "title": check.title,
        "eras": list(check.eras),
        "quote": req.quote if req else None,
        "anchor": req.anchor if req else None,
        "unquoted": req.unquoted if req else None,
        "suite": [{"id": s.id, "release": s.release} for s in req.suite] if req else [],
        "aisvs": [{"id": a.id, "text": a.text} for a in req.aisvs] if req else [],
        "note": req.note if req else "",
    }


def _not_checked(item: NotChecked) -> dict[str, str]:
    return {"quote": item.quote, "anchor": item.anchor, "reason": item.reason}


def as_markdown(rows: Sequence[TracedCheck], requirements: Requirements) -> str:
    """A table of every check and its requirement, then the list of requirements deliberately not checked."""
    lines = [
        "| Check | Scenario | Level | Requirement | Official suite | OWASP AISVS |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        req = row.requirement
        suite = ", ".join(f"`{s.id}` ({s.release})" for s in req.suite) if req else ""
        aisvs = ", ".join(f"{a.id}" for a in req.aisvs) if req else ""
        cells = (f"`{row.check.id}`", f"`{row.check.scenario}`", row.check.level, _requirement(req), suite, aisvs)
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"OWASP AISVS {requirements.aisvs_version}: {requirements.aisvs_source}", ""]
    lines += ["## Requirements deliberately not checked", ""]
    for item in requirements.not_checked:
        lines.append(f"- {_cell(_quoted(item.quote))} ([spec]({item.anchor})): {_cell(item.reason)}")
    return "\n".join(lines) + "\n"


def _requirement(req: Requirement | None) -> str:
    if req is None:
        return "(a scenario from elsewhere: no entry)"
    if req.quote is None or req.anchor is None:
        return _cell(f"(none quoted) {req.unquoted}")
    return f"{_cell(_quoted(req.quote))} ([spec]({req.anchor}))"


def _quoted(text: str) -> str:
    return f"“{text}”"


def _cell(text: str) -> str:
    """Text safe in one table cell: no line breaks, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")
