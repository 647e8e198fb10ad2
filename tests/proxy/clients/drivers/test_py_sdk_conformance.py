"""The Python SDK driver's side of the suite's contract: what it reads from the suite's variables and which calls it
makes of them. The runs against the suite's own mocks (both drivers, all six scenarios) are in
tests/proxy/conformance/test_parity.py; here only what the driver decides by itself, and how it refuses bad input.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from backchannel.proxy.clients.drivers.paths import node_driver, py_driver, repo_root
from backchannel.proxy.clients.drivers.py_sdk_conformance import (
    Contract,
    contract_from,
    main,
    sample_arguments,
    scripted_calls,
)


def test_no_scenario_variable_means_the_drivers_own_contract():
    assert contract_from({}) is None
    assert contract_from({"MCP_CONFORMANCE_SCENARIO": ""}) is None


def test_the_scenario_its_version_and_its_context_are_read_from_the_suites_variables():
    found = contract_from(
        {
            "MCP_CONFORMANCE_SCENARIO": "http-custom-headers",
            "MCP_CONFORMANCE_PROTOCOL_VERSION": "2026-07-28",
            "MCP_CONFORMANCE_CONTEXT": '{"toolCalls": [{"name": "t", "arguments": {"region": "us"}}]}',
        }
    )
    assert found == Contract(
        "http-custom-headers", "2026-07-28", {"toolCalls": [{"name": "t", "arguments": {"region": "us"}}]}
    )


def test_a_context_that_is_not_a_json_object_is_refused():
    with pytest.raises(ValueError, match="not a JSON object"):
        contract_from({"MCP_CONFORMANCE_SCENARIO": "x", "MCP_CONFORMANCE_CONTEXT": "[1]"})


def test_the_contexts_tool_calls_are_made_as_given_and_a_context_without_them_scripts_nothing():
    context = {"toolCalls": [{"name": "a", "arguments": {"x": None}}, {"name": "b"}, {"arguments": {}}, "c"]}
    assert scripted_calls(context) == [("a", {"x": None}), ("b", {})]
    assert scripted_calls({"name": "auth"}) is None


def test_an_unscripted_call_gets_a_value_of_its_type_for_each_required_property_only():
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "number"},
            "b": {"type": "integer"},
            "region": {"type": "string", "x-mcp-header": "Region"},
            "flag": {"type": "boolean"},
            "data": {"type": "object"},
            "optional": {"type": "string"},
        },
        "required": ["a", "b", "region", "flag", "data"],
    }
    assert sample_arguments(schema) == {"a": 3, "b": 2, "region": "backchannel", "flag": True}
    assert sample_arguments({"type": "object"}) == {}


def test_without_a_url_the_contract_is_refused_with_exit_2(capsys):
    assert main([], {"MCP_CONFORMANCE_SCENARIO": "tools_call"}) == 2
    assert "last argument" in capsys.readouterr().err


def test_the_driver_command_switches_to_the_suites_contract_when_the_scenario_variable_is_set():
    # nothing listens on port 9 of loopback: the run fails to connect, after choosing the contract by the variable
    done = subprocess.run(
        [*py_driver(), "http://127.0.0.1:9/mcp"],
        env={"MCP_CONFORMANCE_SCENARIO": "tools_call", "MCP_CONFORMANCE_CONTEXT": "{]", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and "error:" in done.stderr  # the context was read: the suite's contract chosen


def test_the_installed_typescript_conformance_module_is_the_one_in_the_repository():
    driver = node_driver()
    if driver is None:
        if os.environ.get("CI"):
            pytest.fail("the TypeScript SDK driver is not installed; CI must run scripts/install-clients first")
        pytest.skip("the TypeScript SDK driver is not installed (run scripts/install-clients)")
    root = repo_root()
    assert root is not None
    installed = Path(driver[1]).parent / "ts_sdk_conformance.mjs"
    source = root / "proxy" / "clients" / "drivers" / "node" / "ts_sdk_conformance.mjs"
    assert installed.read_bytes() == source.read_bytes(), "stale copy: run scripts/install-clients again"
