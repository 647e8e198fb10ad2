"""One JSON document for many recordings: every report (as `judge --format json` prints one), or why a recording
could not be judged, with totals and the aggregated exit code. `merge-reports` reads and writes the same shape."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from backchannel.oracle import ORACLE_VERSION
from backchannel.oracle.model import STATUSES
from backchannel.oracle.render.json_report import VERDICT_COUNTS
from backchannel.recordings.safe_text import neutralise_json

from .parallel import Outcome
from .sent import JsonReport

KIND = "backchannel-corpus"
COUNTED = STATUSES + VERDICT_COUNTS
FAILING = ("FAIL", "ERROR")  # a CONFIRMED probe is a FAIL; ERROR (the harness could not see) is never a pass


def entry(outcome: Outcome) -> dict[str, Any]:
    """One recording's entry: its name and its report, or its name and the error that kept it from being judged."""
    if outcome.report is None:
        return {"name": outcome.name, "error": outcome.error or "not judged"}
    out: dict[str, Any] = {"name": outcome.name, "report": outcome.report}
    if outcome.error is not None:
        out["error"] = outcome.error  # judged, but a follow-up (storing its report) failed
    return out


def exit_code(entries: Iterable[dict[str, Any]]) -> int:
    """As for one file, aggregated: 2 when any recording could not be judged, else 1 when any report fails."""
    code = 0
    for item in entries:
        if "error" in item:
            return 2
        if item["report"].get("exit_code") == 1:
            code = 1
    return code


def totals(entries: list[dict[str, Any]]) -> dict[str, int]:
    """Recordings judged and not, then results by status and probe verdict over all of them."""
    out = {"recordings": len(entries), "unjudged": sum(1 for e in entries if "report" not in e)}
    for key in COUNTED:
        out[key] = sum(int(e["report"]["summary"].get(key, 0)) for e in entries if "report" in e)
    return out


def document(entries: list[dict[str, Any]], *, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The corpus document, keys in a fixed order (add keys freely; never rename or remove one)."""
    out: dict[str, Any] = {
        "tool": "backchannel",
        "kind": KIND,
        "oracle_version": ORACLE_VERSION,
        "summary": totals(entries),
        "exit_code": exit_code(entries),
    }
    out.update(extra or {})
    out["recordings"] = entries
    return out


def _line(item: dict[str, Any]) -> str:
    """One recording's line, neutralised: json.dumps of its entry, with a report the worker encoded and neutralised
    (JsonReport) spliced in as its text, byte for byte what neutralising json.dumps of the report's dict gives."""
    if not any(isinstance(value, JsonReport) for value in item.values()):
        return neutralise_json(json.dumps(item, ensure_ascii=False))
    members = (
        neutralise_json(f"{json.dumps(key, ensure_ascii=False)}: ")
        + (value.text if isinstance(value, JsonReport) else neutralise_json(json.dumps(value, ensure_ascii=False)))
        for key, value in item.items()
    )
    return "{" + ", ".join(members) + "}"


# the document around its recordings' lines: after the head, before the first line, after the last line, or in
# place of them all when there are none (a streamed document is these pieces printed in turn: command.py)
RECORDINGS_OPEN = ',\n  "recordings": [\n'
RECORDINGS_CLOSE = "\n  ]\n}\n"
NO_RECORDINGS = ',\n  "recordings": []\n}\n'
SEPARATOR = ",\n"  # between two recordings' lines


def head_text(head: dict[str, Any]) -> str:
    """The document's keys before its recordings, indented, without the closing brace."""
    return neutralise_json(json.dumps(head, indent=2, ensure_ascii=False)[:-2].rstrip("\n"))


def item_text(item: dict[str, Any]) -> str:
    """One recording's line as the document prints it, indented."""
    return "    " + _line(item)


def render_document(doc: dict[str, Any]) -> str:
    """Indented JSON with one recording per line, the same escaping as a single report (no raw C1, DEL or bidi
    bytes), ending with a newline. One line per recording: a corpus greps and diffs well, and the compact encoder
    is written in C where the indented one is not (indenting was a third of the time of a 5,000-recording run)."""
    head = head_text({key: value for key, value in doc.items() if key != "recordings"})
    items = SEPARATOR.join(item_text(item) for item in doc["recordings"])
    return head + (RECORDINGS_OPEN + items + RECORDINGS_CLOSE if items else NO_RECORDINGS)
