"""The text output for many recordings: each recording's results that need a look, then one table of recording x
status counts. Plain text, no colour, every name from a recording escaped, the same bytes on every terminal."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from rich.table import Table

from backchannel.recordings.safe_text import neutralise

from .corpus import COUNTED, totals
from .sent import SHOWN

WIDTH = 120
MESSAGE_CHARS = 200


def _result_line(result: dict[str, Any]) -> str:
    status = str(result.get("verdict") or result.get("status"))
    subject = f" [{result['subject']}]" if result.get("subject") else ""
    message = str(result.get("message", ""))
    message = message[:MESSAGE_CHARS] + ("…" if len(message) > MESSAGE_CHARS else "")
    return f"  {status:<9} {result.get('scenario')}:{result.get('id')}{subject}: {message}"


def recording_lines(item: dict[str, Any]) -> list[str]:
    """One recording: a heading line, then a line per result that is not a PASS or SKIP."""
    name = str(item["name"])
    if "report" not in item:
        return [f"{name}: NOT JUDGED: {item.get('error', '')}"]
    report = item["report"]
    counts = report["summary"]
    said = ", ".join(f"{counts.get(s, 0)} {s}" for s in COUNTED if counts.get(s, 0))
    lines = [f"{name}: {said or 'no results'}; exit code {report.get('exit_code')}"]
    if "error" in item:
        lines.append(f"  ERROR     {item['error']}")
    lines += [_result_line(r) for r in report.get("results", []) if r.get("status") in SHOWN]
    return lines


def table(entries: list[dict[str, Any]]) -> str:
    """Recording x status counts, with a total row."""
    grid = Table(show_edge=True, width=WIDTH)
    grid.add_column("Recording", overflow="fold")
    for status in COUNTED:
        grid.add_column(status, justify="right")
    for item in entries:
        if "report" in item:
            counts = item["report"]["summary"]
            grid.add_row(neutralise(str(item["name"])), *(str(counts.get(s, 0)) for s in COUNTED))
        else:
            grid.add_row(neutralise(str(item["name"])), *(["-"] * len(COUNTED)))
    total = totals(entries)
    grid.add_row(f"total ({total['recordings']} recordings)", *(str(total[s]) for s in COUNTED), end_section=True)
    buffer = io.StringIO()
    Console(file=buffer, width=WIDTH, color_system=None, force_terminal=False, legacy_windows=False).print(grid)
    return buffer.getvalue()


def recording_text(item: dict[str, Any]) -> str:
    """One recording's lines as printed: joined, escaped (the whole text is these joined by newlines, then the
    closing: a streamed output prints them as each recording is judged)."""
    return neutralise("\n".join(recording_lines(item)))


def closing_text(entries: list[dict[str, Any]], code: int) -> str:
    """After every recording's lines: the table and one closing line with the totals and the exit code."""
    total = totals(entries)
    closing = f"{total['recordings']} recordings, {total['unjudged']} not judged; exit code {code}"
    return "\n\n" + table(entries) + closing + "\n"


def render_text(entries: list[dict[str, Any]], code: int) -> str:
    """Every recording's lines, the table, and one closing line with the totals and the exit code."""
    return "\n".join(recording_text(item) for item in entries) + closing_text(entries, code)
