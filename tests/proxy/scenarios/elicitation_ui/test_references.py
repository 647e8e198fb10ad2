"""The elicitation-ui reference declarations: the careful build and every --ui-flaw build of the toy agent, each
under a terminal and piped, answered at the same prompts."""

from __future__ import annotations

from pathlib import Path

from backchannel.proxy.clients.toy_agent_core import UI_FLAWS
from backchannel.proxy.run.tty import parse_answer
from backchannel.proxy.scenarios.elicitation_ui.references import REFERENCES, UI_ANSWERS, UI_DECLINING

ROOT = Path(__file__).resolve().parents[4]


def test_every_ui_build_is_declared_under_a_terminal_and_piped_with_the_same_answers():
    by_name = {ref.name: ref for ref in REFERENCES}
    for build in ("careful", *UI_FLAWS):
        tty, piped = by_name[f"toy-{build}"].tty, by_name[f"toy-{build}-piped"].tty
        assert tty is not None and piped is not None and not tty.piped and piped.piped, build
        assert tty.answers == piped.answers, build
        flaws = [] if build == "careful" else ["--ui-flaw", build]
        assert by_name[f"toy-{build}"].argv(ROOT)[3:] == [*flaws, "ui", "{url}"], build


def test_only_the_open_declined_build_is_answered_no_at_the_browser_prompt():
    declining = parse_answer(UI_DECLINING[0])
    assert UI_DECLINING[1:] == UI_ANSWERS[1:] and declining != parse_answer(UI_ANSWERS[0])
    named = {ref.name for ref in REFERENCES if ref.tty is not None and ref.tty.answers[0] == declining}
    assert named == {"toy-open-declined", "toy-open-declined-piped"}
