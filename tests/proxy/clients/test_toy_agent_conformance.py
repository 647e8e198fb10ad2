"""The toy agent's conformance command line: its help, its flaws, and the suite's MCP_CONFORMANCE_SCENARIO; its
scripts are proved against the scenario end to end (tests/proxy/scenarios/conformance/test_runner.py)."""

import pytest

from backchannel.proxy.clients import toy_agent
from backchannel.proxy.clients.toy_agent_conformance import CONFORMANCE_FLAWS, SCRIPTS, network_refs


def test_help_lists_every_flaw(capsys):
    assert toy_agent.main(["conformance", "--help"]) == 0
    out = capsys.readouterr().out
    assert "MCP_CONFORMANCE_SCENARIO" in out and all(flaw in out for flaw in CONFORMANCE_FLAWS)


def test_an_unknown_flaw_or_scenario_is_a_usage_error(capsys, monkeypatch):
    assert toy_agent.main(["conformance", "--conformance-flaw", "nope", "http://127.0.0.1:9/mcp"]) == 2
    assert "is not one of" in capsys.readouterr().err
    monkeypatch.setenv("MCP_CONFORMANCE_SCENARIO", "tools_call")
    assert toy_agent.main(["conformance", "http://127.0.0.1:9/mcp"]) == 2
    assert "MCP_CONFORMANCE_SCENARIO 'tools_call'" in capsys.readouterr().err


def test_it_scripts_the_six_staged_suite_scenarios():
    assert set(SCRIPTS) == {
        "sep-2322-client-request-state",
        "request-metadata",
        "http-standard-headers",
        "http-custom-headers",
        "http-invalid-tool-headers",
        "json-schema-ref-no-deref",
    }


@pytest.mark.parametrize("scenario", ["request-metadata"])
def test_a_server_that_cannot_be_reached_exits_1_naming_the_scenario(capsys, monkeypatch, scenario):
    monkeypatch.setenv("MCP_CONFORMANCE_SCENARIO", scenario)
    assert toy_agent.main(["conformance", "http://127.0.0.1:9/mcp"]) == 1
    assert scenario in capsys.readouterr().err


def test_network_refs_are_found_anywhere_in_a_schema():

    schema = {"properties": {"a": {"$ref": "#/$defs/x"}, "b": {"anyOf": [{"$ref": "http://h/s.json"}]}}}
    assert network_refs(schema) == ["http://h/s.json"]
