"""A recording as a readable timeline: runs, then messages, SSE items, terminal output, screens, URL opens and anomalies
in order.

A run under a terminal shows its `tty` stream as plain text (escape sequences removed, as the oracle reads it) and
each screen snapshot as a framed block of its rendered rows (blank rows below the last drawn one left out). Each call
of a URL-opener stand-in is one line, `opened via xdg-open: https://...` (nothing was opened)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from shlex import quote

from backchannel.addons.plan import describe_plan
from backchannel.oracle.terminal import TTY, chunks, screens_in, stream_bytes
from backchannel.proxy.run.discovery import describe as describe_discovery
from backchannel.recordings.meta import Redactions
from backchannel.recordings.model import Recording, Run, ScreenSnapshot, UrlOpen
from backchannel.recordings.safe_text import neutralise as safe
from backchannel.recordings.shapes import Discovery as DiscoveryRecord

__all__ = ["ARROWS", "Line", "safe", "summary", "timeline"]

ARROWS = {"to-server": "client → server", "to-client": "server → client"}


@dataclass(frozen=True)
class Line:
    t: float
    order: int
    style: str
    text: str


def _short(text: str, width: int = 160) -> str:
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"


def summary(payload: object) -> str:
    """A message in a few words: method, tool name, resultType, error code."""
    if not isinstance(payload, dict):
        return "(not a JSON object)"
    parts = []
    params = payload.get("params")
    if isinstance(params, dict):
        if "name" in params:
            parts.append(f"name={params['name']}")
        for key in ("requestState", "inputResponses"):
            if key in params:
                parts.append(f"+{key}")
    result = payload.get("result")
    if isinstance(result, dict):
        parts.append(f"resultType={result.get('resultType', '(absent)')}")
        if "inputRequests" in result:
            requests = result["inputRequests"]
            names = requests if isinstance(requests, dict | list) else [requests]
            parts.append("inputRequests=" + ",".join(str(name) for name in names))
    error = payload.get("error")
    if isinstance(error, dict):
        parts.append(f"error {error.get('code')}: {error.get('message')}")
    return " ".join(parts)


SCREEN_INDENT = "      "


def screen_block(snapshot: ScreenSnapshot) -> list[str]:
    """A snapshot as lines: a heading, its rows inside a frame, and the answer typed at it if any."""
    cursor = "" if snapshot.cursor_row is None else f", cursor {snapshot.cursor_row},{snapshot.cursor_col}"
    head = f"{SCREEN_INDENT}screen #{snapshot.seq} {snapshot.reason} ({snapshot.cols}x{snapshot.rows}{cursor})"
    rows = list(snapshot.lines)
    while rows and not rows[-1].strip():
        rows.pop()
    width = min(max([len(row) for row in rows] + [1]), snapshot.cols)
    out = [head, f"{SCREEN_INDENT}┌{'─' * width}┐"]
    out += [f"{SCREEN_INDENT}│{row[:width].ljust(width)}│" for row in rows]
    out.append(f"{SCREEN_INDENT}└{'─' * width}┘")
    if snapshot.answer_pattern is not None:
        out.append(f"{SCREEN_INDENT}answered /{snapshot.answer_pattern}/ with {snapshot.answer_text!r}")
    return out


OPEN_WIDTH = 1000  # characters of an open's arguments shown; the rest is cut with …


def open_line(found: UrlOpen) -> str:
    """A call of a URL-opener stand-in in one line: `opened via xdg-open: https://...` (`gio open` named whole);
    an argument that is empty or holds whitespace is shell-quoted, so where each one ends stays plain."""
    label, args = found.opener, found.argv
    if found.opener == "gio" and args[:1] == ("open",):
        label, args = "gio open", args[1:]
    said = " ".join(part if part and not any(ch.isspace() for ch in part) else quote(part) for part in args)
    if len(said) > OPEN_WIDTH:
        said = said[: OPEN_WIDTH - 1] + "…"
    cut = " (arguments cut)" if found.truncated else ""
    return f"      opened via {label}: {said or '(no arguments)'}{cut}"


def _run_lines(rec: Recording, run: Run) -> Iterator[Line]:
    order = 0
    for message in rec.messages_in(run.id):
        mark = f"  [mutated: {message.mutation}]" if message.mutation else ""
        ident = f" id={message.jsonrpc_id}" if message.jsonrpc_id else ""
        where = f" sse#{message.sse_idx}" if message.sse_idx is not None else ""
        text = f"#{message.seq:<4} {ARROWS[message.direction]}  {message.kind} {message.method or ''}{ident}{where}  "
        style = "bold red" if message.mutation else ("cyan" if message.direction == "to-server" else "green")
        yield Line(message.t or 0.0, order, style, text + summary(message.payload) + mark)
        order += 1
    for item in rec.sse_events:
        if item.run_id == run.id and item.kind != "event":
            raw = (item.client_raw or b"").decode("utf-8", "replace")
            yield Line(item.t or 0.0, order, "dim", f"      sse {item.kind} ({item.origin}) {_short(raw, 60)!r}")
            order += 1
    for stream in ("stdout", "stderr", TTY):
        read = chunks(rec, run.id, stream)
        if not read:
            continue
        data = stream_bytes(rec, run.id, stream)  # a tty stream as plain text: its offsets are the oracle's
        offset = 0
        for line in data.splitlines(keepends=True):
            # a line is shown at the time its first byte arrived, whatever pieces the client wrote it in
            when = next((c.t for c in reversed(read) if c.offset <= offset), None) or 0.0
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            yield Line(when, order, "yellow", f"      {stream}@{offset}: {_short(text)}")
            order += 1
            offset += len(line)
    for snapshot in screens_in(rec, run.id):
        for text in screen_block(snapshot):  # one time, consecutive orders: the block stays whole when sorted
            yield Line(snapshot.t or 0.0, order, "white", text)
            order += 1
    for found in rec.opens_in(run.id):
        yield Line(found.t or 0.0, order, "bold red", open_line(found))
        order += 1
    for anomaly in rec.anomalies:
        if anomaly.run_id == run.id:
            yield Line(
                anomaly.t or 0.0, order, "bold magenta", f"      anomaly {anomaly.kind}: {_short(anomaly.detail)}"
            )
            order += 1


def timeline(rec: Recording) -> Iterator[tuple[str, str]]:
    """(style, text) lines, every one escaped (see `safe`)."""
    for style, text in _timeline(rec):
        yield style, safe(text)


def _timeline(rec: Recording) -> Iterator[tuple[str, str]]:
    """(style, text) lines: each run's header, then its events in time order, then the files it left."""
    yield "bold", f"recording {rec.path}  format {rec.format_version}  tool {rec.info.tool_version or '?'}"
    for redactions in Redactions.read_all(rec.meta):  # names and counts only: the values never reached the file
        yield "dim", f"  {redactions.line()}"
    for anomaly in rec.anomalies:
        if anomaly.run_id is None:
            yield "bold magenta", f"  anomaly {anomaly.kind}: {_short(anomaly.detail)}"
    discovery = DiscoveryRecord.read(rec.meta)
    for said in describe_discovery(discovery) if discovery is not None else ():  # each candidate, why rejected
        yield "cyan", f"  {_short(said, 300)}"
    for run in rec.runs:
        yield "bold", ""
        yield (
            "bold",
            f"run {run.ordinal} {run.name!r} id={run.id} scenario={run.scenario or '-'} upstream={run.upstream}",
        )
        lines = describe_plan(dict(run.plan)) if run.plan else ["(no mutations)"]
        yield "", f"  plan: {_short(lines[0], 200)}"
        for more in lines[1:]:
            yield "", f"        {_short(more, 200)}"
        if run.client_argv:
            yield "", f"  client: {' '.join(run.client_argv)}"
        if run.outcome:
            note = run.detail.note
            yield "", f"  outcome: {run.outcome} exit={run.exit_code}" + (f" ({note})" if note else "")
        for line in sorted(_run_lines(rec, run), key=lambda line: (line.t, line.order)):
            yield line.style, line.text
        for found in rec.files:
            if found.run_id == run.id:
                yield (
                    "blue",
                    f"      file ~/{found.path} ({found.size} bytes{', truncated' if found.truncated else ''})",
                )
