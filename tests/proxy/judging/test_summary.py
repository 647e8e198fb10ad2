"""The text output for many recordings: what needs a look per recording, one table, one closing line, safe text."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.table import Table
from rich.text import Text

from backchannel.proxy.judging.corpus import COUNTED, totals
from backchannel.proxy.judging.summary import WIDTH, recording_lines, render_text, table
from backchannel.recordings.safe_text import neutralise

REFERENCE = Path(__file__).resolve().parents[3] / "recordings" / "reference"


def test_a_recording_lists_only_what_needs_a_look_and_a_probe_shows_its_verdict() -> None:
    report = json.loads((REFERENCE / "mrtr-provenance-toy-flawed.expected.json").read_text(encoding="utf-8"))
    lines = recording_lines({"name": "flawed.sqlite", "report": report})
    assert lines[0].startswith("flawed.sqlite: ") and lines[0].endswith("exit code 1")
    assert sum(1 for line in lines[1:] if line.lstrip().startswith("CONFIRMED")) == 2
    assert all("PASS" not in line.split()[0] for line in lines[1:])


def test_an_unjudged_recording_says_why_and_the_table_shows_dashes() -> None:
    text = render_text([{"name": "broken.sqlite", "error": "broken.sqlite is not a SQLite database"}], 2)
    assert "broken.sqlite: NOT JUDGED: broken.sqlite is not a SQLite database" in text
    assert "total (1 recordings)" in text
    assert text.endswith("1 recordings, 1 not judged; exit code 2\n")


def test_control_and_bidi_characters_in_a_name_are_shown_escaped_never_emitted() -> None:
    text = render_text([{"name": "a\x1b[31m\u202eb.sqlite", "error": "x"}], 2)
    assert "\x1b" not in text and "\u202e" not in text
    assert "\\x1b" in text and "\\u202e" in text


def _rich_table(entries: list[dict[str, Any]]) -> str:
    """The table as rich lays the whole of it out, every cell plain text (what summary.table gives, by design)."""
    grid = Table(show_edge=True, width=WIDTH)
    grid.add_column("Recording", overflow="fold")
    for status in COUNTED:
        grid.add_column(status, justify="right")
    for item in entries:
        counts = item["report"]["summary"] if "report" in item else None
        cells = [str(counts.get(s, 0)) if counts is not None else "-" for s in COUNTED]
        name = neutralise(str(item["name"])).replace("\u200d", "\\u200d")  # shown escaped in the table, by design
        grid.add_row(Text(name), *map(Text, cells))
    total = totals(entries)
    grid.add_row(f"total ({total['recordings']} recordings)", *(str(total[s]) for s in COUNTED), end_section=True)
    buffer = io.StringIO()
    Console(file=buffer, width=WIDTH, color_system=None, force_terminal=False, legacy_windows=False).print(grid)
    return buffer.getvalue()


_NAME_PARTS = [
    "fixtures/",
    "run",
    " ",
    "  ",
    "\u4e2d\u6587",
    "e\u0301",
    "\U0001f600",
    "[/b]",
    ":smile:",
    "x" * 70,
    "\n",
]


@pytest.mark.parametrize("seed", range(40))
def test_the_table_is_the_one_rich_lays_out_whole_for_any_names_and_counts(seed: int) -> None:
    # rows written by hand at the widths rich gives the rows that set them: the same text rich gives for the whole
    # table, for short and wrapping names, wide and zero-width characters, spaces, newlines and markup-like text
    rng = random.Random(seed)
    entries: list[dict[str, Any]] = []
    for i in range(rng.choice([1, 3, 17, 60])):
        name = "".join(rng.choice(_NAME_PARTS) for _ in range(rng.randint(1, 6))) + f"{i}.sqlite"
        if rng.random() < 0.1:
            entries.append({"name": name, "error": "not a recording"})
            continue
        summary = {s: rng.choice([0, 1, 7, 42, 1234, 10 ** rng.randint(0, 9)]) for s in COUNTED}
        entries.append({"name": name, "report": {"summary": summary, "exit_code": 1}})
    assert table(entries) == _rich_table(entries)


def test_a_name_that_looks_like_rich_markup_is_printed_as_it_is() -> None:
    text = table([{"name": "runs[/b]/a[bold]b:smile:.sqlite", "error": "x"}])
    assert "runs[/b]/a[bold]b:smile:.sqlite" in text


def test_counts_too_long_for_their_column_are_cut_as_rich_cuts_them() -> None:
    # a merged corpus may add up to counts rich shortens with an ellipsis: such a row is rich's, not written by hand
    entries = [{"name": "a.sqlite", "report": {"summary": dict.fromkeys(COUNTED, 10**12 - 1), "exit_code": 1}}]
    entries += [
        {"name": f"{i}.sqlite", "report": {"summary": dict.fromkeys(COUNTED, i), "exit_code": 0}} for i in range(20)
    ]
    assert table(entries) == _rich_table(entries)
    assert "…" in table(entries)
