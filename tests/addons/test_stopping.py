"""mitmdump tells a stop backchannel asked for from a signal someone else sent, and from its parent's death."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from backchannel.addons import stopping


@pytest.fixture
def as_mitmdump() -> Iterator[None]:
    """This test process plays mitmdump: its parent (pytest's launcher) plays backchannel."""
    before = stopping.parent_pid
    stopping.parent_pid = os.getppid()
    yield
    stopping.parent_pid = before
    stopping.STOP_ASKED.clear()
    stopping.PARENT_GONE.clear()


def test_a_stop_signal_while_the_parent_lives_and_did_not_ask_came_from_outside(as_mitmdump: None) -> None:
    assert stopping.stopped_from_outside(asked_when_signalled=False)


def test_a_stop_the_parent_asked_for_before_the_signal_is_not_from_outside(as_mitmdump: None) -> None:
    assert not stopping.stopped_from_outside(asked_when_signalled=True)


def test_a_stop_after_the_parents_end_of_stdin_is_its_death_not_an_outside_signal(as_mitmdump: None) -> None:
    stopping.PARENT_GONE.set()
    assert not stopping.stopped_from_outside(asked_when_signalled=False)


def test_a_parent_that_exited_is_gone() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # reaped: no /proc entry left
    assert stopping.parent_gone(child.pid)


def test_the_addon_run_by_mitmdump_on_its_own_never_reports_an_outside_stop() -> None:
    assert stopping.parent_pid is None
    assert not stopping.stopped_from_outside(asked_when_signalled=False)
