"""A tools/list answer of odd shapes (names that are not strings) is read, never a crash of the checks reading it."""

import pytest

from backchannel.oracle import all_checks
from tests.oracle.scenarios.conformance.hand import conformance_wire, judged

CONFORMANCE_CHECKS = sorted(c.id for c in all_checks().values() if c.scenario == "conformance")
ODD_NAMES = [["a", "list"], 3, None, {"an": "object"}]


@pytest.mark.parametrize("check", CONFORMANCE_CHECKS)
def test_tools_listed_under_names_that_are_not_strings_are_left_out_not_a_crash(tmp_path, check):
    wire = conformance_wire()
    bad = {"type": "object", "properties": {"v": {"type": "string", "x-mcp-header": ""}}}
    tools = [{"name": name, "inputSchema": bad} for name in ODD_NAMES]
    tools.append({"name": "fine", "inputSchema": {"type": "object", "properties": {}}})
    wire.call("tools/list", result={"resultType": "complete", "tools": tools})
    wire.call("tools/call", {"name": "fine", "arguments": {}}, result={"resultType": "complete", "content": []})
    results = judged(tmp_path, wire, check)
    assert results and all(r.status in ("PASS", "SKIP", "WARN") for r in results), results
