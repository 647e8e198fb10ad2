"""The shared invalid-tool judgment: a constraint no listed tool breaks is not exercised."""

from backchannel.oracle.scenarios.conformance.invalid_tools import judge_invalid
from tests.oracle.reference import recording


def test_a_constraint_no_listed_tool_breaks_is_skipped():
    found = judge_invalid(recording("sampling-toy-careful"), "sep-2243-x-mcp-header-unique", "repeats")
    assert found.status == "SKIP" and found.reason == "not-exercised"


def test_each_invalid_tool_called_is_named():
    found = judge_invalid(recording("conformance-toy-flawed"), "sep-2243-x-mcp-header-unique", "repeats")
    assert "invalid_duplicate_diff_case, invalid_duplicate_same_case" in found.message


def _listed_invalid_tool(tmp_path, *, then_call: str | None):
    from tests.oracle.scenarios.conformance.hand import conformance_wire, judged

    wire = conformance_wire()
    empty = {"type": "object", "properties": {"v": {"type": "string", "x-mcp-header": ""}}}
    tools = [{"name": "bad", "inputSchema": empty}, {"name": "fine", "inputSchema": {"type": "object"}}]
    wire.call("tools/list", result={"resultType": "complete", "tools": tools})
    if then_call:
        wire.call("tools/call", {"name": then_call, "arguments": {}}, result={"resultType": "complete", "content": []})
    return judged(tmp_path, wire, "sep-2243-x-mcp-header-not-empty")


def test_a_client_that_calls_the_valid_tool_and_leaves_the_invalid_one_out_passes(tmp_path):
    (found,) = _listed_invalid_tool(tmp_path, then_call="fine")
    assert found.status == "PASS"


def test_a_client_that_called_no_tool_at_all_after_listing_shows_nothing_and_is_skipped(tmp_path):
    (found,) = _listed_invalid_tool(tmp_path, then_call=None)
    assert found.status == "SKIP" and "called no tool at all" in found.message


def test_a_client_that_calls_the_invalid_tool_fails(tmp_path):
    (found,) = _listed_invalid_tool(tmp_path, then_call="bad")
    assert found.status == "FAIL" and "bad" in found.message
