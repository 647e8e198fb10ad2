"""The shared invalid-tool judgment: a constraint no listed tool breaks is not exercised."""

from backchannel.oracle.scenarios.conformance.invalid_tools import judge_invalid
from tests.oracle.reference import recording


def test_a_constraint_no_listed_tool_breaks_is_skipped():
    found = judge_invalid(recording("sampling-toy-careful"), "sep-2243-x-mcp-header-unique", "repeats")
    assert found.status == "SKIP" and found.reason == "not-exercised"


def test_each_invalid_tool_called_is_named():
    found = judge_invalid(recording("conformance-toy-flawed"), "sep-2243-x-mcp-header-unique", "repeats")
    assert "invalid_duplicate_diff_case, invalid_duplicate_same_case" in found.message
