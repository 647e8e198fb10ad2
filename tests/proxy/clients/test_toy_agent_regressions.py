"""The toy agent's regressions command: its options, and what each build answers as the contract's user."""

from __future__ import annotations

import pytest

from backchannel.proxy.clients.toy_agent import main
from backchannel.proxy.clients.toy_agent_core import Build, UsageError
from backchannel.proxy.clients.toy_agent_regressions import REGRESSION_FLAWS, GivenUp, RegressionsAgent, parse

DECLINED = {"message": "DECLINE: no", "requestedSchema": {"properties": {"old": {"type": "string", "enum": ["o"]}}}}
ACCEPTED = {"message": "yes", "requestedSchema": {"properties": {"new": {"type": "string", "enum": ["n"]}}}}
URL = {"mode": "url", "message": "open it", "url": "https://example.com/x"}


def agent(tmp_path, monkeypatch, *flaws: str) -> RegressionsAgent:
    monkeypatch.setenv("HOME", str(tmp_path))
    found = RegressionsAgent(Build.of(fixes=frozenset({"provenance"})), frozenset(flaws))
    found.quiet = True
    return found


def test_each_flaw_names_a_check_of_the_scenario_and_parses():
    assert set(REGRESSION_FLAWS.values()) == {
        "elicitation-declined-content-not-reused",
        "mrtr-round-limit-tells-user",
        "elicitation-undeclared-mode-not-declined",
    }
    assert parse(["--regression-flaw", "endless-retry", "http://h/mcp"]) == (
        frozenset({"endless-retry"}),
        "http://h/mcp",
    )
    with pytest.raises(UsageError):
        parse(["--regression-flaw", "nope", "http://h/mcp"])
    with pytest.raises(UsageError):
        parse([])


def test_the_careful_build_declines_then_accepts_with_the_later_forms_content_only(tmp_path, monkeypatch):
    careful = agent(tmp_path, monkeypatch)
    assert careful.elicit(DECLINED, "s", "o") == {"action": "decline"}
    assert careful.elicit(ACCEPTED, "s", "o") == {"action": "accept", "content": {"new": "n"}}


def test_the_reuse_declined_build_carries_the_declined_content_into_the_next_accept(tmp_path, monkeypatch):
    flawed = agent(tmp_path, monkeypatch, "reuse-declined")
    flawed.elicit(DECLINED, "s", "o")
    assert flawed.elicit(ACCEPTED, "s", "o") == {"action": "accept", "content": {"new": "n", "old": "o"}}


def test_an_undeclared_mode_is_given_up_by_the_careful_build_and_silently_declined_by_the_flawed(
    tmp_path, monkeypatch, capsys
):
    with pytest.raises(GivenUp, match="url mode"):
        agent(tmp_path, monkeypatch).elicit(URL, "s", "o")
    flawed = agent(tmp_path, monkeypatch, "decline-undeclared-mode")
    flawed.quiet = False
    assert flawed.elicit(URL, "s", "o") == {"action": "decline"}
    assert capsys.readouterr().out == ""  # never shown to the user


def test_the_regressions_command_prints_its_help(capsys):
    assert main(["regressions", "--help"]) == 0
    assert "--regression-flaw NAME" in capsys.readouterr().out
