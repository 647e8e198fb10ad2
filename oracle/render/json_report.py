"""The JSON report: the stable interface for CI and scripts. Add keys freely; never rename or remove one."""

from __future__ import annotations

import json

from backchannel.recordings.safe_text import neutralise_json

from ..model import Report

VERDICT_COUNTS = ("CONFIRMED", "REFUTED")


def summary(report: Report) -> dict[str, int]:
    """Results by status, then probe results by verdict (CONFIRMED, REFUTED)."""
    out = dict(report.counts())
    for verdict in VERDICT_COUNTS:
        out[verdict] = sum(1 for r in report.results if r.verdict == verdict)
    return out


def report_dict(report: Report) -> dict[str, object]:
    """The report as plain JSON-able data, keys in a fixed order."""
    return {
        "tool": "backchannel",
        "tool_version": report.tool_version,
        "oracle_version": report.oracle_version,
        "recording": {"file": report.recording, "format": report.recording_format, "nonce": report.nonce},
        "scenarios": list(report.scenarios),
        "summary": summary(report),
        "exit_code": report.exit_code,
        "results": [result.as_dict() for result in report.results],
        "runs": [run.as_dict() for run in report.runs],
    }


def render_json(report: Report) -> str:
    """The report as indented UTF-8 JSON (non-ASCII kept as is), results in report order, ending with a newline.

    C1, DEL and bidi characters are written as `\\uNNNN` escapes: the same values, none of the raw bytes."""
    return neutralise_json(json.dumps(report_dict(report), indent=2, ensure_ascii=False)) + "\n"
