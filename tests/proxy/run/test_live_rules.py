"""The live view's session rules: a rule broken in the recording so far is said once, with its side and message."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from backchannel.oracle.registry import session_checks
from backchannel.proxy.run.live_rules import LiveRules, side_of
from tests.factories import new_recording
from tests.oracle.session.wire import Wire, complete, modern_meta


def _written(path: Path, wire: Wire) -> Path:
    new_recording(path, runs=[{"id": wire.run, "name": "live"}], exchanges=wire.exchanges, messages=wire.messages)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE runs SET started_at = 1, ended_at = 2, outcome = 'exited', exit_code = 0")
    conn.close()
    return path


def test_a_broken_rule_is_said_once_naming_its_side_level_and_message(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=complete(), meta=modern_meta(clientCapabilities=None))
    live = LiveRules(_written(tmp_path / "live.sqlite", wire))
    [broken] = [said for said in live.news() if "populates-meta" in said.line]
    assert broken.line.startswith("rule FAIL: sep-2575-client-populates-meta (client, MUST) at #1: ")
    assert broken.status == "FAIL" and broken.flows == ("f1",)  # the flow to mark in mitmweb
    assert live.news() == []  # nothing new since


def test_a_session_that_keeps_every_rule_says_nothing(tmp_path):
    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=complete())
    assert LiveRules(_written(tmp_path / "good.sqlite", wire)).news() == []


def test_a_recording_that_cannot_be_read_yet_says_nothing_rather_than_failing(tmp_path):
    (tmp_path / "half.sqlite").write_bytes(b"not yet a recording")
    assert LiveRules(tmp_path / "half.sqlite").news() == []


def test_the_side_is_the_one_each_rule_declares():
    assert side_of("session-server-result-type") == "server"
    assert side_of("sep-2322-not-on-unsupported-requests") == "server"
    assert side_of("session-client-answers-only-server-requests") == "client"
    assert all(rule.side in ("client", "server") for rule in session_checks().values())


class _Clock:
    """A clock that moves `step` seconds at each read: a look reads it when it begins and when it ends, so with a
    step of N a look seems to take N seconds (the test's stand-in for a slow judge)."""

    def __init__(self) -> None:
        self.now, self.step = 100.0, 0.0

    def __call__(self) -> float:
        value = self.now
        self.now += self.step
        return value


def _look(live: LiveRules, clock: _Clock, seconds: float) -> float:
    """One look that takes `seconds` on the clock; returns when it ended."""
    clock.step = seconds
    began = clock.now
    live.news()
    clock.step = 0.0
    return began + seconds


def test_a_look_is_due_a_second_after_a_quick_one(tmp_path):
    clock = _Clock()
    live = LiveRules(tmp_path / "half.sqlite", clock=clock)
    assert live.due()
    ended = _look(live, clock, 0.01)
    clock.now = ended + 0.99
    assert not live.due()
    clock.now = ended + 1.0
    assert live.due()


def test_after_a_slow_look_the_next_waits_so_looking_takes_a_tenth_of_the_time(tmp_path):
    (tmp_path / "half.sqlite").write_bytes(b"not yet a recording")
    clock = _Clock()
    live = LiveRules(tmp_path / "half.sqlite", clock=clock)
    ended = _look(live, clock, 3.0)  # a long session: loading and judging it took 3 s
    clock.now = ended + 26.9
    assert not live.due()
    clock.now = ended + 27.0  # 3 s of looking in every 30
    assert live.due()
