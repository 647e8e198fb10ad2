"""The text output for many recordings: each recording's results that need a look, then one table of recording x
status counts. Plain text, no colour, every name from a recording escaped, the same bytes on every terminal."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from backchannel.recordings.safe_text import neutralise

from .corpus import COUNTED, totals
from .sent import MESSAGE_CHARS, SHOWN

WIDTH = 120


def one_line(value: object) -> str:
    """A value printed inside one line of the text output: its line breaks shown as `\\n` (the rest of what could
    drive a terminal is escaped with the whole text). A file name or a message can hold a newline, and printed as
    one it began a line of its own: `x.sqlite: 25 PASS; exit code 0` under a recording that failed."""
    return str(value).replace("\n", "\\n")


def _result_line(result: dict[str, Any]) -> str:
    status = one_line(result.get("verdict") or result.get("status"))
    subject = f" [{one_line(result['subject'])}]" if result.get("subject") else ""
    message = str(result.get("message", ""))
    message = one_line(message[:MESSAGE_CHARS] + ("…" if len(message) > MESSAGE_CHARS else ""))
    return f"  {status:<9} {one_line(result.get('scenario'))}:{one_line(result.get('id'))}{subject}: {message}"


def recording_lines(item: dict[str, Any]) -> list[str]:
    """One recording: a heading line, then a line per result that is not a PASS or SKIP."""
    name = one_line(item["name"])
    if "report" not in item:
        return [f"{name}: NOT JUDGED: {one_line(item.get('error', ''))}"]
    report = item["report"]
    counts = report["summary"]
    said = ", ".join(f"{counts.get(s, 0)} {s}" for s in COUNTED if counts.get(s, 0))
    lines = [f"{name}: {said or 'no results'}; exit code {report.get('exit_code')}"]
    if "error" in item:
        lines.append(f"  ERROR     {one_line(item['error'])}")
    lines += [_result_line(r) for r in report.get("results", []) if r.get("status") in SHOWN]
    return lines


def table(entries: list[dict[str, Any]], total: dict[str, int] | None = None) -> str:
    """Recording x status counts, with a total row, `WIDTH` wide, laid out as rich lays out its tables.

    Rich takes about 0.8 ms a row (4 s for 5,000 recordings, all of it after the judging), so it lays out only a
    table of the rows that set the columns' widths (rich 15 sizes a column by its widest cell: the longest line of
    a name, the longest count of each status, the header and the total), and every other row is written by hand
    at those widths when it fits on one line, and by rich, alone at the same widths, when it does not. Every cell
    is plain text: a name is never read as rich markup or emoji codes (a path holding `[/b]` made rich raise)."""
    rows = [_row(item) for item in entries]
    total = totals(entries) if total is None else total  # `total`: the entries' totals, when the caller has them
    last = (f"total ({total['recordings']} recordings)", tuple(str(total[s]) for s in COUNTED))
    laid_out = _render(_setting_widths(rows), last, None).splitlines()
    widths = [len(part) for part in laid_out[0][1:-1].split("┳")]
    lines = laid_out[:3]  # the top edge, the header and the line under it
    lines += [line for row in (*rows, last) for line in _row_lines(row, widths)]
    lines.append(laid_out[-1])  # the bottom edge
    return "\n".join(lines) + "\n"


Row = tuple[str, tuple[str, ...]]  # a recording's name (escaped) and its count per status


def _row(item: dict[str, Any]) -> Row:
    # a zero-width joiner is shown escaped here too: rich measures the character after one as taking no room (a row
    # would be padded one space short) and some names heavy in them make rich 15 raise while it wraps them
    name = neutralise(str(item["name"])).replace("\u200d", "\\u200d")
    if "report" not in item:
        return name, ("-",) * len(COUNTED)
    counts = item["report"]["summary"]
    return name, tuple(str(counts.get(s, 0)) for s in COUNTED)


def _setting_widths(rows: list[Row]) -> list[Row]:
    """The rows whose cells set the columns' widths: the longest name (by its longest line) and the longest count
    of each status, each row once, in table order."""
    if not rows:
        return rows

    def widest(measure: Callable[[Row], int]) -> int:
        return max(range(len(rows)), key=lambda i: measure(rows[i]))

    chosen = {widest(lambda row: max(map(cell_len, row[0].splitlines() or [""])))}
    chosen.update(widest(lambda row, n=n: len(row[1][n])) for n in range(len(COUNTED)))  # type: ignore[misc]
    return [rows[i] for i in sorted(chosen)]


def _row_lines(row: Row, widths: list[int]) -> list[str]:
    """One row at the columns' widths (each counting its padding): by hand, or through rich when a cell does not
    fit its column on one line (a name that wraps, a count rich cuts short)."""
    name, counts = row
    room = widths[0] - 2
    if "\n" in name or cell_len(name) > room or any(len(c) > w - 2 for c, w in zip(counts, widths[1:], strict=True)):
        return _render([row], None, widths).splitlines()[1:-1]  # without its own top and bottom edges
    cells = "".join(f" {count.rjust(width - 2)} │" for count, width in zip(counts, widths[1:], strict=True))
    return [f"│ {name}{' ' * (room - cell_len(name))} │{cells}"]


def _render(rows: list[Row], last: Row | None, widths: list[int] | None) -> str:
    """Rows as rich renders them: the whole table with its header (widths None), or headless at given widths."""
    grid = Table(show_edge=True, width=WIDTH, show_header=widths is None)
    inner: list[int | None] = [width - 2 for width in widths] if widths else [None] * (len(COUNTED) + 1)
    grid.add_column("Recording", overflow="fold", width=inner[0])
    for status, width in zip(COUNTED, inner[1:], strict=True):
        grid.add_column(status, justify="right", width=width)
    for name, counts in rows:
        grid.add_row(Text(name), *(Text(count) for count in counts))
    if last is not None:
        grid.add_row(Text(last[0]), *(Text(count) for count in last[1]), end_section=True)
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
    return "\n\n" + table(entries, total) + closing + "\n"


def render_text(entries: list[dict[str, Any]], code: int) -> str:
    """Every recording's lines, the table, and one closing line with the totals and the exit code."""
    return "\n".join(recording_text(item) for item in entries) + closing_text(entries, code)
