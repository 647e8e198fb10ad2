"""The conformance facts read from a committed reference: each run's requests, the tools listed, the headers sent."""

from backchannel.oracle.scenarios.conformance.facts import listed, over_bridge, runs_requests, sent_headers, tool_calls
from tests.oracle.reference import recording


def test_each_run_gives_its_requests_the_tools_listed_and_the_headers_as_sent():
    runs = list(runs_requests(recording("conformance-toy")))
    assert len(runs) == 6
    custom = runs[3]
    calls = list(tool_calls(custom))
    assert [name for _r, name, _s in calls] == ["test_custom_headers", "test_custom_headers_null"]
    request, _name, schema = calls[0]
    assert schema["properties"]["region"]["x-mcp-header"] == "Region"
    assert sent_headers(request)["mcp-param-region"] == "us-west1" and not over_bridge(request)
    assert listed(custom, 0) == {}
