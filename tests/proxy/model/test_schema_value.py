"""Structured output: the value made for a schema is one the schema accepts."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from backchannel.proxy.model.schema_value import value_for

SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer", "minimum": 5}},
        "required": ["a", "b"],
    },
    {"type": "object", "properties": {"choice": {"type": "string", "enum": ["flash", "pro"]}}},
    {"type": "array", "items": {"type": "boolean"}, "minItems": 2},
    {"anyOf": [{"type": "number", "maximum": -1}, {"type": "null"}]},
    {"type": ["string", "null"]},
    {"const": 42},
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_the_value_satisfies_its_schema(schema: dict[str, Any]):
    jsonschema.validate(value_for(schema), schema)


def test_a_number_with_no_bounds_is_one_since_a_score_from_1_to_100_says_its_range_only_in_prose():
    assert value_for({"type": "INTEGER", "description": "Complexity score from 1-100."}) == 1


def test_gemini_upper_case_types_are_read_and_a_hostile_schema_ends_bounded():
    assert value_for({"type": "OBJECT", "properties": {"x": {"type": "BOOLEAN"}}}) == {"x": False}
    deep: dict[str, Any] = {"type": "object", "properties": {}}
    node = deep
    for _ in range(100):
        child: dict[str, Any] = {"type": "object", "properties": {}}
        node["properties"]["n"] = child
        node = child
    assert isinstance(value_for(deep), dict)
    assert value_for("not a schema") is None
