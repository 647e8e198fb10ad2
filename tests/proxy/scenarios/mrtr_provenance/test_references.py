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
    toys = [ref for ref in REFERENCES if (ref.argv(ROOT) or [])[:3] == TOY]  # None: a client not installed
    assert len(toys) == 12 and all(ref.discover for ref in toys)
    builds = []
    for ref in toys:
        build, rest = parse_globals((ref.argv(ROOT) or [])[3:])  # a flag the toy agent does not take raises UsageError
        assert rest == [], ref.name
        builds.append((build, ref.stdin, ref.tty is not None))
    assert len(set(builds)) == len(builds)  # no build declared twice the same way
