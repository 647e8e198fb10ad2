"""`show` on a run under a terminal: its tty stream as plain text and each snapshot as a framed, neutralised block;
each call of a URL-opener stand-in as a line of its run."""

from __future__ import annotations

from backchannel.proxy.timeline import timeline
from backchannel.recordings import load
from tests.factories import new_recording


def test_show_prints_a_tty_runs_snapshots_as_framed_blocks_among_its_lines(tmp_path):
    path = new_recording(
        tmp_path / "r.sqlite",
        runs=[{"id": "a"}],
        terminal=[{"run_id": "a", "stream": "tty", "offset": 0, "data": b"\x1b[1mWelcome\x1b[0m\r\nName? ", "t": 1.0}],
        screens=[
            {"run_id": "a", "reason": "answered", "cols": 20, "rows": 4, "cursor_row": 1, "cursor_col": 6,
             "text": "Welcome\nName?\n\n", "answer_pattern": r"Name\? ", "answer_text": "bob\r", "t": 2.0},
            {"run_id": "a", "reason": "exit", "cols": 20, "rows": 4, "cursor_row": 2, "cursor_col": 0,
             "text": "Welcome\nName? bob\x1b]0;evil\x07\n", "t": 3.0},
        ],
    )  # fmt: skip
    shown = [text for _, text in timeline(load(path))]
    at = shown.index("      screen #1 answered (20x4, cursor 1,6)")
    assert shown[at + 1 : at + 6] == [
        "      ┌───────┐",
        "      │Welcome│",
        "      │Name?  │",
        "      └───────┘",
        "      answered /Name\\? / with 'bob\\r'",
    ]
    assert "      tty@0: Welcome" in shown  # the stream as plain text, before the snapshot taken after it
    assert shown.index("      tty@0: Welcome") < at
    last = shown.index("      screen #2 exit (20x4, cursor 2,0)")
    assert shown[last + 3] == "      │Name? bob\\x1b]0;evil\\x07│"  # neutralised: nothing reaches the terminal raw


def test_show_says_how_discovery_went_each_candidate_and_why_each_was_rejected():
    from pathlib import Path

    from backchannel.proxy.timeline import timeline
    from backchannel.recordings import load

    reference = Path(__file__).resolve().parents[2] / "recordings" / "reference" / "mrtr-provenance-fastmcp.sqlite"
    lines = [text for _, text in timeline(load(reference))]
    assert "  discovery: found the call surface" in lines
    assert any(line.startswith("  confirmed ") and "call" in line for line in lines)


def test_show_prints_each_url_open_as_a_line_of_its_run_in_time_order_neutralised(tmp_path):
    path = new_recording(
        tmp_path / "r.sqlite",
        runs=[{"id": "a"}, {"id": "b"}],
        terminal=[{"run_id": "a", "stream": "stdout", "offset": 0, "data": b"opening\nbye\n", "t": 1.0}],
        opens=[
            {"run_id": "a", "opener": "xdg-open", "argv": ["https://example.com/cb?x=1"], "t": 2.0},
            {"run_id": "a", "opener": "gio", "argv": ["open", "https://g.example/"], "t": 3.0},
            {"run_id": "a", "opener": "open", "argv": ["a b", "", "https://e.example/\x1b[2J\u202e"], "t": 4.0},
            {"run_id": "b", "opener": "wslview", "argv": ["https://cut.example/"], "truncated": True, "t": 5.0},
        ],
    )
    shown = [text for _, text in timeline(load(path))]
    first = shown.index("      opened via xdg-open: https://example.com/cb?x=1")
    assert shown[first + 1] == "      opened via gio open: https://g.example/"
    # quoted where an argument's end would not be plain; escape and bidi characters shown, never emitted
    assert shown[first + 2] == "      opened via open: 'a b' '' https://e.example/\\x1b[2J\\u202e"
    assert shown.index("      stdout@0: opening") < first
    run_b = shown.index(next(line for line in shown if line.startswith("run 2 ")))
    assert shown.index("      opened via wslview: https://cut.example/ (arguments cut)") > run_b > first
