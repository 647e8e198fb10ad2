"""The toy agent's roots command: its options, the roots each build gives, and its refusal without the capability."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from backchannel.proxy.clients import toy_agent_wire as wire
from backchannel.proxy.clients.toy_agent import main
from backchannel.proxy.clients.toy_agent_core import Build, UsageError
from backchannel.proxy.clients.toy_agent_roots import NON_FILE_URI, ROOTS_FLAWS, RootsAgent, RootsConnection, parse


def test_each_flaw_names_a_roots_check_and_parses():
    assert set(ROOTS_FLAWS.values()) == {
        "roots-file-uri",
        "roots-within-configured",
        "roots-only-with-capability",
        "roots-list-changed-notified",
    }
    assert parse(["--roots-flaw", "expose-home", "http://h/mcp"]) == (frozenset({"expose-home"}), True, "http://h/mcp")
    assert parse(["--no-roots", "http://h/mcp"])[1] is False
    assert parse(["--roots-flaw", "answer-undeclared", "http://h/mcp"])[1] is False  # it declares none
    with pytest.raises(UsageError):
        parse(["--roots-flaw", "nope", "http://h/mcp"])


def test_the_careful_build_gives_its_working_folder_and_the_flaws_change_only_their_part(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    careful = RootsAgent(Build.of(), frozenset(), True)
    careful.quiet = True
    assert careful.roots() == [{"uri": Path(os.getcwd()).as_uri(), "name": tmp_path.name}]
    assert RootsAgent(Build.of(), frozenset({"non-file-uri"}), True).roots()[0]["uri"] == NON_FILE_URI
    home = RootsAgent(Build.of(), frozenset({"expose-home"}), True).roots()
    assert home[-1]["uri"] == (tmp_path / "home").as_uri()


def test_without_roots_a_2026_round_asking_for_them_is_not_retried(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    agent = RootsAgent(Build.of(), frozenset(), False)
    with pytest.raises(wire.WireError, match="does not expose"):
        agent.answer({"r": {"method": "roots/list"}}, None, "http://h:80")


def test_roots_is_declared_as_each_era_spells_it():
    conn = RootsConnection("http://127.0.0.1:1/mcp", {"roots": {"listChanged": True}})
    assert conn._declared(frozenset()) == {"roots": {}}  # 2026-07-28 has no listChanged
    conn.era = "legacy"
    assert conn._declared(frozenset()) == {"roots": {"listChanged": True}}


def test_the_roots_command_prints_its_help(capsys):
    assert main(["roots", "--help"]) == 0
    assert "--roots-flaw NAME" in capsys.readouterr().out
