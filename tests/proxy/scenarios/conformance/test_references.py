"""The conformance references: the careful toy client, one build with every flaw that hides none, and the two
flaws that would hide the others on a build of their own."""

from pathlib import Path

from backchannel.proxy.clients.toy_agent_conformance import CONFORMANCE_FLAWS
from backchannel.proxy.scenarios.conformance.references import FLAWED, REFERENCES

ROOT = Path(__file__).resolve().parents[4]


def test_every_flaw_but_the_routing_headers_is_in_one_reference():
    flaws = {a for ref in REFERENCES for a in (ref.argv(ROOT) or []) if a in CONFORMANCE_FLAWS}
    assert flaws == set(CONFORMANCE_FLAWS) - {"no-routing-headers"}  # the endpoint refuses every such request
    assert set(FLAWED) <= set(CONFORMANCE_FLAWS)


def test_the_references_run_the_toy_conformance_command_with_the_url_last():
    for ref in REFERENCES:
        argv = ref.argv(ROOT) or []
        assert argv[3] == "conformance" and argv[-1] == "{url}" and not ref.discover
