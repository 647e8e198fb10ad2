"""The lab's own keys for a terminal UI: keystroke groups with each Enter alone, gates a select loop can wait on, and
steps whose ready pattern is checked when they are made."""

from __future__ import annotations

import select
import threading

import pytest

from backchannel.proxy.run.ui_steps import ENTER, Gate, UiStep, key_groups, split_keys

WAIT = 5.0  # seconds: a gate opened from another thread wakes a select far sooner than this


def test_an_enter_alone_is_one_group():
    assert split_keys("\r") == ("\r",)
    assert split_keys(ENTER + ENTER) == ("\r", "\r")


def test_text_is_kept_together_and_every_enter_goes_alone():
    assert split_keys("y\r") == ("y", "\r")
    assert split_keys("ab\rcd\r") == ("ab", "\r", "cd", "\r")
    assert split_keys("/exit now") == ("/exit now",)
    assert split_keys("a\nb") == ("a\nb",)  # a line feed is text: only the terminal's Enter (CR) is split off


def test_empty_pieces_are_dropped():
    assert split_keys("") == ()
    assert split_keys("\rx\r\r") == ("\r", "x", "\r", "\r")


def test_key_groups_split_each_given_key_again_at_its_enters_in_order():
    assert key_groups(["/exit", "\r"]) == ("/exit", "\r")
    assert key_groups(["fix it\r", "", "y\rn"]) == ("fix it", "\r", "y", "\r", "n")
    assert key_groups([]) == ()


def test_a_gate_opened_from_another_thread_makes_its_fd_readable():
    gate = Gate("tools-listed")
    try:
        assert not gate.is_open
        assert select.select([gate.fd], [], [], 0)[0] == []  # closed: nothing to read yet
        opener = threading.Thread(target=gate.open)
        opener.start()
        ready, _, _ = select.select([gate.fd], [], [], WAIT)
        opener.join(WAIT)
        assert ready == [gate.fd]
        assert gate.is_open and "open=True" in repr(gate)
    finally:
        gate.close()


def test_opening_a_gate_twice_is_harmless_and_it_stays_open():
    gate = Gate("model-done")
    try:
        gate.open()
        gate.open()
        assert gate.is_open
        assert select.select([gate.fd], [], [], WAIT)[0] == [gate.fd]
    finally:
        gate.close()


def test_closing_a_gate_twice_or_opening_it_after_it_was_closed_is_harmless():
    gate = Gate("late")
    gate.close()
    gate.close()
    gate.open()  # a model stand-in's last answer after the run ended: no write to a closed pipe
    assert gate.is_open


def test_a_step_with_a_bad_ready_pattern_is_a_value_error_naming_the_step():
    with pytest.raises(ValueError, match=r"the task step's ready pattern '\(unclosed'"):
        UiStep("task", ("hi", "\r"), ready="(unclosed")


def test_a_step_compiles_its_ready_pattern_multiline_and_its_text_is_its_keys_joined():
    step = UiStep("exit", ("/exit", "\r"), ready=r"^> $", ends=True)
    assert step.regex is not None and step.regex.search("welcome\n> ")
    assert step.text() == "/exit\r"
    assert UiStep("any", ("x",)).regex is None
