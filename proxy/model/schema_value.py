"""A small JSON value that satisfies a JSON schema (or Gemini's OpenAPI-style `responseSchema`), for an agent that
asks the model for structured output: Gemini CLI's model router sends one and parses the reply against it."""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 8


def value_for(schema: Any, depth: int = 0) -> Any:
    """The first enum value or const where there is one, otherwise a plain value of the schema's type, with every
    required property of an object filled in (all of them when none is marked required)."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return None
    if "const" in schema:
        return schema["const"]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return value_for(options[0], depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):  # ["string", "null"]
        kind = next((k for k in kind if k != "null"), "null")
    kind = kind.lower() if isinstance(kind, str) else ("object" if "properties" in schema else "string")
    if kind == "object":
        return _object(schema, depth)
    if kind == "array":
        least = schema.get("minItems")
        count = least if isinstance(least, int) and 0 < least <= 8 else 0
        return [value_for(schema.get("items"), depth + 1) for _ in range(count)]
    if kind in ("integer", "number"):
        return _number(schema)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return "The scripted model chose this value."


def _number(schema: dict[str, Any]) -> int | float:
    """The minimum where there is one, else 1 (a score "from 1-100" says so only in prose), else the maximum."""
    least, most = schema.get("minimum"), schema.get("maximum")
    if isinstance(least, int | float) and not isinstance(least, bool):
        return least
    if isinstance(most, int | float) and not isinstance(most, bool) and most < 1:
        return most
    return 1


def _object(schema: dict[str, Any], depth: int) -> dict[str, Any]:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    required = schema.get("required")
    names = [name for name in required if name in properties] if isinstance(required, list) else list(properties)
    return {name: value_for(properties[name], depth + 1) for name in names}
