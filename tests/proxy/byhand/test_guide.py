"""One question of the guided session, as a person's typing meets it: an unclear answer is asked again, a bad
screenshot is refused with why and may be skipped, and the end of input stops the asking.

The whole session under a terminal is tested end to end in test_guided_live.py; here `ask` is what the person
types, line by line (the guide takes it as `input`'s stand-in so the terminal is not needed to read a line)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from backchannel.oracle.scenarios.elicitation_ui.attested import NAMES_SERVER
from backchannel.proxy.byhand.guide import SCREENSHOT_KEPT, InputEnded, ask_question
from backchannel.proxy.byhand.questions import PROMPT, Question

QUESTION = Question(NAMES_SERVER, "Did the app name the server `lab` when it asked?")


class Person:
    """Types the given lines in order, then ends input (Ctrl-D); keeps each prompt and each thing said back."""

    def __init__(self, *lines: str) -> None:
        self._lines: Iterator[str] = iter(lines)
        self.prompts: list[str] = []
        self.told: list[str] = []

    def ask(self, prompt: str) -> str:
        self.prompts.append(prompt)
        try:
            return next(self._lines)
        except StopIteration:
            raise EOFError from None

    def say(self, text: str) -> None:
        self.told.append(text)


def test_the_question_is_asked_in_its_own_words_with_the_three_answers_and_no_screenshot_is_fine() -> None:
    person = Person("y", "")
    assert ask_question(QUESTION, person.ask, person.say) == ("y", None)
    assert person.prompts[0] == f"{QUESTION.text} {PROMPT} "
    assert person.told == []


def test_an_unclear_answer_is_asked_again_until_it_is_y_n_or_not_sure() -> None:
    person = Person("maybe", "", "not sure", "")
    assert ask_question(QUESTION, person.ask, person.say) == ("?", None)
    assert person.prompts.count(f"{QUESTION.text} {PROMPT} ") == 3
    assert person.told == ["Please answer y (yes), n (no) or ? (not sure)."] * 2


def test_a_bad_screenshot_is_refused_with_why_and_a_good_one_given_next_is_kept(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not an image", encoding="utf-8")
    image = tmp_path / "shot.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    person = Person("n", str(text), str(image))
    assert ask_question(QUESTION, person.ask, person.say) == ("n", (b"\x89PNG\r\n\x1a\n", "image/png"))
    refused, kept = person.told
    assert refused.startswith("Not kept: ") and "not a PNG or JPEG" in refused
    assert kept == SCREENSHOT_KEPT  # a kept image is shared as it is: the person is told so when they give it
    assert "redaction cannot read an image" in kept and "--no-screenshots" in kept


def test_the_end_of_input_stops_the_asking_instead_of_guessing_an_answer() -> None:
    with pytest.raises(InputEnded):
        ask_question(QUESTION, Person().ask, Person().say)
    person = Person("y")  # answered, then input ended at the screenshot prompt
    with pytest.raises(InputEnded):
        ask_question(QUESTION, person.ask, person.say)
