"""The report as a plain-text table for people: the same bytes on every terminal, no colour, no ANSI codes."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table
from rich.text import Text

from backchannel.recordings.safe_text import neutralise

from ..model import STATUSES, Evidence, Report, Result

WIDTH = 120


def clean(text: str) -> str:
    """`text` with every control character but newline, and every bidi control, escaped (the shared neutraliser)."""
    return neutralise(text)


def _run_suffix(run: str | None) -> str:
    return f" (run {run})" if run is not None else ""


def _home_path(path: str) -> str:
    return path if path.startswith(("~", "/")) else f"~/{path}"


def evidence_line(ev: Evidence) -> str:
    """One evidence item in words: `message #12 (run abc)`, `stdout @ byte 340 (run abc)`, `file ~/.toy/marker.txt`,
    `model request #7 @ byte 12, 22 bytes (run abc): user at $.messages[2].content: ...`,
    `answer #3 (run abc): person answered no to: ...`."""
    if ev.kind in ("message", "exchange", "sse", "anomaly"):
        label = "SSE event" if ev.kind == "sse" else ev.kind
        where = f"{label} #{ev.seq}" if ev.seq is not None else label
    elif ev.kind == "terminal":
        where = ev.stream or "terminal"
        if ev.offset is not None:
            where += f" @ byte {ev.offset}"
    elif ev.kind == "file":
        where = f"file {_home_path(ev.path)}" if ev.path else "file"
        if ev.offset is not None:
            where += f" @ byte {ev.offset}"
    elif ev.kind == "model":  # text in a request the coding agent sent its model; the note names its JSON path
        where = f"model request #{ev.seq}" if ev.seq is not None else "model request"
        if ev.offset is not None:
            where += f" @ byte {ev.offset}"
        if ev.path and not ev.note:
            where += f" at {ev.path}"
    elif ev.kind == "recording":
        where = "the recording file"
    elif ev.kind == "attestation":  # a person's answer (check --by-hand); the note says what they were asked
        where = f"answer #{ev.seq}" if ev.seq is not None else "answer"
    else:  # a whole run
        where = f"run {ev.run}" if ev.run is not None else "run"
    if ev.length is not None and ev.kind in ("terminal", "file", "model"):
        where += f", {ev.length} bytes"
    if ev.kind != "run":
        where += _run_suffix(ev.run)
    if ev.note:
        where += f": {ev.note}"
    return clean(where)


def check_label(result: Result) -> str:
    """The check id with its subject, as the table's first column shows it."""
    return f"{result.id} [{result.subject}]" if result.subject else result.id


def status_label(result: Result) -> str:
    """The verdict for probes, else the status; SKIP and ERROR carry their reason: `SKIP (no-mcp-call-surface)`."""
    shown: str = result.verdict if result.verdict is not None else result.status
    if shown in ("SKIP", "ERROR") and result.reason:
        shown = f"{shown} ({result.reason})"
    # a result that rests on a person's answer says so wherever its status is shown
    return f"{shown} [attested]" if result.attested else shown


def cwe_confirmed(report: Report) -> list[str]:
    """The CWE ids of confirmed probes, each once, in report order."""
    seen: dict[str, None] = {}
    for result in report.results:
        if result.verdict == "CONFIRMED":
            seen.update(dict.fromkeys(result.cwe))
    return list(seen)


def _header(report: Report) -> str:
    scenarios = ", ".join(report.scenarios) or "none"
    nonce = f", nonce {report.nonce}" if report.nonce else ""
    return (
        f"backchannel {report.tool_version} (oracle {report.oracle_version}): "
        f"recording {report.recording} (format {report.recording_format}{nonce}); scenarios: {scenarios}"
    )


def _table(report: Report) -> Table:
    table = Table(expand=True)
    # a check id is what users grep and paste: keep the longest on one line (ids are kebab-case, < 44 chars)
    widest = max((len(check_label(r)) for r in report.results), default=10)
    table.add_column("Check", overflow="fold", min_width=min(widest, 44))
    table.add_column("Status", overflow="fold")
    table.add_column("Level", no_wrap=True)
    table.add_column("Message", overflow="fold", ratio=3)
    for result in report.results:
        table.add_row(
            Text(clean(check_label(result))),
            Text(clean(status_label(result))),
            Text(result.level),
            Text(clean(result.message)),
        )
    return table


def details(result: Result) -> list[str]:
    """The lines below the table for one non-PASS result: what it is, its evidence, signals and observations."""
    run = f", run {result.run}" if result.run is not None else ""
    lines = [clean(f"{status_label(result)} {check_label(result)}{run}")]
    lines += [f"  - {evidence_line(ev)}" for ev in result.evidence]
    if result.signals:
        lines.append(clean(f"  signals: {', '.join(result.signals)}"))
    if result.observations:
        lines.append("  observations:")
        lines += [clean(f"  * {obs}") for obs in result.observations]
    return lines


def summary_line(report: Report) -> str:
    """Counts by status, probe verdicts with the confirmed CWE ids, and the exit code."""
    counts = report.counts()
    parts = [", ".join(f"{counts[s]} {s}" for s in STATUSES)]
    verdicts = [r.verdict for r in report.results if r.verdict is not None]
    if verdicts:
        probes = f"probes: {verdicts.count('CONFIRMED')} CONFIRMED, {verdicts.count('REFUTED')} REFUTED"
        cwes = cwe_confirmed(report)
        if cwes:
            probes += f" ({', '.join(cwes)})"
        parts.append(probes)
    parts.append(f"exit code {report.exit_code}")
    return clean(f"{len(report.results)} results: " + "; ".join(parts))


def render_text(report: Report) -> str:
    """The report as plain text: the header line, a fixed-width (120 columns) table, details and a summary line.

    Only the table is laid out to a width; every other line is one logical line, however long (a recording's path
    in the header, an evidence note), so the same report reads the same whatever the file is called, and a terminal
    wraps it where it likes."""
    # one line whatever the file is called or its meta says: a newline there would start a line of its own
    lines = [clean(_header(report)).replace("\n", "\\n")]
    lines += _table_lines(report) if report.results else ["No results."]
    detailed = [r for r in report.results if r.status != "PASS"]
    if detailed:
        lines.append("")
        for result in detailed:
            lines += details(result)
    lines += ["", summary_line(report)]
    return neutralise("\n".join(line.rstrip() for line in "\n".join(lines).splitlines()) + "\n")


def _table_lines(report: Report) -> list[str]:
    """The results table, laid out to WIDTH columns whatever the terminal (or its absence) says."""
    console = Console(
        file=io.StringIO(),  # never the real stdout: its encoding and tty-ness must not change the output
        record=True,
        width=WIDTH,
        force_terminal=False,
        color_system=None,
        legacy_windows=False,
        emoji=False,
        highlight=False,
        markup=False,
        soft_wrap=False,
        _environ={},  # COLUMNS, NO_COLOR, FORCE_COLOR, TERM and friends must not change the output either
    )
    console.print(_table(report))
    return console.export_text().splitlines()
