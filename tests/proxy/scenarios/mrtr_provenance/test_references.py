"""The mrtr-provenance reference declarations: every toy-agent reference names a build the toy agent offers, and
each build is declared once."""

from __future__ import annotations

import sys
from pathlib import Path

from backchannel.proxy.clients.toy_agent import parse_globals
from backchannel.proxy.scenarios.mrtr_provenance.references import REFERENCES

ROOT = Path(__file__).resolve().parents[4]
TOY = [sys.executable, "-m", "backchannel.proxy.clients.toy_agent"]


def test_every_toy_reference_is_found_by_discovery_and_names_a_build_the_toy_agent_offers():
    # None: a client not installed; a by-hand reference's toy is the host a person would drive (its own test below)
    toys = [ref for ref in REFERENCES if (ref.argv(ROOT) or [])[:3] == TOY and ref.by_hand is None]
    assert len(toys) == 12 and all(ref.discover for ref in toys)
    builds = []
    for ref in toys:
        build, rest = parse_globals((ref.argv(ROOT) or [])[3:])  # a flag the toy agent does not take raises UsageError
        assert rest == [], ref.name
        builds.append((build, ref.stdin, ref.tty is not None))
    assert len(set(builds)) == len(builds)  # no build declared twice the same way


def test_the_by_hand_references_script_a_host_calling_get_repo_status_and_one_answer_for_its_one_question():
    hosts = {ref.name: ref for ref in REFERENCES if ref.by_hand is not None}
    assert sorted(hosts) == ["by-hand-toy-fix-provenance", "by-hand-toy-flawed"]
    for ref in hosts.values():
        argv = ref.argv(ROOT) or []
        assert argv[:3] == TOY and argv[-3:] == ["call", "{url}", "get_repo_status"] and not ref.discover
    # the person says yes only where the host fenced the request with the server's name (--fix provenance)
    assert hosts["by-hand-toy-fix-provenance"].by_hand == ("y",) and hosts["by-hand-toy-flawed"].by_hand == ("n",)
