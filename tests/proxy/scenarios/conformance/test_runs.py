"""Each run is one suite scenario: its name, its plan, and the suite's driver contract in its environment."""

import json

from backchannel.addons.plan import parse_plan
from backchannel.proxy.scenarios.conformance.runs import RUN_NAMES, RUNS


def test_the_runs_are_the_suites_2026_client_scenarios_in_order():
    assert RUN_NAMES == (
        "sep-2322-client-request-state",
        "request-metadata",
        "http-standard-headers",
        "http-custom-headers",
        "http-invalid-tool-headers",
        "json-schema-ref-no-deref",
    )


def test_every_plan_parses_and_request_metadata_refuses_the_first_request_with_32022():
    plans = {run.name: parse_plan(dict(run.plan)) for run in RUNS}
    [forced] = plans["request-metadata"].mutations
    assert forced.times == 1 and forced.match.method is None and "-32022" in forced.describe()
    [dropped] = plans["sep-2322-client-request-state"].mutations
    assert dropped.kind == "drop-result-type" and dropped.match.name == "test_mrtr_no_result_type"


def test_each_run_hands_the_client_the_suites_environment():
    env = {run.name: run.env() for run in RUNS}
    assert env["request-metadata"] == {
        "MCP_CONFORMANCE_SCENARIO": "request-metadata",
        "MCP_CONFORMANCE_PROTOCOL_VERSION": "2026-07-28",
    }
    context = json.loads(env["http-custom-headers"]["MCP_CONFORMANCE_CONTEXT"])
    assert [c["name"] for c in context["toolCalls"]] == ["test_custom_headers", "test_custom_headers_null"]
