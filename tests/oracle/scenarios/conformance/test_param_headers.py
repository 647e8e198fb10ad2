"""The oracle's x-mcp-header reading: constraints broken by schema, and each annotated value judged on its header."""

from backchannel.oracle.scenarios.conformance.param_headers import (
    BASE64,
    ENCODE,
    MIRRORS,
    broken_constraints,
    mirrored,
    null_or_absent,
    unannotated_headers,
)

SCHEMA = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "n": {"type": "integer", "x-mcp-header": "N"},
        "text": {"type": "string", "x-mcp-header": "Text"},
        "flag": {"type": "boolean", "x-mcp-header": "Flag"},
        "query": {"type": "string"},
    },
}


def test_each_parameter_is_judged_by_its_kind_and_its_header():
    headers = {"mcp-param-region": "us", "mcp-param-n": "42.0", "mcp-param-text": "=?base64?IHBhZCA=?="}
    found = {m.header: m for m in mirrored(SCHEMA, {"region": "us", "n": 42, "text": " pad ", "flag": None}, headers)}
    assert found["Mcp-Param-Region"].check == MIRRORS and found["Mcp-Param-Region"].problem is None
    assert found["Mcp-Param-N"].check == ENCODE and "does not stand for '42'" in str(found["Mcp-Param-N"].problem)
    assert found["Mcp-Param-Text"].check == BASE64 and found["Mcp-Param-Text"].problem is None
    assert "Mcp-Param-Flag" not in found  # null: the omit-null check's


def test_an_unsafe_value_sent_plain_is_named_even_when_it_would_match():
    [found] = mirrored(SCHEMA, {"text": "=?base64?x?="}, {"mcp-param-text": "=?base64?x?="})
    assert found.problem is not None


def test_constraints_stray_headers_and_missing_values():
    assert broken_constraints(SCHEMA) == set()
    assert broken_constraints({"properties": {"a": {"type": "number", "x-mcp-header": "A b"}}}) == {
        "sep-2243-x-mcp-header-primitive-only",
        "sep-2243-x-mcp-header-charset",
    }
    assert unannotated_headers(SCHEMA, {"mcp-param-query": "q", "mcp-param-region": "r"}) == ["mcp-param-query"]
    assert null_or_absent(SCHEMA, {"region": "r", "n": None}) == ["N", "Text", "Flag"]
